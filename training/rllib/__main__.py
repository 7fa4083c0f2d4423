"""``python -m shipwreck_training.rllib``: see :mod:`shipwreck_training.rllib.train`."""

from shipwreck_training.rllib.train import main

raise SystemExit(main())
