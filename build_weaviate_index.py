"""Build or update the course indexes (Weaviate when WEAVIATE_URL is set, else the local store).

    python build_weaviate_index.py                  # every course in course_directory.yaml
    python build_weaviate_index.py --course csc3100 # one course
    python build_weaviate_index.py --rebuild        # start over
    python build_weaviate_index.py --dry-run        # show what would change

Incremental: unchanged files (same SHA-256) are skipped, changed and deleted files have their
old chunks removed. The app never imports this file.
"""

import sys

from courserag.cli import build_main


def main() -> int:
    return build_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
