"""The policy-conditioned belief over the active seat's kept fate (BAD-style, exact), over
batched games.

At the turn's first play the active player chose action ``a`` (fate ``v`` on a card).
Every group member can ask what the *current* play network would have done with each
hand the active seat might hold, because the active player's observation depends on its
hand only through its own fields (its hand, its carried fate, the copies it cannot
see) and its legal mask only through the plays: each hypothetical input is the real one
with those fields rewritten and the plays recomputed by the batched engine's rule
(asked of ``shipwreck_env.vector.public_record.hand_play_masks``), all hands of all games in
one network call. The rule reads the table as it is at the play: when the active
player used a power before it (Sparrows' new card in the base set; Skies or Shadows in
others), the hypothetical hands are judged on the changed table, exactly as the reference-engine team (``FastTeamPolicy`` in
``agents/learned/fast_team.py``) and the search's rollouts (``RolloutBelief`` in
``agents/search/sparta.py``) judge them; the choice of the power itself is not multiplied into
the likelihood (on any side).
The engine-free part (hypothetical observations, prior, likelihood) is
``agents/learned/policy_belief.py``, shared with the reference-engine team ``agents/learned/fast_team.py``;
this module adds the batched engine's legal plays and the per-game memory of a run.
The posterior over the kept fate ``k`` is then::

    b(k) ∝ line_now(k) · Σ_{hands h = (x, y) holding v and k} prior(h) · π(a | o(h), m(h))

``h`` is ordered (carried fate, drawn fate) when the seat carried a fate into the turn,
else (first draw, second draw); ``prior(h) = pool[x] · (pool[y] - [x = y])``, times the
seat's number line at the turn start on ``x`` when ``x`` was carried, with ``pool`` the
copies of each value no one sees publicly (3 minus the exiled, the table and the copies
known to be in the bag; the line and the pool are read off the observation at the
play, and a power before the play changes neither); ``line_now`` is the seat's number
line at the group's decision (every public fact of the turn: card condition, The
Chalice, The Fall, power answers).

With ``carry=True`` (belief kind ``policy_carry``) a carried fate's prior is not the
number line alone but the group's posterior about it from the turn it was kept: the
likelihood computed then, by the network of then (as BAD stores it, never recomputed
with later weights), divided by the copies unknown after that play, times the copies
unknown now and the number line now (``carry_weights`` in ``agents/learned/policy_belief.py``).
The memory is per game and seat, used on the seat's next turn (``turn`` less the
number of seats; any other gap leaves the bare number line), forgotten when the game restarts and saved in :meth:`state_dict`.

With ``after_play=True`` (config key ``belief_after_play``, off by default) the active
player's own ``AFTER_PLAY`` choice (Shells, Sinners or pass), which comes between its
play and the group's decisions once one of those powers is faded, is multiplied in too:
per ordered hand ``h`` the term ``prior(h) · π(a | o(h), m(h))`` is kept, and at the
after-play decision multiplied by ``π(c | o'(h), m'(h))``, the probability of the choice
``c`` made with the observation ``o'(h)`` the player would have had keeping that hand's
other fate (whether it is the carried one shows in the observation) and the legal mask
``m'(h)`` with Sinners judged against that kept value
(``kept_probabilities`` and ``kept_masks`` in ``agents/learned/policy_belief.py``, as
``FastTeamPolicy(after_play=True)`` does on the reference engine). The seat's memory
(``carry``) is then recomputed from the product.

The block replaces the literal belief block in the observation of every group decision
of a turn with exactly one play (The Feast's second play, or The Thief handing the
active seat a second fate, leave the literal block in place). This module must not
change any game.
"""

from __future__ import annotations

import numpy as np

from shipwreck_agents.learned.policy_belief import (
    PLAY_VALUE,
    AfterPlayTerms,
    carry_weights,
    hypothetical_observations,
    likelihood,
    prior_weights,
)
from shipwreck_env.rules.actions import NUM_ACTIONS
from shipwreck_env.rules.state import Phase
from shipwreck_env.vector.public_record import hand_play_masks

__all__ = [
    "PolicyBelief",
    "carry_weights",
    "hypothetical_inputs",
    "hypothetical_masks",
    "hypothetical_observations",
    "likelihood",
    "play_likelihood",
    "prior_weights",
]

_PLAY_VALUE = PLAY_VALUE
_VALUES = np.arange(1, 8)
_NUM_PLAYS = int((_PLAY_VALUE > 0).sum())  # the play actions come first in the table


