"""The Bayesian group: the exact posterior over the active player's hidden fate under a
model of how the active player plays, and an expected-value rule for predicting.

Posterior. At the group's decision, for every hand the active player could have drawn
this turn (the fate it carried, if any, and the fresh draws -- including the third fate
of The Feast), the public turn is replayed in the engine from its public start
(``view.turn_start``) with that hand, and the observed actions of the active player
(``view.turn_actions``) are scored by the partner model: the heuristic player by
default, mixed with ``epsilon`` of uniform play so that a partner who deviates never
yields an impossible observation. A hand is kept only if the replay reproduces the
public announcements exactly. Its weight is

    P(hand) x prod over the active player's decisions of P(model takes that action)

where P(hand) draws fresh fates from the copies unseen by this player at the start of
the turn, and a carried fate's prior is what this player concluded about it on earlier
turns: the stored likelihood of that evidence times the copies unseen now. The result
is restricted to the current number line (power answers, wrong predictions).

Decision. With ``V(score, doom)`` a race estimate of the chance to win (:func:`race_win`:
by default the rough :func:`race_value`; with ``accuracy`` above 0 the race in which every
later turn scores with that chance and otherwise costs ``fail_doom`` doom; with a
:class:`RaceTable`, the win rate measured from each score and doom), the group
predicts the most likely value when ``P(right) V(after a point) + P(wrong) V(after the
wrong guess and the fades)`` beats ``V(after the fades) + info_value`` (passing keeps the
information for later). A power is used when its expected value after the answer beats
not using it by ``power_cost``: every question power, Sorrows (one more guess) and Scions
(it can stop a fade). Reveals, Sails and Sparrows-like active powers are not used.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from pathlib import Path

import numpy as np

from shipwreck_agents.base import Policy
from shipwreck_agents.scripted.heuristic import HeuristicPlayer
from shipwreck_agents.scripted.knowledge import (
    doom_of_fades,
    fading_slots,
    literal_posterior,
    mask_to_array,
)
from shipwreck_env.envs.policy import BatchedPartner
from shipwreck_env.rules.actions import ACTIONS, PASS, predict_action
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, step_inplace
from shipwreck_env.rules.questions import QUESTIONS, yes_values
from shipwreck_env.rules.scenario import ForcedDraws, hypothetical_turn_start
from shipwreck_env.rules.state import State
from shipwreck_env.rules.view import AgentView, make_view

__all__ = ["BayesGroup", "RaceTable", "race_value", "race_win", "replay_decision"]

_COST_ORDER = (
    "sparrows",
    "skies",
    "shells",
    "shadows",
    "sinners",
    "scions",
    "storms",
    "shackles",
    "songs",
    "secrets",
    "swords",
    "spires",
    "saints",
    "sorrows",
    "scythes",
    "sails",
)  # least useful to the group first: what it pays for Sails and Scythes


def race_value(score: int, doom: int) -> float:
    """A rough chance to win from (score, doom): doom budget left against points needed."""
    if doom >= 7:
        return 0.0
    if score >= 7:
        return 1.0
    left, needed = 7 - doom, 7 - score
    return left / (left + needed)


@cache
def race_win(score: int, doom: int, accuracy: float, fail_doom: int = 1) -> float:
    """P(win) if every later turn that changes the score or the doom scores with
    probability ``accuracy`` and otherwise costs ``fail_doom`` doom: a race of
    ``7 - score`` successes against the doom budget. ``accuracy <= 0`` falls back to
    :func:`race_value`."""
    if accuracy <= 0:
        return race_value(score, doom)
    if doom >= 7:
        return 0.0
    if score >= 7:
        return 1.0
    if fail_doom <= 0 or accuracy >= 1:  # a failed turn costs nothing: the next one may score
        return race_win(score + 1, doom, accuracy, fail_doom)
    return accuracy * race_win(score + 1, doom, accuracy, fail_doom) + (1 - accuracy) * race_win(
        score, doom + fail_doom, accuracy, fail_doom
    )


SHIPPED_RACE = "race_types.json"
"""The race table shipped in ``shipwreck_agents.models``: fitted to ``types``' own games
with itself and the training partners (the command that made it is in the file)."""


class RaceTable:
    """A measured value of the race: the chance to win from the start of a turn at each
    score and doom (0 to 6), one table per difficulty, for games of ``players`` players
    (``lab/runs/fit_race.py`` fits one to the games a team plays). A game it has no table
    for (another difficulty or number of players) is valued by the rough race.

    Args:
        tables: difficulty -> 7 x 7 values, ``[score][doom]``, each from 0 to 1.
        players: the number of players the tables were measured with.
        source: where the tables came from (shown in errors and specs).
    """

    SIZE = 7

    def __init__(
        self, tables: Mapping[str, Sequence[Sequence[float]]], players: int, source: str = ""
    ) -> None:
        self.source = source
        self.players = players
        self.tables: dict[str, np.ndarray] = {}
        for difficulty, rows in tables.items():
            table = np.asarray(rows, dtype=float)
            if table.shape != (self.SIZE, self.SIZE) or not np.all((table >= 0) & (table <= 1)):
                raise ValueError(
                    f"race table {source!r} at {difficulty!r} is not allowed; allowed: "
                    f"{self.SIZE} x {self.SIZE} win rates from 0 to 1, [score][doom]"
                )
            self.tables[difficulty] = table

    @classmethod
    def load(cls, path: str | Path | None = None) -> RaceTable:
        """The tables of a file written by ``lab/runs/fit_race.py``; with no path, the
        table shipped in this package (:data:`SHIPPED_RACE`, measured from ``types``'
        games)."""
        source = str(path) if path is not None else f"shipwreck_agents.models/{SHIPPED_RACE}"
        try:
            if path is None:
                text = resources.files("shipwreck_agents.models").joinpath(SHIPPED_RACE)
                record = json.loads(text.read_text())
            else:
                record = json.loads(Path(path).read_text())
            return cls(record["tables"], int(record["players"]), source=source)
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise ValueError(
                f"race table {source!r} is not allowed ({error}); allowed: a file written "
                "by lab/runs/fit_race.py"
            ) from None

    def table_for(self, config: GameConfig | None) -> np.ndarray | None:
        """The table of ``config``'s game, or None when this one has none for it."""
        if config is None or config.num_players != self.players:
            return None
        return self.tables.get(config.difficulty)

    @staticmethod
    def value(table: np.ndarray, score: int, doom: int) -> float:
        """``table``'s chance to win from (score, doom): 1 from 7 points, 0 from 7 doom."""
        if doom >= RaceTable.SIZE:
            return 0.0
        if score >= RaceTable.SIZE:
            return 1.0
        return float(table[score, doom])


