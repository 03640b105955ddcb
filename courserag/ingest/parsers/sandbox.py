"""Parse one file in a worker process with a budget: processor time, memory, a wall deadline.

Size limits do not bound a parser's work: an 8 KB PDF whose pages share one compressed
stream took 106 s, an 18 KB DOCX of empty paragraphs 1.15 GB. guard.py counts the structure
it knows to be costly; this module bounds everything else. Each file is parsed by a fresh
Python process (`python -c`, never a fork of the app with its threads and models) that
gets only the file's bytes and its limits on stdin and answers in JSON on stdout. Before it
reads anything hostile it limits its own processor time (RLIMIT_CPU) and address space
(RLIMIT_AS, on top of what the interpreter already holds); the parent kills it at the wall
deadline. Any overrun is a `TooComplexError` ("too complex to read", with the reason).

The worker inherits no secret: its environment is reduced to what Python needs. Its answer
is JSON, not pickle, so even a parser that was taken over cannot run code in the app. One
spare worker is kept started, so a parse does not wait for the interpreter and the parsing
libraries to load (about 0.4 s).
"""

from __future__ import annotations

import json
import logging
import math
import os
import resource
import signal
import subprocess
import sys
import threading
from dataclasses import asdict
from pathlib import Path

from courserag import errors
from courserag.config.settings import Limits, ParseBudget
from courserag.errors import IngestError, TooComplexError
from courserag.i18n.messages import Notice
from courserag.ingest.parsers import ParsedDocument, check_type, safe_display_name
from courserag.ingest.parsers.guard import check_size
from courserag.records import Section

__all__ = ["ParseJob", "parse_sandboxed", "read_upload"]

log = logging.getLogger(__name__)

_ROOT = str(Path(__file__).resolve().parents[3])  # the folder that holds `courserag`
_CHILD = "import courserag.ingest.parsers.sandbox as s; s._child()"
_ERRORS = {
    cls.__name__: cls
    for cls in (
        errors.IngestError,
        errors.UnsupportedFileError,
        errors.FileTooLargeError,
        errors.EncryptedFileError,
        errors.EmptyFileError,
        errors.CorruptFileError,
        errors.TooComplexError,
    )
}


class ParseJob:
    """A handle on a running parse, so that ending a session can stop its parse at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen | None = None
        self.cancelled = False

    def _attach(self, process: subprocess.Popen) -> bool:
        with self._lock:
            self._process = process
            return not self.cancelled

    def cancel(self) -> None:
        with self._lock:
            self.cancelled = True
            if self._process is not None and self._process.poll() is None:
                self._process.kill()


def read_upload(path: Path, name: str, limits: Limits) -> bytes:
    """The file's bytes after the one size check (before reading, and again after)."""
    check_size(name, Path(path).stat().st_size, limits)
    data = Path(path).read_bytes()
    check_size(name, len(data), limits)
    return data


