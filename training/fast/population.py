"""Population training for the fast trainer: the learning team plays with strangers
drawn from a pool of partner teams (config ``zsc.method: population``).

The ad-hoc benchmark (``agents/evaluation/adhoc.py``) seats a team with strangers in two ways: one
stranger among the team (the stranger is the newcomer) and one player of the team among
strangers (the team is the newcomer). Training covers both. At each game's start
(:meth:`Population.restart`) the game is, with chance ``selfplay``, plain self-play;
otherwise it draws one partner team from ``partners`` (chance proportional to
``weights``) and a seating: with chance ``newcomer`` the partner takes one seat drawn at
random (the stranger is the newcomer), else the learner keeps one seat drawn at random
and the partner takes every other (the learner is the newcomer). Several seats of one
partner in one game share its memory, as the hosts of a cross-play table share one team
object (``agents/evaluation/crossplay.py``).

Every decision of a partner's seat, play or group, is the partner's, taken for all the
games at once on the batched engine by the partner's *batched twin*, which returns
exactly the action the partner's per-game policy returns there (``decide`` on the
reference state; tested in ``tests/training/test_fast_population.py``):

| spec | per-game policy | batched twin |
|---|---|---|
| ``heuristic+bayes`` (or ``heuristic``) | heuristic player + Bayesian group | :class:`HeuristicBayesTwin` (``vector_heuristic`` + ``vector_bayes``) |
| ``literal`` | ``LiteralPolicy`` in both roles | :class:`LiteralTwin` |
| ``fast:PATH`` | ``FastTeamPolicy(PATH)``, greedy, with its own belief | :class:`NetworkTwin` (one forward over its seats; its own ``PolicyBelief``) |
| ``noisy:E:SPEC`` | ``NoisyPolicy`` around ``SPEC``'s team | :class:`NoisyTwin` around ``SPEC``'s twin |

The convention team has no batched twin (a few thousand lines of per-game Python) and is
refused here, as are the ``natural`` player and ``literal:T``. A twin that draws random
numbers takes them from the caller, one row of :data:`DRAWS` uniforms per decision, used
as the per-game policy uses its generator (``rng.integers(n)`` is ``floor(u * n)``), so
the differential test can hand the per-game policy the same numbers.

A partner's decisions stay in each game's reward sequence (they train the value) but
not the policy (``learn`` is False there), as in the other regimes. What the learner's
group reads about a partner's play is the trainer's belief (with ``env.belief: policy``,
the posterior under the learner's own play policy, as for the random partners of
:mod:`shipwreck_training.fast.zsc`); see docs/population.md.

The trainer calls :meth:`Population.apply` after choosing its actions and
:meth:`Population.restart` when games end, the zero-shot hook points; nothing else in
the loop changes. This module must not change the games it reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from shipwreck_env.rules.actions import ACTIONS, NUM_ACTIONS, PASS, predict_action
from shipwreck_env.rules.state import Phase

if TYPE_CHECKING:
    from shipwreck_training.common.games import Games

__all__ = [
    "DRAWS",
    "HeuristicBayesTwin",
    "LiteralTwin",
    "NetworkTwin",
    "NoisyTwin",
    "Population",
    "check_partner_spec",
    "make_twin",
]

DRAWS = 3
"""Uniform numbers per decision a twin may use: the literal player's choice, then the
noise's coin and its choice."""

_PLAY = np.array([a.kind == "play" for a in ACTIONS])
_STEAL = np.array([a.kind == "steal" for a in ACTIONS])
_PREDICT = np.array([predict_action(v) for v in range(1, 8)], np.int64)
_ALLOWED = "heuristic+bayes, heuristic, literal, fast:PATH, noisy:E:SPEC of one of those"


def _noisy_parts(spec: str) -> tuple[float, str]:
    """``noisy:E:SPEC`` -> (E, SPEC), E checked as the registry checks it."""
    from shipwreck_agents.registry import spec_number

    text, _, inner = spec.partition(":")[2].partition(":")
    if not inner:
        raise ValueError(f"partner {spec!r} names no team to make noisy; allowed: noisy:E:SPEC")
    return spec_number(spec, text, 0.0, 1.0), inner


