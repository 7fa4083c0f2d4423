"""The convention team: player and group share one code, computed afresh every turn.

Method, in our words.

1. **A public convention per turn.** When a seat's turn starts, every teammate can list
   the hands it may hold, from public facts only (:mod:`shipwreck_env.public_record`):
   two fresh fates, or the fate it carried plus one fresh one. Each hand gets a public
   prior weight: fresh fates by the copies nobody can place on the table (the
   *onlooker's pool*), a carried fate by what the convention of that seat's last turn
   said about it (stored as a likelihood, re-weighted by today's pool and number line).
   The convention maps every hand to one *line of play*: a legal first play, then, if
   Shells or Sinners is available, that power or nothing. A line shows a public
   *observation*: the fate, the card, the Hours slide, The Chalice's tell, The Fall's
   announcement, the power used and Shells' answer. Using a power is itself a signal,
   and Sinners can take a fate off a card that would fade.
2. **Choosing the convention** maximises the summed team value over hands,
   ``sum_o G(m_o)``, where ``m_o`` is the prior mass, by kept value, of the hands whose
   line shows observation ``o``, and ``G`` is what the group gets from its best reply:
   pass, name the most likely kept value, or (if the player used no power) first ask a
   question power or take Sorrows' second guess, then pass or name. We start from a
   greedy code (every observation read as if every hand able to show it did; each hand
   takes its best line under that reading), let every hand best-respond to the group's
   current reading until nothing moves, then run coordinate ascent over hands on the
   summed value: moving one hand changes the reading of every hand that shares its old
   or new observation, which best responses alone ignore. Hands are visited in a fixed
   order and ties keep the earlier line, so the convention is a deterministic function
   of public facts: every teammate computes the same one.
3. **The group is an exact Bayesian on the convention.** Seeing the line, it keeps the
   hands the convention maps to that line, weighted by *its own* prior (its pool leaves
   out its own fates), times the number line (which carries the announcements, power
   answers and wrong guesses: each is a deterministic function of the kept value, so
   the product is exact). It then predicts, passes or uses a power by the value of the
   race, as :class:`~agents.bayes.BayesGroup` does: a question power, Sorrows or Scions
   when the expected value after the answer beats not using it by ``power_cost``.
4. **Value of the race.** ``V(score, doom)`` (:func:`race_win`) is the chance to win if
   every later turn that moves the score or the doom scores with probability
   ``accuracy`` and otherwise costs ``fail_doom`` doom (0.95 and 2 by default: failed
   turns are mostly fades). A correct guess is worth ``V(score + 1, doom)`` (+1 with
   Sands), a wrong one ``V(score, doom + 1 + fade doom)``, a pass
   ``V(score, doom + fade doom)`` plus ``info_value`` (the carried fate's information is
   kept for later); a faded power used costs ``power_cost``.

Memory. Each player keeps, per seat, the likelihood of that seat's carried fate from
the convention of its last turn; it is computed from the public observation and the
public convention only, so the player and its group agree on the next convention, and
nothing a player did not see enters its decisions. A shared cache holds conventions
keyed by their public inputs only (a pure function: it saves time, not information).

Not used yet: Sparrows, Shadows and Skies (the player never uses a power before its
play), reveals and Sails. The Feast's second play and The Thief's choice follow the
heuristic player (with The Thief in play the player uses no power after the play), and
a turn the convention does not cover (a Feast play) falls back to the literal posterior.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from agents.base import Policy
from agents.bayes import BayesGroup, _pool_at_start, race_value
from agents.heuristic import HeuristicPlayer
from agents.knowledge import doom_of_fades, literal_posterior, mask_to_array
from shipwreck_env.actions import ACTIONS, PASS, power_action
from shipwreck_env.cards import CARD_INDEX, CARDS
from shipwreck_env.public_record import (
    fade_doom,
    fading_after,
    hand_plays,
    kept_rows,
    onlooker_pool,
    play_outcome,
)
from shipwreck_env.state import State
from shipwreck_env.view import AgentView, TurnStart

__all__ = ["Convention", "ConventionPolicy", "compute_convention"]

_EPS = 1e-12
THIEF = CARD_INDEX["thief"]
FALL = CARD_INDEX["fall"]
SHELLS = power_action("shells")
SINNERS = [[power_action("sinners", slot, v) if v else 0 for v in range(8)] for slot in range(4)]


@cache
def race_win(score: int, doom: int, accuracy: float, fail_doom: int = 1) -> float:
    """P(win) if every later turn that changes the score or the doom scores with
    probability ``accuracy`` and otherwise costs ``fail_doom`` doom: a race of
    ``7 - score`` successes against the doom budget. ``accuracy <= 0`` falls back to
    :func:`agents.bayes.race_value`."""
    if accuracy <= 0:
        return race_value(score, doom)
    if doom >= 7:
        return 0.0
    if score >= 7:
        return 1.0
    return accuracy * race_win(score + 1, doom, accuracy, fail_doom) + (1 - accuracy) * race_win(
        score, doom + fail_doom, accuracy, fail_doom
    )


@dataclass(frozen=True)
class Convention:
    """One turn's public code.

    Attributes:
        hands: every hand the active seat may hold: ``(carried, fresh)`` when it carried
            a fate, else ``(low, high)``.
        weights: public prior of each hand (sum 1).
        choice: the first-play action number the convention assigns to each hand.
        power: the after-play power action (Shells, Sinners) of each hand's line, or 0.
        kept: the kept value of each hand under its choice.
        value: the summed team value of the code.
    """

    hands: tuple[tuple[int, int], ...]
    weights: tuple[float, ...]
    choice: tuple[int, ...]
    power: tuple[int, ...]
    kept: tuple[int, ...]
    value: float

    def index(self, hand: tuple[int, int]) -> int:
        """Position of ``hand`` in :attr:`hands` (-1 if absent)."""
        try:
            return self.hands.index(hand)
        except ValueError:
            return -1


def public_hands(
    start: TurnStart,
    seat: int,
    carried: bool,
    likelihood: tuple[float, ...] | None,
    pool: tuple[int, ...] | list[int],
) -> list[tuple[tuple[int, int], float]]:
    """Hands of the active ``seat`` with their weights (unnormalised) for a player whose
    unseen copies at the start of the turn are ``pool``; a carried fate's prior is
    ``likelihood x pool x number line``."""
    out = []
    if carried:
        line = start.lines[seat]
        like = likelihood if likelihood is not None else (1.0,) * 7
        for c in range(1, 8):
            pc = like[c - 1] * pool[c - 1] * (line >> (c - 1) & 1)
            if pc <= 0:
                continue
            for d in range(1, 8):
                nd = pool[d - 1] - (d == c)
                if nd > 0:
                    out.append(((c, d), pc * nd))
        if not out and likelihood is not None:  # the memory contradicts the line: forget it
            return public_hands(start, seat, carried, None, pool)
        return out
    for a in range(1, 8):
        for b in range(a, 8):
            n = pool[a - 1] * (pool[b - 1] - (a == b))
            if n > 0:
                out.append(((a, b), float(n if a == b else 2 * n)))
    return out


_QUESTION_SETS = {
    "secrets": (1, 2, 3),
    "songs": (1, 4, 7),
    "spires": (3, 4, 5),
    "swords": (5, 6, 7),
    "scythes": (2, 6),
}


def group_questions(start: TurnStart, played: int, visible: tuple[int, ...]) -> list[tuple]:
    """The yes-sets (kept-value indexes ``v - 1``) of every question power the group may
    use after ``played`` on the turn-start table, plus ``("sorrows",)`` if Sorrows is
    available. Scythes needs another power to pay with."""
    powers = [CARDS[c].power for c in start.faded]
    out: list[tuple] = []
    seen: set[tuple] = set()

    def add(values) -> None:
        yes = tuple(v - 1 for v in range(1, 8) if v in values)
        if 0 < len(yes) < 7 and yes not in seen:
            seen.add(yes)
            out.append(yes)

    for power in dict.fromkeys(powers):
        if power == "saints":
            for x in range(1, 7):
                add(range(x + 1, 8))
        elif power in _QUESTION_SETS and (power != "scythes" or len(powers) > 1):
            add(_QUESTION_SETS[power])
        elif power == "shackles":
            add(range(played - 2, played + 3))
        elif power == "storms":
            for v in sorted(set(visible)):
                add((v,))
    if "sorrows" in powers:
        out.append(("sorrows",))
    return out


class _Outcomes:
    """The race values of one observation: pass, right, wrong (per unit of mass), and the
    group's question powers there."""

    __slots__ = ("cost", "pass_", "questions", "right", "solo", "sorrows", "spent", "wrong")

    def __init__(
        self,
        score: int,
        doom: int,
        fades: int,
        amplified: bool,
        info: float,
        race: tuple[float, int],
        questions: list[tuple],
        cost: float,
        spent: bool = False,
    ) -> None:
        self.pass_ = race_win(score, doom + fades, *race) + info
        self.right = race_win(score + 1 + amplified, doom, *race)
        self.wrong = race_win(score, doom + 1 + fades, *race)
        self.questions = [
            (q, tuple(i for i in range(7) if i not in q)) for q in questions if q != ("sorrows",)
        ]
        self.sorrows = ("sorrows",) in questions
        self.cost = cost
        self.spent = spent  # the player used a faded power: it costs, and no group power
        self.solo: list[float] | None = None

    def _value(self, total: float, top: float) -> float:
        """Best of naming (``top`` mass right) and passing, for mass ``total``."""
        predict = top * (self.right - self.wrong) + total * self.wrong
        passing = total * self.pass_
        return predict if predict > passing else passing

    def _plain(self, m: list[float], guesses: int = 1) -> float:
        top = max(m) if guesses == 1 else sum(sorted(m)[-guesses:])
        return self._value(sum(m), top)

    def _best(self, m: list[float]) -> tuple[float, object]:
        total = sum(m)
        best, how = self._value(total, max(m)), None
        if not (self.questions or self.sorrows) or total <= 0:
            return best, how
        price = self.cost * total
        if best >= total * max(self.right, self.pass_) - price:
            return best, how  # no answer can do better than knowing the fate
        for yes, no in self.questions:
            part_yes = [m[i] for i in yes]
            part_no = [m[i] for i in no]
            value = (
                self._value(sum(part_yes), max(part_yes))
                + self._value(sum(part_no), max(part_no))
                - price
            )
            if value > best + _EPS:
                best, how = value, yes
        if self.sorrows:
            value = self._plain(m, 2) - price
            if value > best + _EPS:
                best, how = value, "sorrows"
        return best, how

    def group(self, m: list[float]) -> float:
        """Value of the group's best reply to mass ``m`` (by kept value)."""
        if self.spent:
            return self._plain(m) - self.cost * sum(m)
        return self._best(m)[0]

    def _plain_reply(self, m: list[float], kept: int, guesses: int = 1) -> float:
        total = sum(m)
        if guesses == 1:
            top = max(m)
            named = (m.index(top),)
        else:
            named = tuple(sorted(range(7), key=lambda i: -m[i])[:guesses])
            top = sum(m[i] for i in named)
        if top * (self.right - self.wrong) + total * self.wrong > total * self.pass_:
            return self.right if kept - 1 in named else self.wrong
        return self.pass_

    def _reply_vector(self, m: list[float], guesses: int, out: list[float], ks) -> None:
        """Write into ``out[k]`` (k in ``ks``) what kept value k + 1 gets from the plain
        reply (pass, or name the ``guesses`` likeliest values) to ``m``."""
        total = sum(m)
        if guesses == 1:
            top = max(m)
            named: tuple[int, ...] = (m.index(top),)
        else:
            named = tuple(sorted(range(7), key=lambda i: -m[i])[:guesses])
            top = sum(m[i] for i in named)
        if top * (self.right - self.wrong) + total * self.wrong > total * self.pass_:
            for k in ks:
                out[k] = self.right if k in named else self.wrong
        else:
            for k in ks:
                out[k] = self.pass_

    def payoffs(self, m: list[float]) -> list[float]:
        """``reply_value(m, k)`` for k = 1..7 (an empty ``m`` is read as each hand alone)."""
        if sum(m) <= 0:
            if self.solo is None:  # the group would know the kept fate: no power helps
                sure = self.right if self.right > self.pass_ else self.pass_
                self.solo = [sure - (self.cost if self.spent else 0.0)] * 7
            return self.solo
        out = [0.0] * 7
        how = None if self.spent else self._best(m)[1]
        if how is None:
            self._reply_vector(m, 1, out, range(7))
            if not self.spent:
                return out
        elif how == "sorrows":
            self._reply_vector(m, 2, out, range(7))
        else:
            no = [i for i in range(7) if i not in how]
            self._reply_vector([m[i] if i in how else 0.0 for i in range(7)], 1, out, how)
            self._reply_vector([0.0 if i in how else m[i] for i in range(7)], 1, out, no)
        return [v - self.cost for v in out]

    def reply_value(self, m: list[float], kept: int) -> float:
        """What a hand keeping ``kept`` gets from the group's best reply to ``m``."""
        if self.spent:
            return self._plain_reply(m, kept) - self.cost
        how = self._best(m)[1]
        if how is None:
            return self._plain_reply(m, kept)
        if how == "sorrows":
            return self._plain_reply(m, kept, 2) - self.cost
        answer = (kept - 1) in how
        part = [m[i] if ((i in how) == answer) else 0.0 for i in range(7)]
        return self._plain_reply(part, kept) - self.cost