def parse_sandboxed(
    data: bytes, display_name: str, limits: Limits, budget: ParseBudget, job: ParseJob | None = None
) -> ParsedDocument:
    """`parsers.parse_bytes` in a worker process within `budget`; raises IngestError only."""
    name = safe_display_name(display_name)
    check_type(name)  # an unsupported type is refused here, without starting anything
    check_size(name, len(data), limits)
    header = json.dumps({"name": name, "limits": asdict(limits), "cpu_s": budget.cpu_s, "memory_mb": budget.memory_mb})
    payload = len(header.encode()).to_bytes(8, "big") + header.encode() + bytes(data)
    process = _workers.take()
    job = job or ParseJob()
    if not job._attach(process):
        process.kill()
    try:
        out, err = process.communicate(payload, timeout=budget.wall_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise TooComplexError(name, "complex_time", seconds=budget.wall_s) from None
    except (BrokenPipeError, OSError):  # killed (cancelled) while we were still writing
        process.kill()
        out, err = process.communicate()
    if job.cancelled:
        raise IngestError(name, "upload_cancelled")
    return _result(name, process.returncode, out, err, budget)


def _result(name: str, returncode: int, out: bytes, err: bytes, budget: ParseBudget) -> ParsedDocument:
    """The worker's JSON answer turned back into a document or the IngestError it reported."""
    if returncode in (-signal.SIGXCPU, -signal.SIGKILL):  # RLIMIT_CPU's soft, then hard, limit
        raise TooComplexError(name, "complex_cpu", seconds=budget.cpu_s)
    try:
        answer = json.loads(out.decode("utf-8"))
        if "memory" in answer:
            raise TooComplexError(name, "complex_memory", memory_mb=budget.memory_mb)
        if "error" in answer:
            kind, file_name, code, params = answer["error"]
            error = _ERRORS[kind].__new__(_ERRORS[kind])
            IngestError.__init__(error, str(file_name), code, **_decode_params(params))
            raise error
        doc = answer["ok"]
        return ParsedDocument(
            name=str(doc["name"]),
            doc_type=str(doc["doc_type"]),
            sections=[Section(str(s[0]), str(s[1]), str(s[2])) for s in doc["sections"]],
            units=int(doc["units"]),
            unit=str(doc["unit"]),
            warnings=[_decode_notice(w) for w in doc["warnings"]],
        )
    except IngestError:
        raise
    except Exception:  # noqa: BLE001 - no answer, or not one we understand: the worker died
        log.warning("the parser worker for %s stopped (exit %s)", name, returncode)
        log.debug("parser worker stderr: %s", err[-2000:].decode("utf-8", "replace"))
        if returncode == -signal.SIGABRT or b"MemoryError" in err:  # malloc failed past RLIMIT_AS
            raise TooComplexError(name, "complex_memory", memory_mb=budget.memory_mb) from None
        raise TooComplexError(name, "complex_crash") from None


def _encode_value(value):
    if isinstance(value, Notice):
        return {"notice": value.code, "params": {k: _encode_value(v) for k, v in value.params.items()}}
    return value if isinstance(value, (str, int, float)) else str(value)


def _decode_value(value):
    if isinstance(value, dict):
        return _decode_notice(value)
    if isinstance(value, (str, int, float)):
        return value
    raise ValueError(f"unexpected parameter {value!r}")


def _decode_params(params: dict) -> dict:
    return {str(k): _decode_value(v) for k, v in params.items()}


def _decode_notice(value: dict) -> Notice:
    return Notice(str(value["notice"]), _decode_params(value["params"]))


# --------------------------------------------------------------------------- starting workers


class _Workers:
    """Starts worker processes, keeping one spare that has already loaded the libraries."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._spare: subprocess.Popen | None = None

    @staticmethod
    def _start() -> subprocess.Popen:
        env = {"PYTHONPATH": _ROOT, "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8", "PATH": os.defpath}
        return subprocess.Popen(
            [sys.executable, "-c", _CHILD],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=_ROOT,
            close_fds=True,
        )

    def take(self) -> subprocess.Popen:
        with self._lock:
            spare, self._spare = self._spare, None
            if spare is None or spare.poll() is not None:
                spare = self._start()
            self._spare = self._start()
            return spare


_workers = _Workers()


# --------------------------------------------------------------------------- the worker


def _vm_bytes(field: str) -> int:
    """This process's address space ("VmSize") or its peak ("VmPeak") from /proc, 0 if unknown."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def _limit_self(cpu_s: float, memory_mb: int) -> int:
    """Limit the processor time and address space this process may still use; returns the
    address-space limit in bytes."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(usage.ru_utime + usage.ru_stime + cpu_s)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 2))
    limit = _vm_bytes("VmSize") + memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return limit


def _child() -> None:
    """Worker main: load the parsers, read one job from stdin, answer in JSON on stdout."""
    from courserag.errors import CorruptFileError
    from courserag.ingest.parsers import parse_bytes

    for library in ("pypdf", "docx", "pptx", "charset_normalizer"):  # loaded while the worker is spare
        try:
            __import__(library)
        except ImportError:
            pass
    stdin = sys.stdin.buffer
    header = json.loads(stdin.read(int.from_bytes(stdin.read(8), "big")))
    data = stdin.read()
    limit = _limit_self(float(header["cpu_s"]), int(header["memory_mb"]))
    try:
        doc = parse_bytes(data, header["name"], Limits(**header["limits"]))
        del data
        answer: dict = {
            "ok": {
                "name": doc.name,
                "doc_type": doc.doc_type,
                "units": doc.units,
                "unit": doc.unit,
                "sections": [[s.text, s.locator, s.heading] for s in doc.sections],
                "warnings": [_encode_value(w) for w in doc.warnings],
            }
        }
    except IngestError as exc:
        # Libraries report a failed allocation in their own words (lxml: "XMLSyntaxError:
        # unknown error"): a file that could not be read while memory ran up to the limit
        # ran out of memory.
        if type(exc) is CorruptFileError and _vm_bytes("VmPeak") > 0.9 * limit:
            answer = {"memory": True}
        else:
            params = {k: _encode_value(v) for k, v in exc.reason_notice.params.items()}
            answer = {"error": [type(exc).__name__, exc.file_name, exc.reason_notice.code, params]}
    except MemoryError:
        answer = {"memory": True}
    sys.stdout.buffer.write(json.dumps(answer, ensure_ascii=False).encode("utf-8"))
    sys.stdout.buffer.flush()
