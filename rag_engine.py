"""The study assistant's engine and its command line.

    python rag_engine.py ask --course csc3100 "What is the late policy?"
    python rag_engine.py ask --course csc3100 --upload notes.pdf --json "..."
    python rag_engine.py ask --batch questions.jsonl --json

The orchestration lives in courserag/engine/facade.py; this file is the entry point the Space and
instructors know.
"""

import sys

from courserag.cli import ask_main
from courserag.engine.facade import Answer, RagEngine

__all__ = ["Answer", "RagEngine", "main"]


def main() -> int:
    return ask_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