_CACHE: dict[tuple, Convention] = {}


def compute_convention(
    config,
    start: TurnStart,
    seat: int,
    carried: bool,
    likelihood: tuple[float, ...] | None,
    info_value: float = 0.01,
    accuracy: float = 0.95,
    fail_doom: int = 2,
    power_cost: float = 0.005,
    plan: bool = True,
    player_powers: bool = True,
    sweeps: int = 20,
) -> Convention:
    """The convention of a turn from its public inputs (see the module docstring).

    Args:
        config: the game's rules.
        start: the public table after the active ``seat`` drew.
        carried: the seat began its turn holding a fate.
        likelihood: what the seat's last convention said about the carried fate (by value),
            ``None`` for nothing.
        info_value: bonus of a pass (the carried fate's information is kept for later).
        accuracy, fail_doom: the value of the race (see :func:`race_win`).
        power_cost: what spending a faded power costs (win-chance units).
        plan: plan the group's question powers and Sorrows into the code.
        player_powers: let lines of play use Shells and Sinners after the play.
        sweeps: at most this many rounds of best responses, then of coordinate ascent.
    """
    key = (
        config,
        start.raw,
        seat,
        carried,
        likelihood,
        info_value,
        accuracy,
        fail_doom,
        power_cost,
        plan,
        player_powers,
        sweeps,
    )
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    pool = onlooker_pool(start)
    weighted = public_hands(start, seat, carried, likelihood, pool)
    total = sum(w for _, w in weighted) or 1.0
    hands = [h for h, _ in weighted]
    weights = [w / total for _, w in weighted]
    rows = kept_rows(start)
    visible = tuple(
        v for card, fates in zip(start.slots, start.table, strict=True) if card >= 0 for v in fates
    )
    feast = [slot for slot, card in enumerate(start.slots) if card >= 0 and _is_feast(card)]

    faded = {CARDS[c].power for c in start.faded}
    own_powers = player_powers and THIEF not in start.slots
    shells = own_powers and "shells" in faded
    sinners = own_powers and "sinners" in faded
    fall_slot = start.slots.index(FALL) if FALL in start.slots else -1

    obs_index: dict[tuple, int] = {}
    outcomes: list[_Outcomes] = []
    asked: dict[int, list[tuple]] = {}  # the group's questions, by the value played

    def observation(out, power: int, answer, removed=None) -> int:
        key = (out, power, answer)
        o = obs_index.get(key)
        if o is None:
            o = obs_index[key] = len(outcomes)
            fades, amplified = fade_doom(start, fading_after(start, out, removed))
            questions = []
            if plan and not power:
                questions = asked.get(out.value)
                if questions is None:
                    questions = asked[out.value] = group_questions(
                        start, out.value, (*visible, out.value)
                    )
            outcomes.append(
                _Outcomes(
                    start.score,
                    start.doom,
                    fades,
                    amplified,
                    info_value,
                    (accuracy, fail_doom),
                    questions,
                    power_cost,
                    spent=bool(power),
                )
            )
        return o

    # per hand: ((play action, after-play power action or 0), observation, kept)
    options: list[list[tuple[tuple[int, int], int, int]]] = []
    for hand in hands:
        plays = [(a, ACTIONS[a].value, ACTIONS[a].slot) for a in hand_plays(start, hand, rows)]
        plays = [p for p in plays if p[2] not in feast] or plays
        hand_opts = []
        for action, value, target in plays:
            kept = hand[1] if hand[0] == value else hand[0]
            out = play_outcome(start, value, target, kept)
            hand_opts.append(((action, 0), observation(out, 0, None), kept))
            if shells:
                answer = carried and value == hand[0] and hand[1] != value
                hand_opts.append(((action, SHELLS), observation(out, SHELLS, answer), kept))
            if sinners:
                for slot in range(4):
                    if slot == fall_slot or start.slots[slot] < 0:
                        continue
                    fates = start.table[slot] + ((value,) if out.landed == slot else ())
                    for v in sorted(set(fates)):
                        if v < kept:
                            power = SINNERS[slot][v]
                            o = observation(out, power, None, (slot, v))
                            hand_opts.append(((action, power), o, kept))
        options.append(hand_opts)

    # greedy start: each observation read as if every hand able to make it did
    literal = [[0.0] * 7 for _ in outcomes]
    for w, opts in zip(weights, options, strict=True):
        for _, o, kept in opts:
            literal[o][kept - 1] += w
    literal_payoff = [outcomes[o].payoffs(literal[o]) for o in range(len(outcomes))]
    pick = []
    for opts in options:
        best, best_value = 0, -np.inf
        for j, (_, o, kept) in enumerate(opts):
            v = literal_payoff[o][kept - 1]
            if v > best_value + _EPS:
                best, best_value = j, v
        pick.append(best)
    mass = [[0.0] * 7 for _ in outcomes]
    for w, opts, j in zip(weights, options, pick, strict=True):
        _, o, kept = opts[j]
        mass[o][kept - 1] += w

    def moved(m: list[float], kept: int, delta: float) -> list[float]:
        m = m[:]
        m[kept - 1] += delta
        return m

    # best responses: each hand takes the line whose current reading serves it best (the
    # group's reply to each observation fixed; an unused one is read as that hand alone)
    payoff = [outcomes[o].payoffs(mass[o]) for o in range(len(outcomes))]
    for _ in range(sweeps):
        changed = False
        for i, opts in enumerate(options):
            if len(opts) < 2:
                continue
            _, o1, k1 = opts[pick[i]]
            best, best_value = pick[i], payoff[o1][k1 - 1]
            for j, (_, o, kept) in enumerate(opts):
                if payoff[o][kept - 1] > best_value + _EPS:
                    best, best_value = j, payoff[o][kept - 1]
            if best != pick[i]:
                w = weights[i]
                _, o2, k2 = opts[best]
                mass[o1] = moved(mass[o1], k1, -w)
                mass[o2] = moved(mass[o2], k2, w)
                payoff[o1] = outcomes[o1].payoffs(mass[o1])
                payoff[o2] = outcomes[o2].payoffs(mass[o2])
                pick[i] = best
                changed = True
        if not changed:
            break

    # coordinate ascent on the summed value
    group_value = [outcomes[o].group(mass[o]) for o in range(len(outcomes))]
    for _ in range(sweeps):
        changed = False
        for i, opts in enumerate(options):
            if len(opts) < 2:
                continue
            w = weights[i]
            _, o1, k1 = opts[pick[i]]
            without = moved(mass[o1], k1, -w)
            loss = outcomes[o1].group(without) - group_value[o1]
            best, best_gain, best_new = pick[i], _EPS, None
            for j, (_, o, kept) in enumerate(opts):
                if j == pick[i] or o == o1:
                    continue
                new = outcomes[o].group(moved(mass[o], kept, w))
                gain = loss + new - group_value[o]
                if gain > best_gain:
                    best, best_gain, best_new = j, gain, new
            if best_new is not None:
                _, o2, k2 = opts[best]
                mass[o1] = without
                group_value[o1] = outcomes[o1].group(without)
                mass[o2] = moved(mass[o2], k2, w)
                group_value[o2] = best_new
                pick[i] = best
                changed = True
        if not changed:
            break

    convention = Convention(
        hands=tuple(hands),
        weights=tuple(weights),
        choice=tuple(opts[j][0][0] for opts, j in zip(options, pick, strict=True)),
        power=tuple(opts[j][0][1] for opts, j in zip(options, pick, strict=True)),
        kept=tuple(opts[j][2] for opts, j in zip(options, pick, strict=True)),
        value=float(sum(group_value)),
    )
    if len(_CACHE) > 512:
        _CACHE.clear()
    _CACHE[key] = convention
    return convention


