"""``python -m shipwreck_agents``: the ``shipwreck-arcana`` command."""

import sys

from shipwreck_agents.cli import main

sys.exit(main())
