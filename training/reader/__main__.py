"""`python -m training.reader train|evaluate|export|windows|time ...` (training/reader/cli.py)."""

import logging
import sys

from training.reader.cli import main

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
sys.exit(main())
