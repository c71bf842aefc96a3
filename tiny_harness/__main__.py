"""`python -m tiny_harness`: the same as the `tiny-harness` command."""

import sys

from tiny_harness.cli import main

sys.exit(main())
