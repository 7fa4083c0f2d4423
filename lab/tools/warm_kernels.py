"""Compile the batched kernels once, into their disk caches (``./test.sh`` runs it after
the set-up): the same as ``shipwreck-arcana warm``, whose module
(``shipwreck_apps.warm``) says what it compiles.

    .venv/bin/python lab/tools/warm_kernels.py [--only engine|partners]
"""

from __future__ import annotations

import sys

from shipwreck_apps.warm import main

if __name__ == "__main__":
    sys.exit(main())
