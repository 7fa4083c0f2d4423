"""``python -m shipwreck_apps``: the ``shipwreck-arcana`` command."""

import sys

from shipwreck_apps.cli import main

sys.exit(main())
