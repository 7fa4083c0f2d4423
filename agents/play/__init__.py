"""Playing with AI teammates and watching replays: the game table shared by the terminal
and the browser (:mod:`agents.play.table`), what one seat may see of it
(:mod:`agents.play.seat_view`), replay records (:mod:`agents.play.replay`) and the
terminal front end (:mod:`agents.play.terminal`). The web app is :mod:`agents.web`.

This package sits above the core: it imports ``shipwreck_env`` and ``agents``, and the
core imports nothing from it.
"""
