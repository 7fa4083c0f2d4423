"""``python -m shipwreck_training.sb3``: see :mod:`shipwreck_training.sb3.train`."""

from shipwreck_training.sb3.train import main

raise SystemExit(main())
