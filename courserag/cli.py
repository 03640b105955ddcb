"""Command line: `python rag_engine.py ask ...` and `python build_weaviate_index.py ...`.

Both run the same engine and builder as the UI. Errors a user can fix are printed as one
line on stderr with a non-zero exit status, never as a traceback.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import uuid
from pathlib import Path
from typing import Sequence

from courserag.config.logs import configure_logging
from courserag.errors import CourseRagError

EXIT_USAGE = 2
EXIT_INPUT = 3
EXIT_PROBLEMS = 1  # `catalog check` found problems
# A batch's exit status counts its failed lines up to here (exit statuses stop at 255, and
# 126-255 mean "not run" or "killed by a signal" to a shell).
MAX_FAILED_STATUS = 100


def _quiet_libraries() -> None:
    configure_logging(logging.WARNING, logging.ERROR)


def _fail(message: str, code: int = EXIT_INPUT) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code


def _print_human(result) -> None:
    print(result.answer)
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if result.items:
        print("\nSources:")
        from courserag.retrieval.packing import format_citation_line

        for item in result.items:
            print("  " + format_citation_line(item))


def _ask_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rag_engine.py", description="Ask the course assistant from the command line."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    ask = sub.add_parser("ask", help="answer a question (or a batch) with citations")
    ask.add_argument("question", nargs="?", help="the question (omit with --batch)")
    ask.add_argument("--course", help="course id from course_directory.yaml")
    ask.add_argument(
        "--upload", action="append", default=[], metavar="FILE", help="a file of your own notes (repeatable)"
    )
    ask.add_argument("--scope", choices=("both", "course", "notes"), default="both")
    ask.add_argument("--json", action="store_true", help="print one JSON object per result")
    ask.add_argument(
        "--batch",
        metavar="FILE.jsonl",
        help='one {"question", "course", "history"} object a line; history: [{"role", "content"}, ...]',
    )
    ask.add_argument(
        "--history",
        metavar="FILE.json",
        help='the conversation so far: [{"role": "user"|"assistant", "content": ...}, ...]',
    )
    evaluate = sub.add_parser("eval", help="score answers on a question set (course_qa format)")
    evaluate.add_argument(
        "--set", required=True, metavar="DIR", help="folder with questions.jsonl (or the file itself)"
    )
    evaluate.add_argument("--json", metavar="FILE", help="also write the figures and the wrong answers as JSON")
    evaluate.add_argument("--limit", type=int, help="only the first N questions")
    catalog = sub.add_parser("catalog", help="the course catalog's tools (docs/CATALOG.md)")
    catalog_sub = catalog.add_subparsers(dest="catalog_command", required=True)
    check = catalog_sub.add_parser(
        "check", help="check a catalog folder: every problem as file:row: field: message, exit 1 when any"
    )
    check.add_argument("folder", metavar="DIR", help="the catalog folder (courses.csv, sections.csv, …)")
    return parser


def ask_main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `rag_engine.py`."""
    _quiet_libraries()
    args = _ask_parser().parse_args(argv)
    if args.command == "eval":
        return _run_eval(args)
    if args.command == "catalog":
        return _run_catalog_check(Path(args.folder))
    if not args.batch and not args.question:
        return _fail("give a question, or --batch FILE.jsonl", EXIT_USAGE)
    if not args.batch and not args.course:
        return _fail("--course is required (see course_directory.yaml for the ids)", EXIT_USAGE)
    try:
        from courserag.config.settings import Settings
        from courserag.engine.facade import RagEngine

        engine = RagEngine.from_settings(Settings.from_env())
        if args.course:
            engine.course(args.course)
        session_id = f"cli-{uuid.uuid4().hex}"
        for upload in args.upload:
            path = Path(upload)
            if not path.is_file():
                return _fail(f"upload not found: {upload}")
            result = engine.add_upload(session_id, path)
            if not result.ok:
                return _fail(result.error)
            print(result.say("en"), file=sys.stderr)
        if args.batch:
            return _run_batch(engine, Path(args.batch), args.course, session_id, args.scope)
        history = _read_history(Path(args.history)) if args.history else []
        result = engine.ask(args.course, args.question, session_id=session_id, scope=args.scope, history=history)
    except CourseRagError as exc:
        return _fail(str(exc))
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        _print_human(result)
    return 0


def _run_catalog_check(folder: Path) -> int:
    """Every problem of the catalog on stdout, one a line, and exit 1; or one line saying
    what the catalog holds, and exit 0."""
    from courserag.catalog.check import check_folder, problem_line, summary

    if not folder.is_dir():
        return _fail(f"no catalog folder at {folder}")
    catalog, problems = check_folder(folder)
    if catalog is None:
        for problem in problems:
            print(problem_line(folder, problem))
        print(f"error: {len(problems)} problem(s) in the catalog {folder}", file=sys.stderr)
        return EXIT_PROBLEMS
    print(summary(catalog))
    return 0


