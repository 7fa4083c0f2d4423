"""``python -m shipwreck_training.fast``: see :mod:`shipwreck_training.fast.run`."""

from shipwreck_training.fast.run import main

raise SystemExit(main())
