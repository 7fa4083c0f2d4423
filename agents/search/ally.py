"""The ally: the convention with partners who play it, type inference with everyone else.

Why. The convention (:class:`~shipwreck_agents.convention.team.ConventionPolicy`) is the
strongest team we have with itself and a poor partner to anyone who does not share its
code; type inference (:class:`~shipwreck_agents.search.type_inference.TypeGroup`, ``types``)
is the best partner to strangers we have and far below the convention with itself. The
ally plays each relationship at the table with the one that fits it.

What it believes. Each player keeps, per partner, one bit: has this partner shown that it
does not play the convention? It starts believing every partner does (a table of allies,
or of convention players, then plays exactly as the convention: same deals, same
decisions). A partner is *refuted* by evidence the convention can never produce:

* **its play** (the group decider watching it): the convention's code for the turn shows
  what the partner did for no hand its number line allows -- the convention's exact
  reading (:meth:`ConventionPolicy.reading`) has no mass at all;
* **the outcome of the reading** (the same decider, on its next decision, when that is the
  very next turn): the prediction it made scored, so the kept fate was the value named,
  and the convention's reading of the play gave that value no mass;
* **its type evidence** (``doubt``): type inference's posterior on the partner, from its
  plays, puts less than ``doubt`` on the convention among its library's types (this one
  is a judgement, not a proof: set ``doubt=0`` for proofs only);
* **its reading of our play** (``listen``; the active player, on its next decision): the
  code left exactly one kept value for the line we played, a convention reader then names
  it if it predicts at all, and the fate is gone while the score has not moved since: the
  reader predicted and was wrong.

Each is a fact about public actions and what the deciding player itself knows (its own
hand, its own predictions), so nothing hidden enters; all but the type evidence are
exact, so they never refute a convention player.

What it does. The group decision on a partner's turn is the convention's while that
partner stands, else type inference's (the posterior over partner types, which the ally
keeps up to date on every turn it watches, in either mode). The active player plays the
convention's line while its reader (the leader; every partner in vote mode) stands (with
``pooled``, also only while no partner this player has watched is refuted: in a 3-player
leader game a player never watches its own reader, so a stranger seen anywhere may be
taken as a sign the reader is one too); otherwise it plays as type inference does.
A turn keeps the mode its first decision chose.

What it must not do: read hidden facts. Every memory is keyed by the reading player and
cleared by :meth:`reset`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from shipwreck_agents.base import Policy
from shipwreck_agents.convention.team import ConventionPolicy
from shipwreck_agents.search.type_inference import DEFAULT_TYPES, TypeGroup
from shipwreck_env.envs.policy import BatchedPartner
from shipwreck_env.rules.actions import ACTIONS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.state import State
from shipwreck_env.rules.view import AgentView

__all__ = ["AllyTeam"]


class AllyTeam(Policy):
    """See the module docstring. One object plays both roles.

    Args:
        types: type inference's library (:data:`DEFAULT_TYPES`).
        pooled: a refuted partner anywhere makes this player's plays type inference's
            (off by default: measured worse, docs/adhoc.md).
        listen: refute a reader by how it read a play whose code was certain.
        margin: type inference's signalling margin.
    """

    name = "ally"

    def __init__(
        self,
        types: Sequence[str] = DEFAULT_TYPES,
        pooled: bool = False,
        listen: bool = True,
        margin: float = 0.1,
        doubt: float = 0.2,
    ) -> None:
        self.convention = ConventionPolicy()
        self.types = TypeGroup(types=types, margin=margin)
        self.pooled = pooled
        self.listen = listen
        self.doubt = doubt
        self._refuted: dict[int, set[int]] = {}
        self._mode: dict[tuple[int, int], bool] = {}  # (player, turn) -> convention?
        self._guess: dict[int, tuple[int, int, np.ndarray, int, int]] = {}
        self._played: dict[int, tuple[int, int, tuple[int, ...], int, int]] = {}

    def reset(self) -> None:
        self.convention.reset()
        self.types.reset()
        self._refuted.clear()
        self._mode.clear()
        self._guess.clear()
        self._played.clear()

    def batched(self, num_games: int, config: GameConfig, decisions: str) -> BatchedPartner | None:
        """No compiled twin."""
        return None

    # --- what it believes --------------------------------------------------------------

    def refuted(self, player: int) -> frozenset[int]:
        """The partners ``player`` has seen leave the convention, so far this game."""
        return frozenset(self._refuted.get(player, ()))

    def _refute(self, player: int, partner: int, why: str) -> None:
        """``player`` saw ``partner`` leave the convention (``why``: the evidence)."""
        if partner != player:
            self._refuted.setdefault(player, set()).add(partner)

    def _settle(self, view: AgentView) -> None:
        """Read the outcomes of this player's last prediction and last play, where its
        view now shows them (see the module docstring)."""
        me = view.player
        guess = self._guess.get(me)
        if guess is not None and view.turn > guess[0]:
            turn, partner, reading, score, values = self._guess.pop(me)
            missed = reading.copy()
            missed[[v - 1 for v in values]] = 0.0
            if view.turn == turn + 1 and view.score == score and missed.sum() <= 0:
                self._refute(me, partner, "outcome")
        played = self._played.get(me)
        if played is not None and view.turn > played[0]:
            _, seat, readers, score, _ = self._played.pop(me)
            if view.active_seat == seat:  # its own next turn: did it carry the fate in?
                gone = not view.carried_into_turn
            else:
                gone = view.holding[seat] == 0
            if gone and view.score == score:
                for reader in readers:
                    self._refute(me, reader, "reader")

    def _readers(self, view: AgentView) -> tuple[int, ...]:
        """The players who decide how this player's play is read."""
        n = view.config.num_players
        if view.config.group_decision == "leader":
            readers = (view.leader % n,)
        else:
            readers = tuple(p for p in range(n) if p != view.player)
        return tuple(p for p in readers if p != view.player)

    def plays_convention(self, view: AgentView) -> bool:
        """Does this player, active now, play the convention's line this turn?"""
        key = (view.player, view.turn)
        if key not in self._mode:
            refuted = self._refuted.get(view.player, set())
            self._mode[key] = not refuted.intersection(self._readers(view)) and not (
                self.pooled and refuted
            )
        return self._mode[key]

    # --- acting ------------------------------------------------------------------------

    def act(self, observation, mask, view: AgentView, rng, state: State | None = None) -> int:
        me = view.player
        self._settle(view)
        if view.decider == view.active_player:
            if not self.plays_convention(view):
                return self.types.act(observation, mask, view, rng)
            first = view.phase == "play" and not view.plays and not view.power_used
            action = self.convention.act(observation, mask, view, rng)
            if first and self.listen:
                self._note_play(view)
            return action
        partner = view.active_player
        if view.phase in ("group", "vote"):
            reading = self.convention.reading(view)
            covered = self.convention._covered(view) and view.holding[view.active_seat] == 1
            if covered and reading.sum() <= 0:
                self._refute(me, partner, "play")
            if partner not in self._refuted.get(me, ()):
                self.types.posterior(view)  # the type evidence, kept in either mode
                conv = self.types.types.index("convention") if self.doubt else -1
                if conv >= 0 and self.types.type_posterior(me, partner)[conv] < self.doubt:
                    self._refute(me, partner, "types")
            if partner in self._refuted.get(me, ()):
                action = self.types.act(observation, mask, view, rng)
            else:
                action = self.convention.act(observation, mask, view, rng)
            if ACTIONS[action].kind == "predict":
                earlier = self._guess.get(me)
                values = (ACTIONS[action].value,)
                if earlier is not None and earlier[0] == view.turn:
                    reading, values = earlier[2], earlier[4] + values  # Sorrows' second guess
                self._guess[me] = (view.turn, partner, reading, view.score, values)
            return action
        if partner in self._refuted.get(me, ()):
            return self.types.act(observation, mask, view, rng)
        return self.convention.act(observation, mask, view, rng)

    def _note_play(self, view: AgentView) -> None:
        """After the convention chose this turn's line: if the code leaves exactly one kept
        value for it, remember to check how the readers read it."""
        like = self.convention._carry.get((view.player, view.active_seat, view.turn))
        if like is None or sum(1 for x in like if x > 0) != 1:
            return
        self._played[view.player] = (
            view.turn,
            view.active_seat,
            self._readers(view),
            view.score,
            int(np.argmax(like)) + 1,
        )