def check_partner_spec(spec: str) -> str:
    """``spec`` if it names a partner team with a batched twin (module table).

    Raises:
        ValueError: naming the spec and the allowed forms; a ``fast:`` file that does
            not exist.
    """
    if spec.startswith("noisy:"):
        _, inner = _noisy_parts(spec)
        if inner.startswith(("noisy:", "literal")):
            raise ValueError(
                f"partner {spec!r}: noise is allowed around heuristic+bayes, heuristic or "
                "fast:PATH only (their twins draw no random numbers of their own)"
            )
        check_partner_spec(inner)
        return spec
    if spec in ("heuristic+bayes", "heuristic", "literal"):
        return spec
    if spec.startswith("fast:") and len(spec) > 5:
        from shipwreck_training.common.config import check_policy_spec

        check_policy_spec(spec)  # a missing file fails here, not mid-run
        return spec
    raise ValueError(
        f"partner {spec!r} has no batched twin for population training; allowed: {_ALLOWED}"
    )


def _active_decides(games: Games, which: np.ndarray) -> np.ndarray:
    """bool[K]: the decider of each game ``which`` is its active player."""
    active = games.field("active").astype(np.int64)[which] % games.num_players
    return games.field("decider").astype(np.int64)[which] == active


class _Memory:
    """A twin whose per-game memory is made at its first decision, when the run's games
    are known: a checkpoint loaded before then is kept until it exists."""

    _pending: dict | None = None

    def _made(self) -> bool:
        raise NotImplementedError

    def _memory(self) -> dict:
        raise NotImplementedError

    def _load(self, state: dict) -> None:
        raise NotImplementedError

    def _forget(self, games: np.ndarray) -> None:
        raise NotImplementedError

    def _loaded(self) -> None:
        """Just made: put back the checkpoint loaded before, if any."""
        if self._pending is not None:
            self._load(self._pending)

    def restart(self, games: np.ndarray) -> None:
        """The games ``games`` restarted: forget them."""
        if self._made():
            self._forget(games)

    def state_dict(self) -> dict:
        """The per-game memory, as plain arrays (for checkpoints)."""
        return self._memory() if self._made() else dict(self._pending or {})

    def load_state_dict(self, state: dict) -> None:
        """Put back :meth:`state_dict` (kept until the memory is made)."""
        if self._made():
            self._load(state)
        else:
            self._pending = state or None


class HeuristicBayesTwin(_Memory):
    """``heuristic+bayes``: the heuristic player's decisions as the active player, the
    Bayesian group's otherwise, with the group's memory per game place."""

    def __init__(self, num_games: int) -> None:
        from shipwreck_agents.scripted.bayes import BayesGroup

        self.num_games = num_games
        self.policy = BayesGroup()  # its parameters and its model's (the heuristic)
        self.group = None  # made at the first decision, when the game's seats are known

    def _bind(self, games: Games) -> None:
        if self.group is None:
            from shipwreck_agents.scripted.bayes_batched import BatchedBayes

            seats = games.field("hand_len").shape[1]
            self.group = BatchedBayes(self.num_games, games.num_players, seats, self.policy)
            self._loaded()

    def act(
        self, games: Games, which: np.ndarray, mask: np.ndarray, draws: np.ndarray
    ) -> np.ndarray:
        """int64[K]: the team's action in each game ``which`` (global indices)."""
        from shipwreck_agents.scripted.heuristic_batched import heuristic_actions

        self._bind(games)
        model = self.policy.model
        out = np.zeros(len(which), np.int64)
        for k, pos, local in games.locate(which):
            part = games.parts[k]
            own = part.legal_mask()
            mine = _active_decides(games, which[pos])
            if mine.any():
                out[pos[mine]] = heuristic_actions(
                    part.arrays, local[mine], own, model.doom_weight, model.power_margin
                )
            if not mine.all():
                first = k * games.per_part
                out[pos[~mine]] = self.group.act(part.arrays, part.cards, local[~mine], own, first)
        return out

    def _made(self) -> bool:
        return self.group is not None

    def _forget(self, games: np.ndarray) -> None:
        self.group.restart(games)

    def _memory(self) -> dict:
        names = ("mem_turn", "mem_lik", "cache_key", "cache_val")
        return {name: getattr(self.group, name).copy() for name in names}

    def _load(self, state: dict) -> None:
        for name, value in state.items():
            getattr(self.group, name)[...] = value


