"""Playing with AI teammates and watching replays: the game table shared by the terminal
and the browser (:mod:`shipwreck_agents.play.table`), what one seat may see of it
(:mod:`shipwreck_agents.play.seat_view`), replay records (:mod:`shipwreck_agents.play.replay`) and the
terminal front end (:mod:`shipwreck_agents.play.terminal`). The web app is :mod:`shipwreck_agents.web`.

This package sits above the core: it imports ``shipwreck_env`` and ``shipwreck_agents``, and the
core imports nothing from it.
"""
