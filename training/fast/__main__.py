"""``python -m training.fast``: see :mod:`training.fast.run`."""

from training.fast.run import main

raise SystemExit(main())