class BayesGroup(Policy):
    """See the module docstring.

    Args:
        model: the play policy assumed for the active player (default: heuristic).
        epsilon: weight of uniformly random play mixed into the model.
        info_value: value of passing to learn more next turn (in win-chance units).
        power_cost: minimum gain for spending a faded power.
        accuracy, fail_doom: the value of the race (:func:`race_win`): the chance a later
            turn scores and the doom it costs otherwise; ``accuracy`` 0 (the default) is
            the rough :func:`race_value`.
        race_table: a measured value of the race (:class:`RaceTable`), used instead of
            the above in every game it has a table for.
    """

    name = "bayes"

    def __init__(
        self,
        model: Policy | None = None,
        epsilon: float = 0.05,
        info_value: float = 0.01,
        power_cost: float = 0.005,
        accuracy: float = 0.0,
        fail_doom: int = 1,
        race_table: RaceTable | None = None,
    ) -> None:
        if not 0.0 <= accuracy <= 1.0:
            raise ValueError(f"accuracy {accuracy!r} is not allowed; allowed: 0 to 1")
        if isinstance(fail_doom, bool) or not isinstance(fail_doom, int) or fail_doom < 0:
            raise ValueError(
                f"fail_doom {fail_doom!r} is not allowed; allowed: a whole number >= 0"
            )
        self.model = model if model is not None else HeuristicPlayer()
        self.epsilon = epsilon
        self.info_value = info_value
        self.power_cost = power_cost
        self.accuracy = accuracy
        self.fail_doom = fail_doom
        self.race_table = race_table
        self._likelihood: dict[tuple[int, int], tuple[int, np.ndarray]] = {}
        self._cache: dict[tuple, np.ndarray] = {}
        self._model_rng = np.random.default_rng(0)  # for models that break ties at random

    def reset(self) -> None:
        self._likelihood.clear()
        self._cache.clear()
        # A model that breaks ties at random (the natural player) draws from this: a
        # fresh stream per game keeps every game the same whichever games came before.
        self._model_rng = np.random.default_rng(0)

    # --- acting ------------------------------------------------------------------------

    def act(self, observation, mask, view: AgentView, rng, state: State | None = None) -> int:
        legal = view.legal or tuple(int(a) for a in np.flatnonzero(mask))
        if view.decider == view.active_player:  # not a group decision: play like the model
            return self.model.act(observation, mask, view, rng)
        if view.phase == "cost":
            return _cheapest_cost(legal)
        if view.phase in ("group", "vote"):
            return self._group(view, legal)
        return PASS if PASS in legal else int(legal[0])

    def batched(self, num_games: int, config: GameConfig, decisions: str) -> BatchedPartner | None:
        """The compiled twin (:mod:`shipwreck_agents.scripted.twins`)."""
        from shipwreck_agents.scripted.twins import twin_of

        return twin_of(self, num_games, config, decisions)

    def _group(self, view: AgentView, legal: tuple[int, ...]) -> int:
        posterior = self.posterior(view)
        fades = fading_slots(view)
        base, guess = self._predict_value(view, posterior, view.predictions_left, fades)
        powers = [a for a in legal if ACTIONS[a].kind == "power"]
        best_power, best_gain = None, self.power_cost
        for action in powers:
            gain = self._power_value(view, posterior, action, fades) - base
            if gain > best_gain:
                best_power, best_gain = action, gain
        if best_power is not None:
            return best_power
        if guess and predict_action(guess) in legal:
            return predict_action(guess)
        return PASS

    # --- values ------------------------------------------------------------------------

    def race_outcomes(
        self,
        score: int,
        doom: int,
        fade_doom: int,
        amplified: bool = False,
        config: GameConfig | None = None,
    ) -> tuple[float, float, float]:
        """(pass, right, wrong): the value of the race (this group's race: its
        :class:`RaceTable` where it has one for ``config``'s game, else :func:`race_win`)
        after the group passes (plus ``info_value``), names the kept fate (one point more
        with Sands on a fading card, ``amplified``) or names another, from ``score`` and
        ``doom`` on a turn whose fades cost ``fade_doom``."""
        table = self.race_table.table_for(config) if self.race_table is not None else None
        if table is not None:
            value = functools.partial(RaceTable.value, table)
        else:
            value = functools.partial(race_win, accuracy=self.accuracy, fail_doom=self.fail_doom)
        return (
            value(score, doom + fade_doom) + self.info_value,
            value(score + 1 + amplified, doom),
            value(score, doom + 1 + fade_doom),
        )

    def _predict_value(
        self, view: AgentView, posterior: np.ndarray, guesses: int, fades: list[int]
    ) -> tuple[float, int]:
        """(value of the best choice, value guessed or 0 for pass), by :func:`race_win`."""
        doom_fades = doom_of_fades(view, fades)
        amplified = any("sands" in view.attached[s] for s in fades)
        pass_value, right, wrong = self.race_outcomes(
            view.score, view.doom, doom_fades, amplified, view.config
        )
        if guesses <= 0 or posterior.sum() <= 0:
            return pass_value, 0
        order = np.argsort(-posterior, kind="stable")
        p_right = float(posterior[order[:guesses]].sum())
        predict_value = p_right * right + (1 - p_right) * wrong
        if predict_value > pass_value:
            return predict_value, int(order[0]) + 1
        return pass_value, 0

    def _power_value(
        self, view: AgentView, posterior: np.ndarray, action: int, fades: list[int]
    ) -> float:
        spec = ACTIONS[action]
        guesses = view.predictions_left
        if spec.power == "sorrows":
            return self._predict_value(view, posterior, guesses + 1, fades)[0]
        if spec.power == "scions":
            return self._scions_value(view, posterior, spec.slot, fades)
        yes = _question(view, spec)
        if yes is None:
            return -1.0
        value = 0.0
        for answer_mask in (yes, ~yes):
            part = posterior * answer_mask
            mass = float(part.sum())
            if mass > 0:
                value += mass * self._predict_value(view, part / mass, guesses, fades)[0]
        if spec.power == "scythes":
            value -= self.power_cost  # it spends a second power
        return value

    def _scions_value(
        self, view: AgentView, posterior: np.ndarray, slot: int, fades: list[int]
    ) -> float:
        if slot not in fades:
            return -1.0
        attached = list(view.attached)
        attached[slot] = (*attached[slot], "scions")
        slowed = dataclasses.replace(view, attached=tuple(attached))
        return self._predict_value(slowed, posterior, view.predictions_left, fading_slots(slowed))[
            0
        ]

    # --- the posterior -------------------------------------------------------------------

    def posterior(self, view: AgentView) -> np.ndarray:
        """P(active seat's kept fate = v + 1), v = 0..6, from this player's knowledge."""
        seat = view.active_seat
        line = mask_to_array(view.lines[seat])
        if sum(view.holding[seat : seat + 1]) != 1:
            return np.zeros(7)
        key = (view.player, view.turn, seat, len(view.turn_actions))
        model_part = self._cache.get(key)
        if model_part is None:
            model_part = self._model_posterior(view)
            self._cache = {key: model_part}  # one turn at a time
        posterior = model_part * line
        total = posterior.sum()
        if total <= 0:  # the model cannot explain what happened: fall back to literal
            posterior = literal_posterior(view.lines[seat], view.unseen)
            total = posterior.sum()
        posterior = posterior / total
        counts = np.maximum(np.array(_pool_now(view), dtype=float), 1e-9)
        self._likelihood[(view.player, seat)] = (view.turn, posterior / counts)
        return posterior

    def _carried_prior(self, view: AgentView, pool: list[int]) -> np.ndarray:
        seat = view.active_seat
        line = mask_to_array(view.turn_start.lines[seat])
        counts = np.array(pool, dtype=float) * line
        stored = self._likelihood.get((view.player, seat))
        if stored is not None and stored[0] == view.turn - len(view.holding):
            prior = counts * stored[1]  # what this player concluded on that seat's last turn
        else:
            prior = counts
        if prior.sum() <= 0:
            prior = counts
        return prior / prior.sum() if prior.sum() > 0 else line / max(1, line.sum())

    def _model_posterior(self, view: AgentView) -> np.ndarray:
        pool = _pool_at_start(view)
        total = sum(pool)
        out = np.zeros(7)
        played_feast = view.feast_done
        hands: list[tuple[tuple[int, ...], float]] = []
        if view.carried_into_turn:
            prior = self._carried_prior(view, pool)
            for c in range(1, 8):
                if prior[c - 1] <= 0:
                    continue
                rest = list(pool)
                rest[c - 1] -= 1
                n = sum(rest)
                for d in range(1, 8):
                    if rest[d - 1] > 0 and n > 0:
                        hands.append(((c, d), prior[c - 1] * rest[d - 1] / n))
        else:
            for a in range(1, 8):
                for b in range(a, 8):
                    if pool[a - 1] <= 0 or pool[b - 1] - (a == b) <= 0:
                        continue
                    p = pool[a - 1] * (pool[b - 1] - (a == b)) / (total * (total - 1))
                    hands.append(((a, b), p if a == b else 2 * p))
        decisions: dict[tuple, int] = {}
        played = [value for value, _, _ in view.plays]
        for hand, p_hand in hands:
            if played and played[0] not in hand:
                continue  # cannot have made the first play (the replay would say so too)
            draws: list[tuple[int, float]] = [(0, 1.0)]
            if played_feast:
                rest = list(pool)
                for v in hand:
                    rest[v - 1] -= 1
                n = sum(rest)
                draws = [(e, rest[e - 1] / n) for e in range(1, 8) if rest[e - 1] > 0]
            for extra, p_extra in draws:
                result = self._replay(view, hand, extra, decisions)
                if result is not None:
                    kept, likelihood = result
                    out[kept - 1] += p_hand * p_extra * likelihood
        return out

    def _replay(
        self, view: AgentView, hand: tuple[int, ...], extra: int, decisions: dict
    ) -> tuple[int, float] | None:
        """Replay the active player's part of this turn with ``hand``: (kept, likelihood)
        or None if the hand cannot produce what was seen."""
        state = hypothetical_turn_start(view, list(hand), carried=view.carried_into_turn)
        draws = ForcedDraws(state, [extra] if extra else [])
        active = state.active_player
        likelihood = 1.0
        for action in view.turn_actions:
            if state.decider != active or state.over:
                break
            legal = legal_actions(state)
            if action not in legal:
                return None
            likelihood *= self._chance(state, legal, action, decisions)
            try:
                step_inplace(state, action, draws, check=False)
            except ForcedDraws.Impossible:
                return None
        if state.events != list(view.events[: len(state.events)]):
            return None  # an announcement came out differently
        kept = state.hands[state.active]
        if len(kept) != 1:
            return None
        return kept[0], likelihood

    def _chance(self, state: State, legal: list[int], action: int, decisions: dict) -> float:
        """P(the model, mixed with ``epsilon`` of uniform play, takes ``action``) at the
        active player's decision in the replayed ``state`` (``decisions`` caches the
        model's choices for this turn's replays)."""
        view, key = replay_decision(state)
        chosen = decisions.get(key)
        if chosen is None:
            mask = np.zeros(len(ACTIONS), dtype=np.int8)
            mask[legal] = 1
            chosen = decisions[key] = self.model.act(None, mask, view, self._model_rng)
        return (1 - self.epsilon) * (chosen == action) + self.epsilon / len(legal)