def _history_of(value: object) -> list[dict]:
    """A conversation as [{"role", "content"}] (ValueError naming what is wrong)."""
    if not isinstance(value, list) or not all(isinstance(m, dict) and isinstance(m.get("content"), str) for m in value):
        raise ValueError('history must be a list of {"role", "content"} objects')
    return [{"role": str(m.get("role", "user")), "content": m["content"]} for m in value]


def _read_history(path: Path) -> list[dict]:
    try:
        return _history_of(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        raise CourseRagError("plain", text=f"cannot read the history file {path}: {exc}") from None


def _run_eval(args) -> int:
    """Score the engine's answers on a course_qa question set and print a table by kind."""
    from courserag.answers import evaluation as qa_eval
    from courserag.config.settings import Settings
    from courserag.engine.facade import RagEngine

    try:
        items = qa_eval.load_questions(Path(args.set))[: args.limit]
    except (OSError, ValueError, KeyError) as exc:
        return _fail(f"cannot read the question set {args.set}: {exc}")
    try:
        engine = RagEngine.from_settings(Settings.from_env())
        report = qa_eval.run(engine, items)
    except CourseRagError as exc:
        return _fail(str(exc))
    print(report.table())
    if args.json:
        Path(args.json).write_text(json.dumps(report.to_json(), ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


def _run_batch(engine, path: Path, default_course: str | None, session_id: str, scope: str) -> int:
    """One JSON result a line. A line that fails, for any reason, gets an {"line", "error"}
    line and the batch goes on; the exit status is the number of failed lines (at most
    MAX_FAILED_STATUS), so a script can tell a clean batch (0) from one with failures."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        return _fail(f"cannot read {path}: {exc.strerror}")
    failures = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        output = _batch_line(engine, number, line, default_course, session_id, scope)
        failures += "error" in output
        print(json.dumps(output, ensure_ascii=False), flush=True)
    if failures:
        print(f'error: {failures} line(s) of {path} failed (see their "error" rows)', file=sys.stderr)
    return min(failures, MAX_FAILED_STATUS)


def _batch_line(engine, number: int, line: str, default_course: str | None, session_id: str, scope: str) -> dict:
    """The result of one batch line, or {"line", "error"} saying why it has none."""
    try:
        record = json.loads(line)
        question, history = record["question"], _history_of(record.get("history", []))
        course, line_scope = record.get("course") or default_course, record.get("scope", scope)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        return {"line": number, "error": f"line {number} is not a {{question, course}} object ({type(exc).__name__})"}
    if not course:
        return {"line": number, "error": "no course given on this line and no --course"}
    try:
        output = engine.ask(  # a batch test, not a learner: no content gap, no citation count
            course, question, session_id=session_id, scope=line_scope, history=history, learner=False
        ).to_json()
    except CourseRagError as exc:
        return {"line": number, "error": str(exc)}
    except Exception as exc:  # an internal error answering one line must not end the batch
        logging.getLogger(__name__).exception("batch line %d failed", number)
        return {"line": number, "error": f"line {number}: an internal error ({type(exc).__name__})"}
    output["question"] = question
    return output


def build_main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `build_weaviate_index.py`."""
    _quiet_libraries()
    parser = argparse.ArgumentParser(prog="build_weaviate_index.py", description="Build or update course indexes.")
    parser.add_argument("--course", action="append", help="course id (repeatable); default: every course")
    parser.add_argument("--rebuild", action="store_true", help="drop the course's index and start over")
    parser.add_argument("--dry-run", action="store_true", help="show what would change, write nothing")
    parser.add_argument("--json", action="store_true", help="print the summaries as JSON")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    try:
        from tqdm import tqdm

        from courserag.config.settings import Settings
        from courserag.courses.directory import load_course_directory
        from courserag.courses.indexer import build_course
        from courserag.embedders import get_embedder
        from courserag.stores import build_store

        settings = Settings.from_env()
        directory = load_course_directory(settings.course_directory)
        courses = [directory.get(cid) for cid in args.course] if args.course else list(directory.courses)
        embedder = get_embedder(*settings.embedder_args())
        store = build_store(settings, embedder.dim)
        summaries = []
        for course in courses:
            bar = None if args.no_progress else tqdm(total=0, desc=course.id, unit="file", file=sys.stderr)

            def progress(done: int, total: int, name: str, bar=bar) -> None:
                if bar is not None:
                    bar.total = total
                    bar.set_postfix_str(name[-40:], refresh=False)
                    bar.update(done - bar.n)

            summary = build_course(course, store, embedder, settings, args.rebuild, args.dry_run, progress)
            if bar is not None:
                bar.close()
            summaries.append(summary)
            if not args.json:
                print(("[dry run] " if args.dry_run else "") + summary.text())
                for source, action in summary.planned:
                    print(f"  would {action}: {source}")
        if args.json:
            print(json.dumps([s.to_dict() for s in summaries], ensure_ascii=False, indent=2))
    except CourseRagError as exc:
        return _fail(str(exc), EXIT_USAGE)
    finally:
        close = getattr(locals().get("store"), "close", None)
        if callable(close):
            close()
    return 0