def _is_feast(card: int) -> bool:
    return CARDS[card].id == "feast"


class ConventionPolicy(BayesGroup):
    """The convention team, for both roles (see the module docstring).

    Args:
        info_value: value of passing to learn more next turn (in win-chance units).
        power_cost: minimum gain for the group to spend a faded power.
    """

    name = "convention"

    def __init__(
        self,
        info_value: float = 0.01,
        power_cost: float = 0.005,
        accuracy: float = 0.95,
        fail_doom: int = 2,
        plan: bool = True,
        player_powers: bool = True,
    ) -> None:
        super().__init__(model=HeuristicPlayer(), info_value=info_value, power_cost=power_cost)
        self.accuracy = accuracy
        self.fail_doom = fail_doom
        self.plan = plan
        self.player_powers = player_powers
        self._carry: dict[tuple[int, int, int], tuple[float, ...]] = {}
        self._lines: dict[tuple[int, int], tuple[int, int]] = {}

    def reset(self) -> None:
        super().reset()
        self._carry.clear()
        self._lines.clear()

    # --- the public code of this turn ----------------------------------------------------

    def _memory(self, view: AgentView) -> tuple[float, ...] | None:
        return self._carry.get((view.player, view.active_seat, view.turn - len(view.holding)))

    def convention(self, view: AgentView) -> Convention:
        """This turn's convention, from the view's public facts and this player's memory."""
        return compute_convention(
            view.config,
            view.turn_start,
            view.active_seat,
            view.carried_into_turn,
            self._memory(view) if view.carried_into_turn else None,
            self.info_value,
            self.accuracy,
            self.fail_doom,
            self.power_cost,
            self.plan,
            self.player_powers,
        )

    def _remember(self, view: AgentView, convention: Convention, action: int, power: int) -> None:
        """Store the public likelihood of the kept fate after the line of play (first play
        ``action``, after-play ``power`` or 0)."""
        pool = onlooker_pool(view.turn_start)
        m = [0.0] * 7
        for w, chosen, used, kept in zip(
            convention.weights, convention.choice, convention.power, convention.kept, strict=True
        ):
            if chosen == action and used == power:
                m[kept - 1] += w
        like = tuple(m[v] / pool[v] if pool[v] > 0 else 0.0 for v in range(7))
        self._carry[(view.player, view.active_seat, view.turn)] = like

    @staticmethod
    def _covered(view: AgentView) -> bool:
        """Does the convention describe this turn so far (first play, no power before)?"""
        if view.feast_done or not view.turn_actions:
            return False
        return ACTIONS[view.turn_actions[0]].kind == "play"

    @staticmethod
    def _observed_power(view: AgentView) -> int:
        """The after-play power (Shells, Sinners) used this turn, or 0."""
        for action in view.turn_actions[1:]:
            if ACTIONS[action].power in ("shells", "sinners"):
                return action
        return 0

    # --- acting ------------------------------------------------------------------------

    def act(self, observation, mask, view: AgentView, rng, state: State | None = None) -> int:
        legal = view.legal or tuple(int(a) for a in np.flatnonzero(mask))
        if view.decider == view.active_player:
            return self._play(observation, mask, view, rng, legal)
        if view.phase == "cost":
            return super().act(observation, mask, view, rng)
        if view.phase in ("group", "vote"):
            return self._group(view, legal)
        return PASS if PASS in legal else int(legal[0])

    def _play(self, observation, mask, view: AgentView, rng, legal: tuple[int, ...]) -> int:
        if view.phase == "play" and not view.plays and not view.power_used:
            convention = self.convention(view)
            hand = view.my_hands[view.my_seats.index(view.active_seat)]
            if view.carried_into_turn:
                c = view.my_carried or hand[0]
                key = (c, hand[1] if hand[0] == c else hand[0])
            else:
                key = (min(hand), max(hand))
            i = convention.index(key)
            if i >= 0 and convention.choice[i] in legal:
                line = (convention.choice[i], convention.power[i])
                self._remember(view, convention, *line)
                self._lines[(view.player, view.turn)] = line
                return line[0]
        if view.phase == "after_play":
            line = self._lines.get((view.player, view.turn))
            if line is not None and line[1] and line[1] in legal and self._covered(view):
                return line[1]
        if view.phase in ("play", "steal"):
            return self.model.act(observation, mask, view, rng)
        return PASS if PASS in legal else int(legal[0])

    def _predict_value(
        self, view: AgentView, posterior: np.ndarray, guesses: int, fades: list[int]
    ) -> tuple[float, int]:
        """(value of the best choice, value guessed or 0 for pass), by :func:`race_win`."""
        doom_fades = doom_of_fades(view, fades)
        amplified = any("sands" in view.attached[s] for s in fades)
        race = (self.accuracy, self.fail_doom)
        pass_value = race_win(view.score, view.doom + doom_fades, *race) + self.info_value
        if guesses <= 0 or posterior.sum() <= 0:
            return pass_value, 0
        order = np.argsort(-posterior, kind="stable")
        p_right = float(posterior[order[:guesses]].sum())
        right = race_win(view.score + 1 + amplified, view.doom, *race)
        wrong = race_win(view.score, view.doom + 1 + doom_fades, *race)
        predict_value = p_right * right + (1 - p_right) * wrong
        if predict_value > pass_value:
            return predict_value, int(order[0]) + 1
        return pass_value, 0

    # --- the group's reading -------------------------------------------------------------

    def posterior(self, view: AgentView) -> np.ndarray:
        """P(active seat's kept fate = v + 1) under the convention, from this player's
        view (its own pool), restricted to the number line."""
        seat = view.active_seat
        line = mask_to_array(view.lines[seat])
        if view.holding[seat] != 1:
            return np.zeros(7)
        m = np.zeros(7)
        if self._covered(view):
            convention = self.convention(view)
            action, power = view.turn_actions[0], self._observed_power(view)
            self._remember(view, convention, action, power)
            pool = _pool_at_start(view)
            like = self._memory(view) if view.carried_into_turn else None
            private = dict(public_hands(view.turn_start, seat, view.carried_into_turn, like, pool))
            for hand, chosen, used, kept in zip(
                convention.hands,
                convention.choice,
                convention.power,
                convention.kept,
                strict=True,
            ):
                if chosen == action and used == power:
                    m[kept - 1] += private.get(hand, 0.0)
        posterior = m * line
        if posterior.sum() <= 0:
            posterior = literal_posterior(view.lines[seat], view.unseen)
        return posterior / posterior.sum()


def make_convention_policy() -> Policy:
    """The registry's constructor."""
    return ConventionPolicy()
