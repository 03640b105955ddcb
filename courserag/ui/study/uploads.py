"""The Study tab's upload handlers: a learner's files into their session's pool, with progress.

A mixin of `StudyApp` (courserag/ui/study/handlers.py), kept apart so each module has one job; it uses
the app's `engine`, `settings`, `sessions`, `clients` and its notes-table helpers.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from pathlib import Path

import gradio as gr

from courserag.i18n.messages import render
from courserag.i18n.ui_texts import normalize_lang, t
from courserag.ui.clients import request_client
from courserag.ui.rendering.render import render_upload_log, upload_line
from courserag.ui.study.sessions import new_sid

log = logging.getLogger(__name__)

PROGRESS_EVERY_S = 0.25  # the notes table is redrawn at most this often while a file is indexed
_DONE = object()


def unique_files(paths: list[Path], limit: int) -> tuple[list[Path], int]:
    """The files of one upload call, each once (by path and by file identity), at most
    `limit` of them; and how many were left out over the limit (one upload referenced ten
    times in a call used to be parsed ten times)."""
    seen: set = set()
    unique: list[Path] = []
    for path in paths:
        try:
            stat = path.stat()
            key = (stat.st_dev, stat.st_ino)
        except OSError:
            key = str(path)
        if key not in seen and str(path) not in seen:
            seen.update((key, str(path)))
            unique.append(path)
    return unique[:limit], max(0, len(unique) - limit)


class UploadHandlers:
    """Upload, remove and list a session's notes (the API endpoints and the page's live upload)."""

    def _paths(self, files, lang: str) -> tuple[list[Path], list[tuple[str, str]]]:
        """The call's files, each once and at most MAX_FILES_PER_UPLOAD; and a line about
        any left out."""
        if isinstance(files, (str, Path)):
            files = [files]
        paths, skipped = unique_files(
            [Path(getattr(f, "name", f)) for f in (files or []) if f], self.settings.limits.max_files_per_upload
        )
        note = render("upload_too_many_files", {"count": len(paths) + skipped, "limit": len(paths)}, lang)
        return paths, [("info", note)] if skipped else []

    def _add(self, sid: str, path: Path, lang: str, progress=None, client: str | None = None) -> tuple[str, str]:
        try:
            return upload_line(self.engine.add_upload(sid, path, path.name, progress=progress, client=client), lang)
        except Exception as exc:  # noqa: BLE001 - one bad file never ends the session
            log.exception("upload of %s failed", path.name)
            return "fail", t(lang, "upload_crashed", name=path.name, kind=type(exc).__name__)

    def upload(self, files, sid, lang, request: gr.Request):
        """Parse and index each file into this session's pool; one result line per file
        (the API endpoint; the page uses `upload_live`)."""
        lang = normalize_lang(lang)
        sid = self.sessions.sid_for(request, sid) or new_sid()
        paths, skipped = self._paths(files, lang)
        client = request_client(request, self.clients)
        lines = [self._add(sid, path, lang, client=client) for path in paths] + skipped or [
            ("info", t(lang, "no_files_given"))
        ]
        return render_upload_log(lines), self.notes_html(sid, lang), self.remove_choices(sid, lang), None, sid

    def upload_live(self, files, sid, lang, request: gr.Request):
        """`upload` for the page: the notes table shows each file as "reading…", then
        "indexing… 12 of 118 pages", until it is searchable. Outputs: log, notes, upload
        names, the file box, sid."""
        lang = normalize_lang(lang)
        sid = self.sessions.sid_for(request, sid) or new_sid()
        paths, skipped = self._paths(files, lang)
        lines: list[tuple[str, str]] = []
        events: queue.Queue = queue.Queue()
        client = request_client(request, self.clients)

        def work() -> None:
            try:
                for path in paths:
                    lines.append(self._add(sid, path, lang, progress=events.put, client=client))
            finally:
                events.put(_DONE)

        threading.Thread(target=work, name="upload", daemon=True).start()
        yield "", self.notes_html(sid, lang), gr.skip(), gr.skip(), sid
        shown, stale = time.monotonic(), False
        while True:
            try:
                item = events.get(timeout=PROGRESS_EVERY_S)
            except queue.Empty:
                item = None
            if item is _DONE:
                break
            stale = stale or item is not None
            if stale and time.monotonic() - shown >= PROGRESS_EVERY_S:
                shown, stale = time.monotonic(), False
                yield render_upload_log(lines), self.notes_html(sid, lang), gr.skip(), gr.skip(), sid
        lines = lines + skipped or [("info", t(lang, "no_files_given"))]
        yield render_upload_log(lines), self.notes_html(sid, lang), self.upload_names(sid), None, sid

    def remove_upload(self, names, sid, lang, request: gr.Request = None):
        lang = normalize_lang(lang)
        sid = self.sessions.sid_for(request, sid)
        if isinstance(names, str):
            names = [names]
        names = [n for n in (names or []) if n]
        if not names:
            log_html = render_upload_log([("info", t(lang, "nothing_selected"))])
        else:
            removed = [n for n in names if sid and self.engine.remove_upload(sid, n)]
            log_html = render_upload_log([("info", t(lang, "removed", names=", ".join(removed or names)))])
        return log_html, self.notes_html(sid, lang), self.remove_choices(sid, lang)

    def remove_clicked(self, sid, lang, event: gr.EventData, request: gr.Request = None):
        """The ✕ beside one file in the notes table. Outputs: log, notes, upload names."""
        name = str((getattr(event, "_data", None) or {}).get("name") or "")
        if not name:
            return gr.skip(), gr.skip(), gr.skip()
        log_html, notes, _ = self.remove_upload([name], sid, lang, request)
        return log_html, notes, self.upload_names(self.sessions.sid_for(request, sid))

    def list_uploads(self, sid, request: gr.Request = None):
        sid = self.sessions.sid_for(request, sid)
        return [
            {"name": f.name, "doc_type": f.doc_type, "chunks": f.chunks, "units": f.units, "size_bytes": f.size_bytes}
            for f in (self.engine.uploads(sid) if sid else [])
        ]
