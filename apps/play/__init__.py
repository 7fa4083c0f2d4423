"""Playing with AI teammates and watching replays: the game table shared by the terminal
and the browser (:mod:`shipwreck_apps.play.table`), what one seat may see of it
(:mod:`shipwreck_apps.play.seat_view`), stepping through a recorded game
(:mod:`shipwreck_apps.play.replay_view`) and the terminal front end
(:mod:`shipwreck_apps.play.terminal`). Replay records themselves are
:mod:`shipwreck_agents.evaluation.records` (the evaluator writes them too).

This package imports ``shipwreck_env`` and ``shipwreck_agents``; the web app
(:mod:`shipwreck_apps.web`) imports it, never the other way round.
"""

__all__ = ["DEFAULT_TEAMMATES"]

DEFAULT_TEAMMATES = "types:racetable"
"""The AI teammates a table seats unless told otherwise: the team with the best pooled
win rate with the held-out partners of the ad-hoc benchmark (``results/adhoc/README.md``; a
person is a partner our teams never met). The convention stays selectable by name."""
