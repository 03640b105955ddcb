"""`python -m training.catalog_intents fit|report` (training/catalog_intents/cli.py)."""

import sys

from training.catalog_intents.cli import main

sys.exit(main())
