"""``python -m agents``: the ``shipwreck-arcana`` command."""

import sys

from agents.cli import main

sys.exit(main())