def _bits(lines: np.ndarray) -> np.ndarray:
    """float[n, 7]: 1 where the number line allows the value."""
    return ((lines.astype(np.int64)[:, None] >> (_VALUES - 1)) & 1).astype(np.float64)


def hypothetical_masks(
    part, games: np.ndarray, mask: np.ndarray, x: np.ndarray, y: np.ndarray
) -> np.ndarray:
    """The legal masks of the active players of ``games`` (of the ``VectorGame``
    ``part``; real masks ``mask``) with the hand ``(x[i], y[i])``: the plays recomputed
    by the engine's rule on the table at the play
    (:func:`shipwreck_env.vector.public_record.hand_play_masks`), every other action as it is."""
    a = part.arrays
    mask = mask.copy()
    mask[:, :_NUM_PLAYS] = False
    mask |= hand_play_masks(
        a.slots[games], a.tcount[games], a.shadows[games], a.feast_done[games], x, y
    )
    return mask


def hypothetical_inputs(
    part, games: np.ndarray, obs: np.ndarray, mask: np.ndarray, x: np.ndarray, y: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Observations and legal masks of the active players of ``games`` (deciding their
    play now: observations ``obs``, masks ``mask``) with the ordered hands ``(x, y)``."""
    return (
        hypothetical_observations(obs, part.layout, x, y),
        hypothetical_masks(part, games, mask, x, y),
    )


def play_likelihood(
    part,
    games: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    actions: np.ndarray,
    model,
    carry: np.ndarray | None = None,
    per_hand: bool = False,
) -> np.ndarray:
    """:func:`likelihood` for the games ``games`` of the ``VectorGame`` ``part``
    (``per_hand``: float64[n, 14], the terms per ordered hand)."""

    def masks_of(rows: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return hypothetical_masks(part, games[rows], mask[rows], x, y)

    if per_hand:
        return likelihood(obs, part.layout, actions, model, masks_of, carry, per_hand=True)
    return likelihood(obs, part.layout, actions, model, masks_of, carry)


class PolicyBelief:
    """Per game: the turn's play likelihood, written into group observations.

    Args:
        games: the run's :class:`~shipwreck_training.common.games.Games`.
        carry: keep each seat's posterior for its next turn (kind ``policy_carry``);
            ``False`` is the first-play belief of kind ``policy``.
        after_play: also multiply in the active player's ``AFTER_PLAY`` choice (see
            the module docstring); ``False`` computes exactly what it did before the
            option existed.
    """

    def __init__(self, games, carry: bool = False, after_play: bool = False) -> None:
        n = games.num_games
        self.likelihood = np.zeros((n, 7))
        self.turn = np.full(n, -1, np.int64)
        self.offset = games.layout.offsets["belief"]
        self.carry = carry
        if carry:  # per game and seat: the weights and the turn they were kept on
            seats = games.field("hand_len").shape[1]
            self.memory = np.ones((n, seats, 7))
            self.memory_turn = np.full((n, seats), -1, np.int64)
        self.after_play = after_play
        if after_play:  # per game: the turn's terms per ordered hand, and its play
            self.terms = AfterPlayTerms(n, games.layout.size)

    @property
    def kind(self) -> str:
        """The ``belief_kind`` this object computes (``.meta.json``)."""
        return "policy_carry" if self.carry else "policy"

    def restart(self, games: np.ndarray) -> None:
        """Those games restarted: forget their turn (and their seats' memory)."""
        self.turn[games] = -1
        if self.carry:
            self.memory[games] = 1.0
            self.memory_turn[games] = -1

    def carry_of(self, games, rows: np.ndarray) -> np.ndarray | None:
        """float64[n, 7]: the memory the active seats of ``rows`` carry into this turn
        (ones where the seat kept nothing on its last turn); ``None`` without memory
        (kind ``policy``). Read before :meth:`record` writes this turn's."""
        if not self.carry:
            return None
        seat = games.field("active").astype(np.int64)[rows]
        gap = self.memory.shape[1]  # the seats take their turns in order
        last = self.memory_turn[rows, seat] == games.field("turn")[rows] - gap
        return np.where(last[:, None], self.memory[rows, seat], 1.0)

    def record(self, games, obs: np.ndarray, mask: np.ndarray, actions: np.ndarray, model) -> None:
        """Before the step: keep the likelihood of every game whose active player now
        makes the turn's first play."""
        phase, decider = games.field("phase"), games.field("decider").astype(np.int64)
        active_seat = games.field("active").astype(np.int64)
        active = active_seat % games.num_players
        first = (
            (phase == Phase.PLAY)
            & (decider == active)
            & (games.field("plays_len") == 0)
            & (_PLAY_VALUE[actions] > 0)
            & ~games.field("over")
        )
        which = np.flatnonzero(first)
        turn = games.field("turn")
        for k, pos, local in games.locate(which):
            rows = which[pos]
            carry = self.carry_of(games, rows)
            if self.carry:
                seat = active_seat[rows]
            if self.after_play:
                hands = play_likelihood(
                    games.parts[k], local, obs[rows], mask[rows], actions[rows], model, carry, True
                )
                self.likelihood[rows] = self.terms.keep_play(
                    rows, hands, obs[rows], games.layout, actions[rows]
                )
            else:
                self.likelihood[rows] = play_likelihood(
                    games.parts[k], local, obs[rows], mask[rows], actions[rows], model, carry
                )
            self.turn[rows] = turn[rows]
            if self.carry:
                self.memory[rows, seat] = carry_weights(
                    obs[rows], games.layout, actions[rows], self.likelihood[rows]
                )
                self.memory_turn[rows, seat] = turn[rows]
        if self.after_play:
            self._record_after_play(games, obs, mask, actions, model)

    def _record_after_play(
        self, games, obs: np.ndarray, mask: np.ndarray, actions: np.ndarray, model
    ) -> None:
        """Multiply the probability of each active player's ``AFTER_PLAY`` choice
        ``actions`` under each hand into its turn's terms (and its seat's memory)."""
        terms = self.terms
        g = terms.multiply(
            games.field, games.num_players, self.turn, obs, mask, actions, model, games.layout
        )
        if not len(g):
            return
        self.likelihood[g] = terms.likelihood(g)
        if self.carry:
            seat = games.field("active").astype(np.int64)[g]
            self.memory[g, seat] = terms.carry_memory(g, games.layout)

    def posterior(self, games) -> tuple[np.ndarray, np.ndarray]:
        """(games with a policy belief now, float32[n, 7] posterior)."""
        n = games.num_games
        active_seat = games.field("active").astype(np.int64)
        active = active_seat % games.num_players
        decider = games.field("decider").astype(np.int64)
        rows = np.arange(n)
        held = games.field("hand_len")[rows, active_seat] == 1
        ok = (
            (decider != active)
            & (decider >= 0)
            & (self.turn == games.field("turn"))
            & (games.field("plays_len") == 1)
            & held
            & ~games.field("over")
        )
        g = np.flatnonzero(ok)
        weights = self.likelihood[g] * _bits(games.field("lines")[g, active_seat[g]])
        total = weights.sum(1)
        good = total > 0
        return g[good], (weights[good] / total[good, None]).astype(np.float32)

    def fill(self, obs: np.ndarray, games) -> None:
        """Write the posterior into the belief block of every group decision it covers."""
        g, belief = self.posterior(games)
        obs[g, self.offset : self.offset + 7] = belief

    def state_dict(self) -> dict:
        """The per-game memory (for checkpoints)."""
        state = {"likelihood": self.likelihood.copy(), "turn": self.turn.copy()}
        if self.carry:
            state["memory"] = self.memory.copy()
            state["memory_turn"] = self.memory_turn.copy()
        if self.after_play:
            state.update(self.terms.state())
        return state

    def load_state_dict(self, state: dict) -> None:
        """Put back :meth:`state_dict` (``ValueError`` if it is of another kind)."""
        if self.carry != ("memory" in state):
            raise ValueError(
                f"a belief state {'with' if 'memory' in state else 'without'} carried "
                f"memory cannot load into a {self.kind!r} belief; allowed: a state of the "
                "same kind"
            )
        if self.after_play != ("hands" in state):
            raise ValueError(
                f"a belief state {'with' if 'hands' in state else 'without'} after-play "
                f"terms cannot load into a belief with after_play={self.after_play}; "
                "allowed: a state written with the same after_play"
            )
        self.likelihood[...] = state["likelihood"]
        self.turn[...] = state["turn"]
        if self.carry:
            self.memory[...] = state["memory"]
            self.memory_turn[...] = state["memory_turn"]
        if self.after_play:
            self.terms.load_state(state)


assert len(_PLAY_VALUE) == NUM_ACTIONS and (_PLAY_VALUE[:_NUM_PLAYS] > 0).all()
