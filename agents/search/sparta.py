"""Test-time search for a fast-trained team, in the spirit of SPARTA: ``search:PATH``.

At each of its decisions with a choice in the phases it searches -- by default the
active player's first play of the turn and the leader's group decisions; optionally also
the active player's steal and after-play decisions -- :class:`SearchTeamPolicy` asks what the team's own
network (the *blueprint*, :class:`~shipwreck_agents.learned.fast_team.FastTeamPolicy`) would
achieve after each legal action, and plays the best one if it beats the blueprint's own
choice by ``margin``; otherwise it plays the blueprint's choice.

1. **Worlds from the team's belief** (:func:`sample_worlds`). The hidden facts are the
   fates in other seats' hands and the order of the face-down deck. The active seat's kept
   fate is drawn from the blueprint's policy-conditioned belief (the posterior it writes
   into the group's observation; the number line where it has none); the fate held by
   every other seat from its number line times the copies the observer cannot see; the
   deck below its top card is shuffled. Each world is the public start of the turn
   (``view.turn_start``) with those hands, replayed through the turn's public actions with
   the reference engine; a world that does not reproduce every public event is dropped.
   Nothing is read from the real game's state: the policy never asks for it.
2. **Rollouts on the batched engine** (:func:`rollout_values`). Every (action, world) pair
   is one game of a :class:`~shipwreck_env.vector.VectorGame` built with ``from_states``;
   the first step plays the action, then the blueprint plays every seat to the end of the
   game, its group reading the blueprint's own belief kind recomputed for every play of
   the rollout (:class:`RolloutBelief`): the first-play belief (``policy``), or with each
   seat's memory of the fate it kept (``policy_carry``), and with the active player's
   after-play choice multiplied in for a blueprint trained so (``belief_after_play``),
   starting from the memory the real game's blueprint holds before the decision. All actions of one world share one random stream
   (common random numbers), so their difference is the action's.
3. **Choice.** The value of an action is the share of its rollouts won; the best action
   is played if it beats the blueprint's choice by ``margin``. With ``confirm`` those two
   are rolled out again on a fresh sample first, and the change must hold over both.

The team's belief stays policy-conditioned on the blueprint: when the search plays
another first play (or after-play choice) than the blueprint would, the group's memory is
the blueprint's likelihood of the action actually taken (and, with carried memory, the
memory of the fate that play keeps, from the seat's memory before it), as in the rollouts. The rollouts run on the batched
engine, which covers every card set; a set it did not cover would be refused when the
policy is built, and by ``VectorGame`` itself at the first rollout, naming the sets covered.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from shipwreck_agents.learned.fast_team import POLICY_KINDS, FastTeamPolicy
from shipwreck_agents.learned.policy_belief import (
    PLAY_VALUE,
    AfterPlayTerms,
    carry_weights,
    likelihood,
)
from shipwreck_agents.search.options import (
    DEFAULT_PHASES,
    check_search_options,
    parse_phases,
)
from shipwreck_agents.search.worlds import line_weights, sample_worlds
from shipwreck_env.rules.state import Phase, State
from shipwreck_env.rules.view import AgentView
from shipwreck_env.vector import VectorGame
from shipwreck_env.vector.public_record import hand_play_masks
from shipwreck_env.vector.tables import COVERED_SETS

__all__ = [
    "BELIEF_KINDS",
    "RolloutBelief",
    "SearchStats",
    "SearchTeamPolicy",
    "rollout_values",
    "shared_search_policy",
]

BELIEF_KINDS = ("literal", *POLICY_KINDS)
"""The ``belief_kind`` values a searched blueprint may have (``.meta.json``)."""

_NUM_PLAYS = int((PLAY_VALUE > 0).sum())  # the play actions come first in the table
_VALUES = np.arange(1, 8)


# --- rollouts -------------------------------------------------------------------------


class RolloutBelief:
    """The belief of the rollout games, of the blueprint's own kind (one network, every
    seat), as :class:`~shipwreck_agents.learned.fast_team.FastTeamPolicy` computes it on the
    reference engine and ``training/common/policy_belief_batched.py`` on the batched one.

    ``policy``: the likelihood of each turn's first play under the blueprint, written
    into the group's observations while that turn's kept fate is the one in question;
    the legal plays of each hypothetical hand are those of the table at the play (after
    a power used before it, such as Sparrows), asked of the public record
    (:func:`shipwreck_env.vector.public_record.hand_play_masks`), as the reference team and the
    trainer's ``PolicyBelief`` compute them.
    ``policy_carry``: the same, with each seat's memory of the fate it kept
    (:func:`~shipwreck_agents.learned.policy_belief.carry_weights`) weighing the carried fate of
    that seat's next turn (``turn`` plus the number of seats). ``literal``: nothing is
    written (the engine's own block). :meth:`load` starts the games from the real game's
    belief at the decision searched.

    With ``after_play`` (a blueprint trained with ``belief_after_play``) the active
    player's own ``AFTER_PLAY`` choice under each hand is multiplied in too, by the same
    :class:`~shipwreck_agents.learned.policy_belief.AfterPlayTerms` the trainer uses.

    Args:
        vg: the rollout games.
        kind: the blueprint's ``belief_kind``.
        after_play: also multiply in the after-play choice (a policy kind only).

    Raises:
        ValueError: an unknown kind, naming the kinds allowed.
    """

    def __init__(self, vg: VectorGame, kind: str = "policy", after_play: bool = False) -> None:
        if kind not in BELIEF_KINDS:
            raise ValueError(f"belief kind {kind!r} is not known; allowed: {list(BELIEF_KINDS)}")
        if after_play and kind not in POLICY_KINDS:
            raise ValueError(
                f"after_play needs a policy belief, not {kind!r}; allowed: {list(POLICY_KINDS)}"
            )
        self.vg, self.kind = vg, kind
        self.terms = AfterPlayTerms(vg.num_games, vg.layout.size) if after_play else None
        self.likelihood = np.zeros((vg.num_games, 7))
        self.turn = np.full(vg.num_games, -1, np.int64)
        self.offset = vg.layout.offsets["belief"]
        seats = vg.arrays.hand_len.shape[1]  # the seats take their turns in this order
        self.memory = np.ones((vg.num_games, seats, 7))
        self.memory_turn = np.full((vg.num_games, seats), -1, np.int64)

    def load(
        self,
        games: np.ndarray | slice,
        current: tuple[np.ndarray, int] | None,
        carried: dict[int, tuple[int, np.ndarray]] | None = None,
        play: tuple | None = None,
    ) -> None:
        """Start ``games`` from a real game's belief: ``current`` is (likelihood
        float[7], turn) of the first play already made this turn (None: none);
        ``carried`` maps a seat to (turn, memory float[7]) of the fate it last kept
        (kind ``policy_carry``; ``FastTeamPolicy``'s memory); ``play`` (with
        ``after_play``, and ``current``) is that play's (observation float[1, size],
        action int[1], terms per hand float[14], kept carried bool[14]), as
        ``FastTeamPolicy`` keeps it."""
        self.turn[games] = -1
        self.memory[games] = 1.0
        self.memory_turn[games] = -1
        if current is not None:
            self.likelihood[games] = current[0]
            self.turn[games] = current[1]
            if self.terms is not None and play is not None:
                obs, action, hands, _ = play  # the kept-carried flags are derived again
                self.terms.keep_play(games, hands[None], obs, self.vg.layout, action)
        for seat, (turn, weights) in (carried or {}).items():
            self.memory[games, seat] = weights
            self.memory_turn[games, seat] = turn

    def record(self, obs: np.ndarray, mask: np.ndarray, actions: np.ndarray, model) -> None:
        """Before a step: keep the likelihood of each first play about to be made (and,
        with carried memory, the memory of the fate it keeps); with ``after_play``,
        multiply each after-play choice about to be made into its turn's likelihood."""
        if self.kind not in POLICY_KINDS:
            return
        self._record_play(obs, mask, actions, model)
        if self.terms is not None:
            self._record_after_play(obs, mask, actions, model)

    def _record_after_play(
        self, obs: np.ndarray, mask: np.ndarray, actions: np.ndarray, model
    ) -> None:
        a, layout = self.vg.arrays, self.vg.layout
        g = self.terms.multiply(
            lambda name: getattr(a, name),
            self.vg.config.num_players,
            self.turn,
            obs,
            mask,
            actions,
            model,
            layout,
        )
        if not len(g):
            return
        self.likelihood[g] = self.terms.likelihood(g)
        if self.kind == "policy_carry":
            seat = a.active.astype(np.int64)[g]
            self.memory[g, seat] = self.terms.carry_memory(g, layout)

    def _record_play(self, obs: np.ndarray, mask: np.ndarray, actions: np.ndarray, model) -> None:
        a = self.vg.arrays
        active_seat = a.active.astype(np.int64)
        first = (
            (a.phase == Phase.PLAY)
            & (a.decider.astype(np.int64) == active_seat % self.vg.config.num_players)
            & (a.plays_len == 0)
            & (PLAY_VALUE[actions] > 0)
            & ~a.over.astype(bool)
        )
        games = np.flatnonzero(first)
        if not len(games):
            return

        def masks_of(rows: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
            g = games[rows]
            out = mask[g].copy()
            out[:, :_NUM_PLAYS] = False
            out |= hand_play_masks(a.slots[g], a.tcount[g], a.shadows[g], a.feast_done[g], x, y)
            return out

        turn, seat, carry = a.turn[games].astype(np.int64), active_seat[games], None
        if self.kind == "policy_carry":
            last = self.memory_turn[games, seat] == turn - self.memory.shape[1]
            carry = np.where(last[:, None], self.memory[games, seat], 1.0)
        if self.terms is None:
            self.likelihood[games] = likelihood(
                obs[games], self.vg.layout, actions[games], model, masks_of, carry
            )
        else:
            hands = likelihood(
                obs[games], self.vg.layout, actions[games], model, masks_of, carry, per_hand=True
            )
            self.likelihood[games] = self.terms.keep_play(
                games, hands, obs[games], self.vg.layout, actions[games]
            )
        self.turn[games] = turn
        if carry is not None:
            self.memory[games, seat] = carry_weights(
                obs[games], self.vg.layout, actions[games], self.likelihood[games]
            )
            self.memory_turn[games, seat] = turn

    def fill(self, obs: np.ndarray) -> None:
        """Write the posterior into every group decision of a turn with one play."""
        if self.kind not in POLICY_KINDS:
            return
        a = self.vg.arrays
        rows = np.arange(self.vg.num_games)
        seat = a.active.astype(np.int64)
        decider = a.decider.astype(np.int64)
        ok = (
            (decider >= 0)
            & (decider != seat % self.vg.config.num_players)
            & (self.turn == a.turn)
            & (a.plays_len == 1)
            & (a.hand_len[rows, seat] == 1)
        )
        g = np.flatnonzero(ok)
        bits = (a.lines[g, seat[g]].astype(np.int64)[:, None] >> (_VALUES - 1)) & 1
        weights = self.likelihood[g] * bits
        total = weights.sum(1)
        good = total > 0
        obs[g[good], self.offset : self.offset + 7] = weights[good] / total[good, None]


@torch.no_grad()
def rollout_values(
    worlds: list[State],
    actions: np.ndarray,
    model,
    seed: int,
    memory: tuple[np.ndarray, int] | None = None,
    max_steps: int = 2000,
    *,
    kind: str = "policy",
    carried: dict[int, tuple[int, np.ndarray]] | None = None,
    after_play: bool = False,
    play: tuple | None = None,
) -> np.ndarray:
    """float[len(actions)]: the share of rollouts won after each action, over ``worlds``.

    Args:
        worlds: states at the decision (same decider, same legal actions).
        actions: the candidate actions.
        model: the blueprint network (``logits(obs, mask)``).
        seed: seeds the chance streams; world ``k`` has the same stream for every action.
        memory: (likelihood float[7], turn) of the turn's first play already made, for
            the group's belief at this decision (None: no policy belief this turn).
        max_steps: a guard on the rollout length (decisions).
        kind: the blueprint's ``belief_kind`` (:class:`RolloutBelief`).
        carried: kind ``policy_carry``: per seat, (turn, memory float[7]) of the fate it
            last kept, as the real game's blueprint holds them before this decision.
        after_play: the blueprint multiplies the after-play choice into its belief
            (:class:`RolloutBelief`).
        play: with ``after_play`` and ``memory``, the turn's first play as the real
            game's blueprint keeps it (:meth:`RolloutBelief.load`).
    """
    K, L = len(worlds), len(actions)
    vg = VectorGame.from_states(
        [w for _ in range(L) for w in worlds], seed, belief=True, autoreset=False
    )
    vg.arrays.key[:] = np.tile(vg.arrays.key[:K], L)  # common random numbers per world
    belief = RolloutBelief(vg, kind, after_play)
    belief.load(slice(None), memory, carried, play)
    won = np.zeros(K * L)
    first = np.repeat(np.asarray(actions, np.int64), K)
    for step in range(max_steps):
        a = vg.arrays
        live = np.flatnonzero(~a.over.astype(bool))
        if not len(live):
            break
        obs = vg.observe().copy()
        mask = np.array(vg.legal_mask())
        belief.fill(obs)
        chosen = np.zeros(vg.num_games, np.int64)
        if step == 0:
            chosen[:] = first
        else:
            logits = model.logits(torch.from_numpy(obs[live]), torch.from_numpy(mask[live]))
            chosen[live] = logits.argmax(-1).numpy()
        belief.record(obs, mask, chosen, model)
        vg.step(chosen)
        ended = vg.final_info["_final"]
        won[ended] = vg.final_info["won"][ended]
    return won.reshape(L, K).mean(1)


# --- the policy -----------------------------------------------------------------------


@dataclass
class SearchStats:
    """What the search did (reset with the policy)."""

    decisions: int = 0
    searched: int = 0
    confirmed: int = 0
    changed: int = 0
    seconds: float = 0.0
    worlds: list[int] = field(default_factory=list)


_SHARED: dict[tuple, SearchTeamPolicy] = {}


def shared_search_policy(path: str, **options) -> SearchTeamPolicy:
    """The one :class:`SearchTeamPolicy` of ``path`` and ``options`` in this process: the
    team's group must be the object that made the play, to read it through its memory
    (as :func:`~shipwreck_agents.learned.fast_team.shared_policy`)."""
    key = (str(Path(path).resolve()), tuple(sorted(options.items())))
    if key not in _SHARED:
        _SHARED[key] = SearchTeamPolicy(path, **options)
    return _SHARED[key]


class SearchTeamPolicy(FastTeamPolicy):
    """A fast-trained team with test-time search (see the module docstring).

    Args:
        path: the team's exported ``.pth`` (its ``.meta.json`` beside it).
        samples: worlds sampled per searched decision.
        margin: how much more often an action must win in the rollouts than the
            blueprint's choice to be played instead.
        uncertain: search only where the blueprint gives its own choice a probability
            below this (1.0: search every decision with a choice).
        phases: the decisions searched, from :data:`SEARCH_PHASES`.
        confirm: worlds of a second, fresh sample on which an action that beat the
            blueprint's choice by ``margin`` is rolled out again beside that choice; the
            action is played only if it still wins by ``margin`` over both samples
            together (0: no second sample).
    """

    def __init__(
        self,
        path: str,
        samples: int = 16,
        margin: float = 0.1,
        uncertain: float = 0.95,
        phases: tuple[str, ...] = DEFAULT_PHASES,
        confirm: int = 0,
    ) -> None:
        check_search_options(samples, margin, uncertain, confirm)  # before the model loads
        super().__init__(path)
        missing = [s for s in self.meta.get("card_sets", ["base"]) if s not in COVERED_SETS]
        if missing:
            raise ValueError(
                f"search:{path}: the team plays card sets {missing} that the batched engine "
                f"does not cover; allowed: {list(COVERED_SETS)}"
            )
        if self.belief_kind not in BELIEF_KINDS:
            raise ValueError(
                f"search:{path}: belief_kind {self.belief_kind!r} has no rollout belief; "
                f"allowed: {list(BELIEF_KINDS)}"
            )
        self.samples, self.margin, self.uncertain = samples, margin, uncertain
        self.confirm = confirm
        self.phases = parse_phases("+".join(phases))
        self.name = f"search:{Path(path).stem}"
        self.stats = SearchStats()

    def reset(self) -> None:
        super().reset()
        self.stats = SearchStats()

    def act(
        self,
        observation: np.ndarray | None,
        mask: np.ndarray,
        view: AgentView,
        rng: np.random.Generator,
        state=None,
    ) -> int:
        # the team's belief before the blueprint's choice rewrites it (this turn's
        # likelihood and play, and its seat's memory): the rollouts start from it, and it
        # is put back if the search plays another action
        carried, before = dict(self._memory), (self._likelihood, self._turn)
        play = self._play
        blueprint = super().act(observation, mask, view, rng)
        self.stats.decisions += 1
        legal = np.flatnonzero(np.asarray(mask, bool))
        if len(legal) < 2 or self._phase(view) not in self.phases:
            return blueprint
        if self._confidence(observation, mask, view, blueprint) >= self.uncertain:
            return blueprint
        start = time.perf_counter()
        kept_belief = self._kept_belief(view)
        worlds = sample_worlds(view, kept_belief, rng, self.samples)
        self.stats.worlds.append(len(worlds))
        if not worlds:
            return blueprint
        memory = before if before[1] == view.turn else None

        def values_of(sample: list[State], actions: np.ndarray) -> np.ndarray:
            seed = int(rng.integers(2**31))
            return rollout_values(
                sample,
                actions,
                self.model,
                seed,
                memory,
                kind=self.belief_kind,
                carried=carried,
                after_play=self.after_play,
                play=play,
            )

        values = values_of(worlds, legal)
        best = int(legal[int(np.argmax(values))])
        own = values[np.searchsorted(legal, blueprint)]
        better = values.max() >= own + self.margin
        if better and self.confirm and best != blueprint:
            pair = np.array(sorted((best, blueprint)))
            more = sample_worlds(view, kept_belief, rng, self.confirm)
            if more:
                again = dict(zip(pair.tolist(), values_of(more, pair).tolist(), strict=True))
                n, m = len(worlds), len(more)
                best_value = (n * values.max() + m * again[best]) / (n + m)
                own_value = (n * own + m * again[blueprint]) / (n + m)
                better = best_value >= own_value + self.margin
                self.stats.confirmed += 1
        self.stats.searched += 1
        self.stats.seconds += time.perf_counter() - start
        if not better:
            return blueprint
        self.stats.changed += 1
        # the group reads the action taken (a first play, an after-play choice) through
        # the blueprint, from the belief it held before the decision
        self._memory, (self._likelihood, self._turn), self._play = carried, before, play
        obs, legal = np.asarray(observation, np.float32), np.asarray(mask, bool)
        self.remember_play(obs, legal, view, best)
        self.remember_after_play(obs, legal, view, best)
        return best

    @staticmethod
    def _phase(view: AgentView) -> str | None:
        """The name in :data:`SEARCH_PHASES` of this decision, or None if it is none."""
        if view.phase == "group":
            return "group" if view.decider == view.leader else None
        if not view.is_active:
            return None
        if view.phase == "play":
            return "play" if not view.turn_actions else None
        return view.phase if view.phase in ("steal", "after_play") else None

    @torch.no_grad()
    def _confidence(self, observation, mask, view: AgentView, action: int) -> float:
        """The blueprint's probability of ``action`` on the input it decided from."""
        obs = np.asarray(observation, np.float32)[None].copy()
        if self.last_belief is not None:  # the block the blueprint wrote on its copy
            offset = self._layout(view).offsets["belief"]
            obs[0, offset : offset + 7] = self.last_belief
        legal = torch.from_numpy(np.asarray(mask, bool)[None])
        logits = self.model.logits(torch.from_numpy(obs), legal)
        return float(torch.softmax(logits, -1)[0, action])

    def _kept_belief(self, view: AgentView) -> np.ndarray:
        """float[7] over the active seat's kept fate: the blueprint's policy-conditioned
        posterior written at this decision, else the seat's number line."""
        if self.last_belief is not None:
            return np.asarray(self.last_belief, np.float64)
        line = view.lines[view.active_seat]
        return line_weights(line)