class LiteralTwin:
    """``literal``: random plays, and predictions only of a value the number line makes
    certain (``LiteralPolicy()`` in both roles; no memory)."""

    def act(
        self, games: Games, which: np.ndarray, mask: np.ndarray, draws: np.ndarray
    ) -> np.ndarray:
        """int64[K]: the literal player's action in each game ``which``."""
        rows = mask[which]
        phase = games.field("phase")[which]
        # default: pass when legal, else the lowest legal action (cost: the lowest)
        out = np.where(rows[:, PASS] & (phase != Phase.COST), PASS, rows.argmax(1))
        for kind, phases in ((_PLAY, (Phase.PLAY,)), (_STEAL, (Phase.STEAL,))):
            pick = np.isin(phase, phases) & (rows & kind).any(1)
            if pick.any():
                out[pick] = _uniform(rows[pick] & kind, draws[pick, 0])
        guess = np.flatnonzero(np.isin(phase, (Phase.GROUP, Phase.VOTE)))
        if len(guess):
            g = which[guess]
            seat = games.field("active").astype(np.int64)[g]
            line = games.field("lines")[g, seat].astype(np.int64)
            preds = games.field("predictions")[g].astype(np.int64)
            for j in range(preds.shape[1]):  # never repeat a wrong guess
                made = j < games.field("pred_len")[g]
                line &= ~np.where(made & (preds[:, j] > 0), 1 << (preds[:, j] - 1).clip(0), 0)
            single = (line > 0) & (line & (line - 1) == 0)
            value = np.log2(np.maximum(line, 1)).astype(np.int64)  # value - 1 when single
            action = _PREDICT[value]
            legal = rows[guess, action]
            out[guess] = np.where(single & legal, action, PASS)
        return out.astype(np.int64)

    def restart(self, games: np.ndarray) -> None:
        """Nothing to forget."""

    def state_dict(self) -> dict:
        """No memory."""
        return {}

    def load_state_dict(self, state: dict) -> None:
        """No memory."""


