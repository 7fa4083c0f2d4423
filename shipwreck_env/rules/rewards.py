"""The team reward shared by the PettingZoo and Gymnasium environments.

* ``win_loss``: +1 when the game is won, -1 when it is lost, 0 otherwise (also at a
  truncation, which is neither);
* ``score_doom``: +1 per point scored and -1 per doom gained, as they happen.
"""

from __future__ import annotations

from shipwreck_env.rules.state import State

__all__ = ["REWARDS", "check_reward", "end_info", "team_reward"]

REWARDS = ("win_loss", "score_doom")


def check_reward(kind: object) -> str:
    """``kind`` if it names a reward, else ``ValueError`` naming it and the choices."""
    if kind not in REWARDS:
        raise ValueError(f"reward {kind!r} is not allowed; allowed: {list(REWARDS)}")
    return kind


def team_reward(kind: str, s: State, score_before: int, doom_before: int) -> float:
    """The reward of reaching ``s`` from a state with ``score_before`` / ``doom_before``."""
    if kind == "score_doom":
        return float((s.score - score_before) - (s.doom - doom_before))
    if s.over and not s.truncated:
        return 1.0 if s.won else -1.0
    return 0.0


def end_info(s: State) -> dict:
    """What every agent's info holds once the game is over."""
    return {"score": s.score, "doom": s.doom, "won": s.won}