def replay_decision(state: State) -> tuple[AgentView, tuple]:
    """The replayed active player's view of ``state`` and the key its decision is cached
    under for one turn's replays (what the player knows that differs between hands)."""
    view = make_view(state, state.active_player)
    return view, (view.phase, view.my_hands, view.my_carried, len(state.events), view.lines)


def _own_revealed(view: AgentView) -> list[int]:
    return [e[2] for e in view.events if e[0] == "reveal" and e[1] in view.my_seats]


def _pool_at_start(view: AgentView) -> list[int]:
    """Copies of each value this player could not see at the start of the turn."""
    start = view.turn_start
    pool = [3 - n for n in start.exiled]
    for fates in start.table:
        for v in fates:
            pool[v - 1] -= 1
    for hand in view.my_hands:
        for v in hand:
            pool[v - 1] -= 1
    for v in _own_revealed(view):
        pool[v - 1] -= 1
    return [max(0, n) for n in pool]


def _pool_now(view: AgentView) -> list[int]:
    return list(view.unseen)


def _question(view: AgentView, spec) -> np.ndarray | None:
    """Values (real, index v - 1) for which the power's answer would be yes (a shared,
    read-only array)."""
    if spec.power not in QUESTIONS:
        return None
    if spec.power == "shackles":
        if not view.plays:
            return None
        arg = view.plays[-1][0]
    else:
        arg = spec.value
    key = (spec.power, arg, view.shadows)
    mask = _MASKS.get(key)
    if mask is None:  # np.isin costs more than the rest of a group decision
        mask = _MASKS[key] = np.isin(np.arange(1, 8), yes_values(spec.power, arg, view.shadows))
        mask.flags.writeable = False  # shared by every caller
    return mask


_MASKS: dict[tuple, np.ndarray] = {}  # _question's answers by (power, argument, Shadows)


def _cheapest_cost(legal: tuple[int, ...]) -> int:
    offered = {ACTIONS[a].power: a for a in legal}
    for power in _COST_ORDER:
        if power in offered:
            return offered[power]
    return int(legal[0])