def _uniform(rows: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The ``floor(u * n)``-th of each row's ``n`` true entries, in ascending order (what
    ``legal[rng.integers(n)]`` picks when the generator's integer is that)."""
    n = rows.sum(1)
    index = np.minimum((u * n).astype(np.int64), n - 1)
    return (rows.cumsum(1) > index[:, None]).argmax(1)


class NetworkTwin(_Memory):
    """``fast:PATH``: the network's greedy action, one forward over all its seats, with
    the belief ``FastTeamPolicy`` keeps: the likelihood of the turn's first play made by
    one of this partner's seats, under its own play network, written into its group's
    observations (``training/common/policy_belief_batched.py``'s :class:`PolicyBelief`, fed only the
    plays this partner made)."""

    def __init__(self, spec: str, num_games: int) -> None:
        from shipwreck_agents.registry import make_policy

        policy = make_policy(spec)  # the process's one FastTeamPolicy of the file: only read
        self.spec, self.num_games = spec, num_games
        self.model, self.meta = policy.model, policy.meta
        self.kind = self.meta.get("belief_kind", "literal")
        self.after_play = bool(self.meta.get("belief_after_play", False))
        self.belief = None  # made at the first decision, on the run's games

    def _bind(self, games: Games) -> None:
        if self.belief is not None or self.kind not in ("policy", "policy_carry"):
            return
        from shipwreck_agents.learned.sb3 import check_game
        from shipwreck_training.common.policy_belief_batched import PolicyBelief

        for part in games.parts:
            check_game(self.meta, part.config, self.spec)
        if games.layout.size != self.model.obs_dim or "belief" not in games.layout.offsets:
            raise ValueError(
                f"partner {self.spec!r} reads observations of size {self.model.obs_dim} with "
                f"the belief block; the run's are of size {games.layout.size}: allowed: a "
                "run whose env.belief is literal, policy or aux"
            )
        self.belief = PolicyBelief(
            games, carry=self.kind == "policy_carry", after_play=self.after_play
        )
        self._loaded()

    def act(
        self, games: Games, which: np.ndarray, mask: np.ndarray, draws: np.ndarray
    ) -> np.ndarray:
        """int64[K]: the network's greedy action in each game ``which``; its first plays
        are remembered for its group."""
        import torch

        self._bind(games)
        decider = games.field("decider").astype(np.int64)[which]
        obs = games.observe_games(which, decider)
        if self.belief is not None:
            g, posterior = self.belief.posterior(games)
            rows = np.searchsorted(which, g)
            hit = (rows < len(which)) & (which[rows.clip(max=len(which) - 1)] == g)
            offset = self.belief.offset
            obs[rows[hit], offset : offset + 7] = posterior[hit]
        legal = mask[which]
        with torch.no_grad():
            out = self.model.greedy(torch.from_numpy(obs), torch.from_numpy(legal)).numpy()
        out = out.astype(np.int64)
        if self.belief is not None:  # only this partner's decisions are recorded
            full_obs = np.zeros((games.num_games, obs.shape[1]), np.float32)
            full_obs[which] = obs
            actions = np.full(games.num_games, PASS, np.int64)  # PASS is no play
            actions[which] = out
            self.belief.record(games, full_obs, mask, actions, self.model)
        return out

    def _made(self) -> bool:
        return self.belief is not None

    def _forget(self, games: np.ndarray) -> None:
        self.belief.restart(games)

    def _memory(self) -> dict:
        return self.belief.state_dict()

    def _load(self, state: dict) -> None:
        self.belief.load_state_dict(state)


class NoisyTwin:
    """``noisy:E:SPEC``: ``SPEC``'s twin decides everywhere (so its memory sees every
    decision), then each active player's decision is, when the draw's coin is below
    ``epsilon``, a uniform legal action instead (``NoisyPolicy``)."""

    def __init__(self, inner, epsilon: float) -> None:
        self.inner, self.epsilon = inner, epsilon

    def act(
        self, games: Games, which: np.ndarray, mask: np.ndarray, draws: np.ndarray
    ) -> np.ndarray:
        """int64[K]: the noisy team's action in each game ``which``."""
        out = self.inner.act(games, which, mask, draws)
        noisy = _active_decides(games, which) & (draws[:, 1] < self.epsilon)
        if noisy.any():
            out[noisy] = _uniform(mask[which[noisy]], draws[noisy, 2])
        return out

    def restart(self, games: np.ndarray) -> None:
        """The inner twin forgets the games."""
        self.inner.restart(games)

    def state_dict(self) -> dict:
        """The inner twin's memory."""
        return self.inner.state_dict()

    def load_state_dict(self, state: dict) -> None:
        """Put back the inner twin's memory."""
        self.inner.load_state_dict(state)


def make_twin(spec: str, num_games: int):
    """The batched twin of the partner team ``spec`` for ``num_games`` game places.

    Raises:
        ValueError: ``spec`` has no batched twin (:func:`check_partner_spec`).
    """
    check_partner_spec(spec)
    if spec.startswith("noisy:"):
        epsilon, inner = _noisy_parts(spec)
        return NoisyTwin(make_twin(inner, num_games), epsilon)
    if spec in ("heuristic+bayes", "heuristic"):
        return HeuristicBayesTwin(num_games)
    if spec == "literal":
        return LiteralTwin()
    return NetworkTwin(spec, num_games)


class Population:
    """Per game: which partner (if any) sits where, and their decisions (module docstring).

    Args:
        partners: partner team specs (:func:`check_partner_spec`).
        weights: their relative chances (empty: equal).
        selfplay: chance per game of no partner.
        newcomer: chance, in a game with a partner, that the partner takes one seat
            (else the learner takes one seat and the partner every other).
        num_games: games stepped side by side.
        num_players: players per game.
        seed: seeds this object's own random stream (the trainer's are untouched).
    """

    def __init__(
        self,
        partners: tuple[str, ...],
        weights: tuple[float, ...],
        selfplay: float,
        newcomer: float,
        num_games: int,
        num_players: int,
        seed: int,
    ) -> None:
        if not partners or (weights and len(weights) != len(partners)):
            raise ValueError(
                f"{len(partners)} partners with {len(weights)} weights are not allowed; "
                "allowed: one partner or more, and as many weights or none"
            )
        self.specs = tuple(partners)
        self.twins = [make_twin(spec, num_games) for spec in partners]
        w = np.asarray(weights or [1.0] * len(partners), np.float64)
        self.weights = w / w.sum()
        self.selfplay, self.newcomer = selfplay, newcomer
        self.rng = np.random.default_rng([seed, 0x909])
        self.partner = np.full(num_games, -1, np.int64)  # -1: self-play
        self.seat = np.zeros((num_games, num_players), bool)  # the partner's seats
        self.restart(np.arange(num_games))

    def restart(self, games: np.ndarray) -> None:
        """New games started in the places ``games``: draw their partners and seats,
        and every partner forgets the old games there."""
        games = np.asarray(games, np.int64)
        n, players = len(games), self.seat.shape[1]
        u = self.rng.random((n, 3))
        choice = np.minimum(
            np.searchsorted(self.weights.cumsum(), u[:, 1], "right"), len(self.weights) - 1
        )
        self.partner[games] = np.where(u[:, 0] < self.selfplay, -1, choice)
        one = (u[:, 2] * players).astype(np.int64).clip(max=players - 1)
        single = np.arange(players)[None] == one[:, None]
        stranger_newcomer = self.rng.random(n) < self.newcomer
        seats = np.where(stranger_newcomer[:, None], single, ~single)
        self.seat[games] = seats & (self.partner[games] >= 0)[:, None]
        for twin in self.twins:
            twin.restart(games)

    def deciding(self, games: Games) -> np.ndarray:
        """int64[N]: the partner taking each game's decision now (-1: the learner)."""
        decider = games.field("decider").astype(np.int64)
        rows = np.arange(len(decider))
        theirs = (decider >= 0) & self.seat[rows, decider.clip(min=0)]
        return np.where(theirs, self.partner, -1)

    def apply(
        self, games: Games, chosen: np.ndarray, mask: np.ndarray, learn: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(actions, learn): ``chosen`` with each partner's action where its seat
        decides, and ``learn`` False there."""
        who = self.deciding(games)
        if (who < 0).all():
            return chosen, learn
        chosen, learn = chosen.copy(), learn.copy()
        for k, twin in enumerate(self.twins):
            which = np.flatnonzero(who == k)
            if len(which):
                draws = self.rng.random((len(which), DRAWS))
                chosen[which] = twin.act(games, which, mask, draws)
        learn[who >= 0] = False
        return chosen, learn

    def belief_actions(self, chosen: np.ndarray, learn: np.ndarray) -> np.ndarray:
        """The actions the learner's own belief should record (``PolicyBelief.record``):
        ``chosen`` (after :meth:`apply`) with every partner's decision replaced by a pass,
        which is no play, so a partner's play keeps the literal block in the learner's
        group, as ``FastTeamPolicy`` leaves a stranger's play at the ad-hoc table
        (``Trainer.collect`` records these)."""
        return np.where(learn, chosen, PASS)

    def state_dict(self) -> dict:
        """Seating, the random stream and every partner's memory (for checkpoints)."""
        return {
            "specs": list(self.specs),
            "partner": self.partner.copy(),
            "seat": self.seat.copy(),
            "rng": self.rng.bit_generator.state,
            "twins": [twin.state_dict() for twin in self.twins],
        }

    def load_state_dict(self, state: dict) -> None:
        """Put back :meth:`state_dict` (``ValueError`` for another pool)."""
        if list(state["specs"]) != list(self.specs):
            raise ValueError(
                f"checkpoint partners {state['specs']} are not allowed for this run; "
                f"allowed: {list(self.specs)}"
            )
        self.partner[...] = state["partner"]
        self.seat[...] = state["seat"]
        self.rng.bit_generator.state = state["rng"]
        for twin, memory in zip(self.twins, state["twins"], strict=True):
            twin.load_state_dict(memory)


assert len(_PLAY) == NUM_ACTIONS and not _PLAY[PASS]
