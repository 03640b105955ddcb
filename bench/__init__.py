"""Benchmarks (`make bench` = `python -m bench.run`): every figure against a baseline measured
in the same run. See bench/run.py and docs/PERFORMANCE.md."""
