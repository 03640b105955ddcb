#!/usr/bin/env bash
# The time from a fresh clone to a served page, and the size of the venv `make run` builds.
# usage: scripts/time_to_page.sh REPO REV DIR [PORT]
#   clones REPO into DIR (removed first), checks out REV, runs `make run` in the background,
#   waits until http://127.0.0.1:PORT/ answers, prints the times and `du` of DIR/.venv, and
#   stops the `make run` it started (its process group). A measurement, not a test: it polls.
set -u
repo=$1; rev=$2; dir=$3; port=${4:-7860}
rm -rf "$dir"
start=$(date +%s.%N)
git clone -q "$repo" "$dir" && git -C "$dir" checkout -q "$rev" || exit 2
cd "$dir"
PORT=$port setsid make run > "$dir.log" 2>&1 &
pid=$!
installed=""
until curl -sf "http://127.0.0.1:$port/" > /dev/null; do
  if ! kill -0 "$pid" 2>/dev/null; then echo "make run exited first; see $dir.log" >&2; exit 1; fi
  if [ -z "$installed" ] && [ -e .venv/.runtime ]; then installed=$(date +%s.%N); fi
  sleep 1
done
end=$(date +%s.%N)
echo "time to page: $(echo "$end - $start" | bc) s (rev $rev); requirements installed after $(echo "$installed - $start" | bc) s"
du -sh .venv
kill -- -"$pid"
wait "$pid" 2>/dev/null
