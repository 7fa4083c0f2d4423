"""The search behind the convention team (:mod:`shipwreck_agents.convention.team`): one turn's public
code, from public inputs only.

:func:`compute_convention` lists the hands the active seat may hold (:func:`public_hands`),
their lines of play and the observations those show (``_Lines``), and picks one line per
hand (``_Search``: greedy start, best responses, coordinate ascent on the summed value);
``_Outcomes`` holds an observation's race values and the group's best reply there
(pass, name, a question power or Sorrows). :func:`race_win` is the value of the race.
The method is explained in :mod:`shipwreck_agents.convention.team`. Nothing here reads a hidden fate:
every input is public, so every teammate computes the same code.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache
from operator import itemgetter

import numpy as np

from shipwreck_agents.convention.ahead import (
    ahead_value,
    forced_turn,
    table_left,
)
from shipwreck_agents.convention.settings import DEFAULT, ConventionSettings
from shipwreck_agents.scripted.bayes import race_value
from shipwreck_env.actions import ACTIONS, power_action
from shipwreck_env.arcana import fades_by_text_after
from shipwreck_env.cards import CARD_INDEX, CARDS
from shipwreck_env.fading import fades_by_hours
from shipwreck_env.number_lines import table_rows
from shipwreck_env.plays import CHALICE, HOURS_TARGET, STEAL_ACTION, first_plays
from shipwreck_env.powers import sinners_actions
from shipwreck_env.public_record import (
    PlayOutcome,
    fade_doom,
    fading_after,
    onlooker_pool,
    play_outcome,
)
from shipwreck_env.questions import QUESTION_SETS, yes_values
from shipwreck_env.view import TurnStart

__all__ = [
    "Convention",
    "after_feast",
    "compute_convention",
    "group_questions",
    "pre_play_tables",
    "public_hands",
    "race_win",
]

_EPS = 1e-12
THIEF = CARD_INDEX["thief"]
FALL = CARD_INDEX["fall"]
FEAST = CARD_INDEX["feast"]
SHELLS = power_action("shells")
SHADOWS = power_action("shadows")
EVERY_VALUE = 0b1111111
RESTART_SEED = 20_26
"""The seed of the convention's random restarts: part of the convention, like its rules."""
PLAYS = {a: (a, spec.value, spec.slot) for a, spec in enumerate(ACTIONS) if spec.kind == "play"}
"""(action, value played, target) of every first-play action."""


@cache
def race_win(score: int, doom: int, accuracy: float, fail_doom: int = 1) -> float:
    """P(win) if every later turn that changes the score or the doom scores with
    probability ``accuracy`` and otherwise costs ``fail_doom`` doom: a race of
    ``7 - score`` successes against the doom budget. ``accuracy <= 0`` falls back to
    :func:`shipwreck_agents.scripted.bayes.race_value`."""
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
        before: the power action each hand's line uses before its play (Sparrows or
            Skies, see :func:`pre_play_tables`), or 0.
        choice: the first-play action number the convention assigns to each hand.
        power: the after-play power action (Shells, Sinners) of each hand's line, or 0.
        steal: The Thief's steal action of each hand's line, or 0 (nothing to steal).
        kept: the kept value of each hand under its choice.
        payoff: what each hand's line gets from the group's best reply to it (race value
            of this turn alone, without the look-ahead).
        value: the summed team value of the code.
    """

    hands: tuple[tuple[int, int], ...]
    weights: tuple[float, ...]
    before: tuple[int, ...]
    choice: tuple[int, ...]
    power: tuple[int, ...]
    steal: tuple[int, ...]
    kept: tuple[int, ...]
    payoff: tuple[float, ...]
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


def group_questions(start: TurnStart, played: int, visible: tuple[int, ...]) -> list[tuple]:
    """The yes-sets (kept-value indexes ``v - 1``) of every question power the group may
    use after ``played`` on the turn-start table, plus ``("sorrows",)`` if Sorrows is
    available. Scythes needs another power to pay with. The list returned is shared:
    read it, never change it."""
    # the visible fates matter only to Storms' questions
    key = (start.faded, played, visible if _STORMS & set(start.faded) else None)
    hit = _QUESTIONS.get(key)
    if hit is None:
        if len(_QUESTIONS) > 4096:
            _QUESTIONS.clear()
        hit = _QUESTIONS[key] = _group_questions(start.faded, played, visible)
    return hit


_STORMS = {c for c, card in enumerate(CARDS) if card.power == "storms"}
_QUESTIONS: dict[tuple, list[tuple]] = {}  # group_questions by its inputs (a pure function)


def _group_questions(faded: tuple[int, ...], played: int, visible: tuple[int, ...]) -> list[tuple]:
    powers = [CARDS[c].power for c in faded]
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
                add(yes_values("saints", x))
        elif power in QUESTION_SETS and (power != "scythes" or len(powers) > 1):
            add(yes_values(power, None))
        elif power == "shackles":
            add(yes_values("shackles", played))
        elif power == "storms":
            for v in sorted(set(visible)):
                add(yes_values("storms", v))
    if "sorrows" in powers:
        out.append(("sorrows",))
    return out


def _race_ahead(
    score: int, doom: int, race: tuple[float, int], ahead: tuple[float, float]
) -> float:
    """:func:`race_win` after a turn whose table forces the next seat's hand with
    probability ``ahead[0]``; such a forced turn is read right with probability
    ``ahead[1]`` (:func:`~shipwreck_agents.convention.ahead.ahead_value`)."""
    now = race_win(score, doom, *race)
    forced, accuracy = ahead
    if forced <= 0 or score >= 7 or doom >= 7:
        return now
    right = race_win(score + 1, doom, *race)
    wrong = race_win(score, doom + 3, *race)  # a wrong guess and a fade
    return ahead_value(now, right, wrong, forced, accuracy)


def _getter(indexes: tuple[int, ...]):
    """A function taking the items at ``indexes`` (in that order) from a list, as a tuple."""
    if len(indexes) == 1:
        i = indexes[0]
        return lambda m: (m[i],)
    return itemgetter(*indexes)


_PREPARED: dict[tuple, list[tuple]] = {}


def _prepared(questions: list[tuple]) -> list[tuple]:
    """(yes-set, its getter, the no-set's getter) of each question but Sorrows, shared
    by every observation asked the same questions."""
    key = tuple(questions)
    hit = _PREPARED.get(key)
    if hit is None:
        if len(_PREPARED) > 4096:
            _PREPARED.clear()
        hit = _PREPARED[key] = [
            (q, _getter(q), _getter(tuple(i for i in range(7) if i not in q)))
            for q in questions
            if q != ("sorrows",)
        ]
    return hit


class _Outcomes:
    """The race values of one observation: pass, right, wrong (per unit of mass), and the
    group's question powers there."""

    __slots__ = (
        "ahead",
        "cost",
        "fast",
        "memo",
        "pass_",
        "questions",
        "right",
        "solo",
        "sorrows",
        "spent",
        "tie",
        "wrong",
    )

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
        ahead: tuple[float, float] = (0.0, 0.0),
        tie: float = 0.0,
    ) -> None:
        # the group's reply is chosen by this turn alone, as the group plays
        self.pass_ = race_win(score, doom + fades, *race) + info
        self.right = race_win(score + 1 + amplified, doom, *race)
        self.wrong = race_win(score, doom + 1 + fades, *race)
        # (right, wrong, pass) with the look-ahead: what the reply is worth to the team
        self.ahead: tuple[float, float, float] | None = None
        if ahead[0] > 0:
            self.ahead = (
                _race_ahead(score + 1 + amplified, doom, race, ahead),
                _race_ahead(score, doom + 1 + fades, race, ahead),
                _race_ahead(score, doom + fades, race, ahead) + info,
            )
        self.questions = _prepared(questions)
        self.sorrows = ("sorrows",) in questions
        self.cost = cost
        self.spent = spent  # the player used a faded power: it costs, and no group power
        self.tie = tie  # a price per unit of mass on the table this line leaves
        self.fast = self.ahead is None and not spent and not tie  # group() is best()
        self.solo: list[float] | None = None
        # group() and payoffs() are pure functions of the mass; the search asks for the
        # same masses again and again (every sweep re-reads the unchanged observations)
        self.memo: dict[tuple, object] = {}

    def _value(self, total: float, top: float) -> float:
        """Best of naming (``top`` mass right) and passing, for mass ``total``."""
        predict = top * (self.right - self.wrong) + total * self.wrong
        passing = total * self.pass_
        return predict if predict > passing else passing

    def _plain(self, m: list[float], guesses: int = 1) -> float:
        top = max(m) if guesses == 1 else sum(sorted(m)[-guesses:])
        return self._value(sum(m), top)

    def _best(self, m: list[float]) -> tuple[float, object]:
        # _value inlined (the hot path of the search); the same arithmetic, in the same order
        right, wrong, pass_ = self.right, self.wrong, self.pass_
        gap = right - wrong
        total = sum(m)
        predict = max(m) * gap + total * wrong
        passing = total * pass_
        best, how = predict if predict > passing else passing, None
        if not (self.questions or self.sorrows) or total <= 0:
            return best, how
        price = self.cost * total
        if best >= total * max(right, pass_) - price:
            return best, how  # no answer can do better than knowing the fate
        for yes, get_yes, get_no in self.questions:
            part = get_yes(m)
            mass = sum(part)
            predict = max(part) * gap + mass * wrong
            passing = mass * pass_
            value = predict if predict > passing else passing
            part = get_no(m)
            mass = sum(part)
            predict = max(part) * gap + mass * wrong
            passing = mass * pass_
            value = value + (predict if predict > passing else passing) - price
            if value > best + _EPS:
                best, how = value, yes
        if self.sorrows:
            value = self._plain(m, 2) - price
            if value > best + _EPS:
                best, how = value, "sorrows"
        return best, how

    def group(self, m: list[float]) -> float:
        """Value of the group's best reply to mass ``m`` (by kept value), with the
        look-ahead if there is one (the reply itself is chosen by this turn alone)."""
        if self.fast:
            return self.best(m)[0]
        key = (None, *m)
        hit = self.memo.get(key)
        if hit is None:
            if self.ahead is not None:
                hit = sum(w * v for w, v in zip(m, self.payoffs(m), strict=True))
            elif self.spent:
                hit = self._plain(m) - (self.cost + self.tie) * sum(m)
            else:
                hit = self.best(m)[0] - self.tie * sum(m)
            self.memo[key] = hit
        return hit  # type: ignore[return-value]

    def best(self, m: list[float]) -> tuple[float, object]:
        """The group's best reply to mass ``m`` by this turn alone: (its value, ``None``
        for a plain pass or name, else the question's yes-set or ``"sorrows"``)."""
        key = tuple(m)
        hit = self.memo.get(key)
        if hit is None:
            hit = self.memo[key] = self._best(m)
        return hit  # type: ignore[return-value]

    def _reply_vector(
        self, m: list[float], guesses: int, out: list[float], ks, values: tuple | None = None
    ) -> None:
        """Write into ``out[k]`` (k in ``ks``) what kept value k + 1 gets from the plain
        reply (pass, or name the ``guesses`` likeliest values) to ``m``, valued by
        ``values`` = (right, wrong, pass) (default: this object's race values)."""
        right, wrong, pass_ = values or (self.right, self.wrong, self.pass_)
        total = sum(m)
        if guesses == 1:
            top = max(m)
            named: tuple[int, ...] = (m.index(top),)
        else:
            named = tuple(sorted(range(7), key=lambda i: -m[i])[:guesses])
            top = sum(m[i] for i in named)
        if top * (self.right - self.wrong) + total * self.wrong > total * self.pass_:
            for k in ks:
                out[k] = right if k in named else wrong
        else:
            for k in ks:
                out[k] = pass_

    def payoffs(self, m: list[float], now: bool = False) -> list[float]:
        """What a hand keeping k = 1..7 gets from the group's best reply to mass ``m``
        (index k - 1); an empty ``m`` is read as that hand alone. The reply is chosen
        by this turn alone and valued with the look-ahead, unless ``now``. The list
        returned is shared: read it, never change it."""
        key = (now, *m)
        hit = self.memo.get(key)
        if hit is None:
            hit = self._payoffs(m, now)
            if self.tie and not now:
                hit = [v - self.tie for v in hit]
            self.memo[key] = hit
        return hit  # type: ignore[return-value]

    def _payoffs(self, m: list[float], now: bool) -> list[float]:
        values = None if now else self.ahead
        if sum(m) <= 0:
            if values is not None:
                right, _, pass_ = values
                sure = right if self.right > self.pass_ else pass_
                return [sure - (self.cost if self.spent else 0.0)] * 7
            if self.solo is None:  # the group would know the kept fate: no power helps
                sure = self.right if self.right > self.pass_ else self.pass_
                self.solo = [sure - (self.cost if self.spent else 0.0)] * 7
            return self.solo
        how = None if self.spent else self.best(m)[1]
        if how is None and not self.spent:
            # _reply_vector(m, 1, out, range(7), values) written out: the commonest case
            right, wrong, pass_ = values or (self.right, self.wrong, self.pass_)
            total = sum(m)
            top = max(m)
            if top * (self.right - self.wrong) + total * self.wrong > total * self.pass_:
                out = [wrong] * 7
                out[m.index(top)] = right
                return out
            return [pass_] * 7
        out = [0.0] * 7
        if how is None:
            self._reply_vector(m, 1, out, range(7), values)
        elif how == "sorrows":
            self._reply_vector(m, 2, out, range(7), values)
        else:
            no = [i for i in range(7) if i not in how]
            self._reply_vector([m[i] if i in how else 0.0 for i in range(7)], 1, out, how, values)
            self._reply_vector([0.0 if i in how else m[i] for i in range(7)], 1, out, no, values)
        return [v - self.cost for v in out]


_CACHE: dict[tuple, Convention] = {}
_FORCED: dict[tuple, float] = {}  # the look-ahead's forced share, by the table left


def clear_cache() -> None:
    """Forget every cached convention code (and look-ahead share), so the next turn pays
    for its own code as a cold start would; results do not change, only time."""
    _CACHE.clear()
    _FORCED.clear()


def after_feast(start: TurnStart, seat: int, value: int, landed: int) -> TurnStart:
    """The public table of The Feast's second play: the turn-start table with the first
    play's fate ``value`` in front of slot ``landed``. The ``seat``'s number line is left
    open: what the first play told about the fate it kept is the likelihood the second
    play's convention starts from (:func:`compute_convention` with ``second_play``)."""
    table = tuple(
        (*fates, value) if slot == landed else fates for slot, fates in enumerate(start.table)
    )
    lines = tuple(EVERY_VALUE if i == seat else line for i, line in enumerate(start.lines))
    return replace(start, table=table, lines=lines, raw=(start.raw, value, landed))


def pre_play_tables(start: TurnStart, shadows: bool = False) -> list[tuple[int, TurnStart]]:
    """(power action, the public table it leaves) of every use of Sparrows or Skies (and,
    with ``shadows``, Shadows) the turn-start table allows, in action order, as the
    engine applies them: Sparrows puts the face-up deck top on a card with no fates (the
    cycled card and its attachments go to the deck bottom, the next deck top is unknown);
    Skies moves one visible fate to another card; Shadows leaves the table as it is (it
    lifts the kept fate's reading, see ``_Lines``)."""
    powers = [CARDS[c].power for c in start.faded]
    out: list[tuple[int, TurnStart]] = []
    for name in ("sparrows", "skies", "shadows") if shadows else ("sparrows", "skies"):
        if name not in powers:
            continue
        used = powers.index(name)  # the engine takes the earliest-faded card
        faded = start.faded[:used] + start.faded[used + 1 :]
        for action, table in _moves(start, name):
            raw = (start.raw, action)
            out.append((action, replace(table, faded=faded, raw=raw)))
    return sorted(out, key=itemgetter(0))


def _moves(start: TurnStart, name: str) -> list[tuple[int, TurnStart]]:
    """The tables one use of ``name`` (Sparrows or Skies) may leave, before its own
    card leaves the faded powers."""
    out = []
    cards = range(len(start.slots))
    if name == "shadows":
        return [(SHADOWS, start)]
    if name == "sparrows":
        if start.deck_size <= 0 or start.deck_top < 0:
            return out
        for slot in cards:
            if start.slots[slot] >= 0 and not start.table[slot]:
                slots = list(start.slots)
                slots[slot] = start.deck_top
                attached = list(start.attached)
                attached[slot] = ()
                table = replace(start, slots=tuple(slots), attached=tuple(attached), deck_top=-1)
                out.append((power_action("sparrows", slot), table))
        return out
    for src in cards:
        for v in sorted(set(start.table[src])):
            for dst in cards:
                if dst != src and start.slots[dst] >= 0:
                    fates = [list(f) for f in start.table]
                    fates[src].remove(v)
                    fates[dst].append(v)
                    table = replace(start, table=tuple(map(tuple, fates)))
                    out.append((power_action("skies", src, v, dst), table))
    return out


def compute_convention(
    config,
    start: TurnStart,
    seat: int,
    carried: bool,
    likelihood: tuple[float, ...] | None,
    settings: ConventionSettings = DEFAULT,
    *,
    second_play: bool = False,
    sweeps: int = 20,
) -> Convention:
    """The convention of a turn from its public inputs (see the module docstring): the
    search over the lines of :func:`code_problem` (the same arguments).

    Args:
        sweeps: at most this many rounds of best responses, then of coordinate ascent.
            After the first search, ``settings.restarts_at(start.doom)`` more start from
            random codes (drawn by a generator with a fixed seed, so every teammate draws
            the same ones), each improved by best responses and ascent; the code of
            highest summed value is kept (the first one on ties).
    """
    # the keywords in the caller's order: another order is only a cache miss
    key = (config, start.raw, seat, carried, likelihood, settings, second_play, sweeps)
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    hands, weights, lines, outcomes, _ = code_problem(
        config, start, seat, carried, likelihood, settings, second_play=second_play
    )
    restarts = settings.restarts_at(start.doom)
    search = _Search(weights, lines, outcomes)
    search.greedy()
    search.best_responses(sweeps)
    search.ascend(sweeps)
    if restarts > 0:
        search.restart(restarts, sweeps)
    picked = [opts[j] for opts, j in zip(search.options, search.pick, strict=True)]
    convention = Convention(
        hands=tuple(hands),
        weights=tuple(search.weights),
        before=tuple(line[0] for line, _, _ in picked),
        choice=tuple(line[1] for line, _, _ in picked),
        power=tuple(line[2] for line, _, _ in picked),
        steal=tuple(line[3] for line, _, _ in picked),
        kept=tuple(kept for _, _, kept in picked),
        payoff=tuple(search.payoffs()),
        value=search.value(),
    )
    if len(_CACHE) > 512:
        _CACHE.clear()
    _CACHE[key] = convention
    return convention


def code_problem(
    config,
    start: TurnStart,
    seat: int,
    carried: bool,
    likelihood: tuple[float, ...] | None,
    settings: ConventionSettings = DEFAULT,
    *,
    second_play: bool = False,
) -> tuple[list[tuple[int, int]], list[float], list[list[Option]], list[_Outcomes], list[bool]]:
    """What :func:`compute_convention` searches over, before any search: the hands, their
    normalised prior weights, each hand's lines (``Option``), the observations' race
    values, and which hands are *forced* (every line without a power before the play
    fades a card at a doom cost). :func:`compute_convention` chooses the code;
    ``research/convention_ceiling.py`` measures how good a code could be.

    Args:
        config: the game's rules.
        start: the public table after the active ``seat`` drew.
        carried: the seat began its turn holding a fate.
        likelihood: what the seat's last convention said about the carried fate (by value),
            ``None`` for nothing.
        settings: the team's settings
            (:class:`~shipwreck_agents.convention.settings.ConventionSettings`): the
            values of a pass, a power and the race; which powers lines may use; the look
            ahead; and the lines with a power before the play (on turns starting with at
            least ``pre_play_doom`` doom, for the hands ``pre_play_forced`` allows).
        second_play: the code of The Feast's second play on the table :func:`after_feast`
            gives (not on The Feast, no Shells); ``carried`` is then the fate the first
            play kept and ``likelihood`` what the first play's code said of it.
    """
    s = settings
    race = (s.accuracy, s.fail_doom)
    weighted = public_hands(start, seat, carried, likelihood, onlooker_pool(start))
    total = sum(w for _, w in weighted) or 1.0
    hands = [h for h, _ in weighted]
    lines = _Lines(start, s.info_value, race, s.power_cost, s.plan, s.player_powers, second_play)
    if s.lookahead > 0 or s.tie_ahead > 0:
        lines.look_ahead((seat + 1) % len(start.holding), s.lookahead, s.read_ahead, s.tie_ahead)
    options = [lines.options(hand, carried) for hand in hands]
    outcomes = lines.outcomes
    forced = [all(lines.fade_doom[o] > 0 for _, o, _ in opts) for opts in options]
    if s.pre_play_at(start.doom) and not second_play:
        needy = [i for i in range(len(options)) if not s.pre_play_forced or forced[i]]
        for power, table in pre_play_tables(start, s.pre_play_shadows) if needy else ():
            after = _Lines(table, s.info_value, race, s.power_cost, s.plan, False, before=power)
            more = [after.options(hands[i], carried) for i in needy]
            shift = len(outcomes)
            outcomes = outcomes + after.outcomes
            for i, extra in zip(needy, more, strict=True):
                options[i].extend((line, o + shift, kept) for line, o, kept in extra)
    weights = [w / total for _, w in weighted]
    return hands, weights, options, outcomes, forced


Option = tuple[tuple[int, int, int, int], int, int]
"""A hand's line of play: ((pre-play power action or 0, play action, after-play power
action or 0, steal action or 0), observation, kept)."""


class _Lines:
    """The lines of play of hypothetical hands on one turn-start table, and the
    observations (with their race values) they show."""

    def __init__(
        self,
        start: TurnStart,
        info_value: float,
        race: tuple[float, int],
        power_cost: float,
        plan: bool,
        player_powers: bool,
        second_play: bool = False,
        before: int = 0,
    ) -> None:
        self.start = start
        # a power used before the play (the table is the one it left): no other power
        # this turn, and The Feast's second play is not coded after one
        self.before = before
        self.lift = 1 if before == SHADOWS else 0  # Shadows: the kept fate reads 1 higher
        self.info_value, self.race, self.power_cost, self.plan = info_value, race, power_cost, plan
        self.rows = table_rows(start.slots, start.table, shadows=before == SHADOWS)
        self.visible = tuple(
            v
            for card, fates in zip(start.slots, start.table, strict=True)
            if card >= 0
            for v in fates
        )
        self.feast = [slot for slot, card in enumerate(start.slots) if card == FEAST]
        self.feast_out = bool(self.feast) and not second_play and not before
        faded = {CARDS[c].power for c in start.faded}
        own_powers = player_powers and THIEF not in start.slots
        if second_play:  # The Feast takes no second fate, and counts for no Hours rule
            for slot in self.feast:
                self.rows[slot] = None
        # Shells would answer about the turn's carried fate, not the fate kept by the
        # first play that the second play's code calls "carried"
        self.shells = own_powers and "shells" in faded and not second_play
        self.sinners = own_powers and "sinners" in faded
        self.fall_slot = start.slots.index(FALL) if FALL in start.slots else -1
        self.thief = start.slots.index(THIEF) if THIEF in start.slots else -1
        self.index: dict[tuple, int] = {}
        self.outcomes: list[_Outcomes] = []
        self.fade_doom: list[int] = []  # per observation: the doom its fades cost
        self.fading_of: dict[tuple, list[int]] = {}  # see fading()
        self.doom_of: dict[tuple, tuple[int, bool]] = {}  # fade_doom by the slots fading
        self.outcome_of: dict[tuple, PlayOutcome] = {}  # play outcomes (see outcome())
        self.plain: dict[int, int] = {}  # the observation of a play alone, by id(outcome)
        self.asked: dict[int, list[tuple]] = {}  # the group's questions, by the value played
        # (doom, amplified, next seat forced, forced turn read right) by where a fate lands
        self.fades: dict[tuple, tuple[int, bool, float, float]] = {}
        self.shared: dict[tuple, _Outcomes] = {}  # equal race values are one object
        self.next_seat, self.forced_accuracy, self.read_ahead = -1, 0.0, 0.0
        self.tie = 0.0

    def look_ahead(
        self, seat: int, forced_accuracy: float, read_ahead: float = 0.0, tie: float = 0.0
    ) -> None:
        """Count in every observation's race value the chance that the table it leaves
        forces ``seat``'s next turn, read right with ``forced_accuracy`` (or, with
        ``read_ahead`` above 0, ``1 - read_ahead`` times the misreads of the simple
        code of :func:`~shipwreck_agents.convention.ahead.forced_turn` on that table);
        with ``forced_accuracy`` 0, instead take ``tie`` times that chance off the
        observation's value (a tie-break, see ``compute_convention``'s ``tie_ahead``)."""
        self.next_seat, self.forced_accuracy, self.read_ahead = seat, forced_accuracy, read_ahead
        self.tie = tie if forced_accuracy <= 0 else 0.0

    def _forced_next(
        self, out: PlayOutcome, removed, steal, fading: list[int]
    ) -> tuple[float, float]:
        """(chance that the table after ``out`` (+ ``steal``, - ``removed``, the cards
        of ``fading`` gone) forces the next seat, chance such a turn is read right);
        (0, 0) without a look-ahead."""
        if self.next_seat < 0:
            return 0.0, 0.0
        start, seat = self.start, self.next_seat
        table = self._after(out, steal)
        if removed is not None:
            fates = list(table[removed[0]])
            fates.remove(removed[1])
            table = (*table[: removed[0]], tuple(fates), *table[removed[0] + 1 :])
        left = table_left(start, table, fading)
        carried = start.holding[seat] == 1
        key = (
            left.raw,
            start.exiled,
            start.lines[seat] if carried else 0,  # a fresh seat's hands ignore its line
            carried,
            self.forced_accuracy,
            self.read_ahead,
        )
        hit = _FORCED.get(key)
        if hit is None:
            hands = public_hands(left, seat, carried, None, onlooker_pool(left))
            share, reading = forced_turn(left, hands, self.read_ahead > 0)
            accuracy = self.forced_accuracy
            if self.read_ahead > 0:
                accuracy = 1 - self.read_ahead * (1 - reading)
            if len(_FORCED) > 8192:
                _FORCED.clear()
            hit = _FORCED[key] = (share, accuracy)
        return hit

    def steals(self, out: PlayOutcome, kept: int) -> list[tuple[int, int] | None]:
        """The (slot, value) fates The Thief may take after ``out`` with ``kept`` hidden
        (it must take one higher than the kept fate, from another card, if there is one):
        ``[None]`` when it takes nothing or is not in play. The choice is the player's, so
        the code may use it as a signal."""
        if self.thief < 0:
            return [None]
        start = self.start
        found = [
            (slot, v)
            for slot in range(len(start.slots))
            if slot != self.thief
            for v in sorted(set(start.table[slot] + ((out.value,) if out.landed == slot else ())))
            if v > kept
        ]
        return found or [None]

    def removals(self, out: PlayOutcome, kept_eff: int) -> list[int]:
        """The Sinners actions the code may use after ``out`` with a kept fate worth
        ``kept_eff``: the rule's (:func:`~shipwreck_env.powers.sinners_actions` on the
        table the play leaves), but never on The Fall, a choice of the convention."""
        table = [
            fates + ((out.value,) if out.landed == slot else ())
            for slot, fates in enumerate(self.start.table)
        ]
        return [a for a in sinners_actions(table, kept_eff) if ACTIONS[a].slot != self.fall_slot]

    def _after(
        self, out: PlayOutcome, steal: tuple[int, int] | None
    ) -> tuple[tuple[int, ...], ...]:
        """The fates in front of each slot after ``out`` and The Thief's ``steal`` (or
        ``None``)."""
        table = [list(f) for f in self.start.table]
        if out.landed >= 0:
            table[out.landed].append(out.value)
        if steal:
            table[steal[0]].remove(steal[1])
            table[self.thief].append(steal[1])
        return tuple(map(tuple, table))

    def _stolen(self, out: PlayOutcome, steal: tuple[int, int]) -> tuple[TurnStart, PlayOutcome]:
        """The table after ``out`` and The Thief's ``steal``, and ``out`` with its fate
        already on that table (so the fades are counted on it)."""
        start = replace(self.start, table=self._after(out, steal))
        return start, PlayOutcome(out.value, out.target, -1, out.chalice, out.fall)

    def observation(self, out: PlayOutcome, power: int, answer, removed=None, steal=None) -> int:
        """The number of the observation ``out`` + The Thief's ``steal`` ((slot, value) or
        None) + the after-play ``power`` (0: none) and its answer; ``removed`` is the fate
        Sinners takes off the table."""
        key = (out, power, answer, steal)
        o = self.index.get(key)
        if o is not None:
            return o
        start = self.start
        o = self.index[key] = len(self.outcomes)
        where = (out.landed, out.value, out.fall, removed, steal)
        fades = self.fades.get(where)
        if fades is None:
            if steal:
                fading = fading_after(*self._stolen(out, steal), removed)
            else:
                fading = self.fading(out, removed)
            forced = self._forced_next(out, removed, steal, fading)
            doom = self.doom_of.get(tuple(fading))
            if doom is None:
                doom = self.doom_of[tuple(fading)] = fade_doom(start, fading)
            fades = self.fades[where] = (*doom, *forced)
        spent = bool(power or self.before)
        asks = out.value if self.plan and not spent else 0
        shared = (fades, asks, spent)
        outcome = self.shared.get(shared)
        if outcome is None:
            questions = []
            if asks:
                questions = self.asked.get(asks)
                if questions is None:
                    questions = self.asked[asks] = group_questions(
                        start, asks, (*self.visible, asks)
                    )
            outcome = self.shared[shared] = _Outcomes(
                start.score,
                start.doom,
                fades[0],
                fades[1],
                self.info_value,
                self.race,
                questions,
                self.power_cost,
                spent=spent,
                ahead=fades[2:] if not self.tie else (0.0, 0.0),
                tie=self.tie * fades[2],
            )
        self.outcomes.append(outcome)
        self.fade_doom.append(fades[0])
        return o

    def fading(self, out: PlayOutcome, removed: tuple[int, int] | None = None) -> list[int]:
        """:func:`~shipwreck_env.public_record.fading_after` of ``out`` on the turn-start
        table with ``removed`` = (slot, value) taken off by Sinners: the slots without a
        removal are computed once per play, and only the slot Sinners touches again."""
        where = (out.landed, out.value, out.fall)
        fading = self.fading_of.get(where)
        if fading is None:
            fading = self.fading_of[where] = fading_after(self.start, out)
        if removed is None:
            return fading
        slot, value = removed
        card = self.start.slots[slot]
        if fades_by_text_after(card, out.value, out.fall) is not None:
            return fading  # the card's own text decides, whatever is in front of it
        fates = list(self.start.table[slot])
        if out.landed == slot:
            fates.append(out.value)
        fates.remove(value)
        rest = [s for s in fading if s != slot]
        if fades_by_hours(card, self.start.attached[slot], tuple(fates)):
            rest = sorted((*rest, slot))
        return rest

    def _fades(self, hand: tuple[int, int], value: int, target: int) -> bool:
        """Does playing ``value`` of ``hand`` on ``target`` fade a card at a doom cost?"""
        kept = hand[1] if hand[0] == value else hand[0]
        out = play_outcome(self.start, value, target, kept)
        return fade_doom(self.start, fading_after(self.start, out))[0] > 0

    def outcome(self, value: int, target: int, kept: int) -> PlayOutcome:
        """:func:`~shipwreck_env.public_record.play_outcome` of playing ``value`` on
        ``target`` keeping ``kept``, computed once for every kept value that shows the
        same: the kept fate shows only in The Chalice's tell (kept above the played
        value or not) and The Fall's announcement."""
        if self.fall_slot >= 0:
            key: tuple = (value, target, kept)
        elif target == HOURS_TARGET or self.start.slots[target] != CHALICE:
            key = (value, target)
        else:
            key = (value, target, kept > value)
        seen = self.outcome_of.get(key)
        if seen is None:
            seen = self.outcome_of[key] = play_outcome(self.start, value, target, kept)
        return seen

    def options(self, hand: tuple[int, int], carried: bool) -> list[Option]:
        """Every line of play of ``hand``; a play on The Feast only when every other play
        fades a card (or there is none): the second play is another chance."""
        low, high = hand
        plays = [PLAYS[a] for a in first_plays(self.rows, low, high)]
        if self.feast:
            elsewhere = [p for p in plays if p[2] not in self.feast]
            if self.before:
                plays = elsewhere
            elif not (self.feast_out and all(self._fades(hand, v, t) for _, v, t in elsewhere)):
                plays = elsewhere or plays
        out: list[Option] = []
        plain, before = self.plain, self.before
        lift = self.lift
        for action, value, target in plays:
            kept = high if low == value else low
            seen = self.outcome(value, target, kept + lift)
            if self.thief < 0:
                o = plain.get(id(seen))  # outcome_of keeps every outcome alive
                if o is None:
                    o = plain[id(seen)] = self.observation(seen, 0, None, None, None)
                out.append(((before, action, 0, 0), o, kept))
            else:
                for steal in self.steals(seen, kept + lift):
                    taken = STEAL_ACTION[steal[0]][steal[1]] if steal else 0
                    o = self.observation(seen, 0, None, None, steal)
                    out.append(((before, action, 0, taken), o, kept))
            if self.shells:
                answer = carried and value == low and high != value
                o = self.observation(seen, SHELLS, answer)
                out.append(((0, action, SHELLS, 0), o, kept))
            if self.sinners:
                for power in self.removals(seen, kept + lift):
                    spec = ACTIONS[power]
                    o = self.observation(seen, power, None, (spec.slot, spec.value))
                    out.append(((0, action, power, 0), o, kept))
        return out


def _moved(m: list[float], kept: int, delta: float) -> list[float]:
    m = m[:]
    m[kept - 1] += delta
    return m


class _Search:
    """The choice of one line per hand: ``pick[i]`` indexes ``options[i]``; ``mass[o]``
    is the prior mass, by kept value, of the hands whose picked line shows ``o``."""

    def __init__(
        self, weights: list[float], options: list[list[Option]], outcomes: list[_Outcomes]
    ) -> None:
        self.weights, self.options, self.outcomes = weights, options, outcomes
        self.pick = [0] * len(options)
        self.mass = [[0.0] * 7 for _ in outcomes]

    def _move(self, i: int, j: int) -> tuple[int, int]:
        """Hand ``i`` takes line ``j``: (old observation, new observation)."""
        w = self.weights[i]
        _, o1, k1 = self.options[i][self.pick[i]]
        _, o2, k2 = self.options[i][j]
        self.mass[o1] = _moved(self.mass[o1], k1, -w)
        self.mass[o2] = _moved(self.mass[o2], k2, w)
        self.pick[i] = j
        return o1, o2

    def greedy(self) -> None:
        """Each hand takes its best line when every observation is read as if every hand
        able to show it did."""
        literal = [[0.0] * 7 for _ in self.outcomes]
        for w, opts in zip(self.weights, self.options, strict=True):
            for _, o, kept in opts:
                literal[o][kept - 1] += w
        payoff = [out.payoffs(m) for out, m in zip(self.outcomes, literal, strict=True)]
        for i, opts in enumerate(self.options):
            best, best_value = 0, -np.inf
            for j, (_, o, kept) in enumerate(opts):
                if payoff[o][kept - 1] > best_value + _EPS:
                    best, best_value = j, payoff[o][kept - 1]
            self.pick[i] = best
            _, o, kept = opts[best]
            self.mass[o][kept - 1] += self.weights[i]

    def best_responses(self, sweeps: int) -> None:
        """Each hand takes the line whose current reading serves it best (the group's reply
        to each observation fixed; an unused one is read as that hand alone), until no
        hand moves."""
        outcomes, mass = self.outcomes, self.mass
        payoff = [out.payoffs(m) for out, m in zip(outcomes, mass, strict=True)]
        for _ in range(sweeps):
            changed = False
            for i, opts in enumerate(self.options):
                if len(opts) < 2:
                    continue
                _, o1, k1 = opts[self.pick[i]]
                best, best_value = self.pick[i], payoff[o1][k1 - 1]
                for j, (_, o, kept) in enumerate(opts):
                    if payoff[o][kept - 1] > best_value + _EPS:
                        best, best_value = j, payoff[o][kept - 1]
                if best != self.pick[i]:
                    for o in self._move(i, best):
                        payoff[o] = outcomes[o].payoffs(mass[o])
                    changed = True
            if not changed:
                return

    def ascend(self, sweeps: int) -> None:
        """Coordinate ascent over hands on the summed value: a hand moves when the gain
        of its new observation beats the loss of its old one."""
        outcomes, mass = self.outcomes, self.mass
        value = [out.group(m) for out, m in zip(outcomes, mass, strict=True)]
        for _ in range(sweeps):
            changed = False
            for i, opts in enumerate(self.options):
                if len(opts) < 2:
                    continue
                w, now = self.weights[i], self.pick[i]
                _, o1, k1 = opts[now]
                without = mass[o1][:]
                without[k1 - 1] -= w
                loss = outcomes[o1].group(without) - value[o1]
                best, best_gain = -1, _EPS
                for j, (_, o, kept) in enumerate(opts):
                    if j == now or o == o1:
                        continue
                    moved = mass[o][:]  # as _moved(mass[o], kept, w), inlined
                    moved[kept - 1] += w
                    gain = loss + outcomes[o].group(moved) - value[o]
                    if gain > best_gain:
                        best, best_gain = j, gain
                if best >= 0:
                    for o in self._move(i, best):
                        value[o] = outcomes[o].group(mass[o])
                    changed = True
            if not changed:
                return

    def restart(self, times: int, sweeps: int) -> None:
        """Search ``times`` more from random codes (fixed seed: the same draws for every
        teammate) with best responses and ascent; keep the code of highest summed value,
        the current one on ties."""
        best_pick, best_value = self.pick[:], self.value()
        if best_value >= self.bound() - 1e-9:
            return  # every hand is served as if the group knew its kept fate
        rng = np.random.default_rng(RESTART_SEED)
        for _ in range(times):
            self._assign([int(rng.integers(len(opts))) for opts in self.options])
            self.best_responses(sweeps)
            self.ascend(sweeps)
            value = self.value()
            if value > best_value + _EPS:
                best_pick, best_value = self.pick[:], value
        self._assign(best_pick)

    def bound(self) -> float:
        """An upper bound of the summed value: each hand on its best line, read as if no
        other hand shared its observation (sharing never helps the group)."""
        return sum(
            w * max(self.outcomes[o].payoffs([0.0] * 7)[kept - 1] for _, o, kept in opts)
            for w, opts in zip(self.weights, self.options, strict=True)
        )

    def _assign(self, pick: list[int]) -> None:
        """Every hand takes line ``pick[i]``; the masses follow."""
        self.pick = pick[:]
        self.mass = [[0.0] * 7 for _ in self.outcomes]
        for w, opts, j in zip(self.weights, self.options, pick, strict=True):
            _, o, kept = opts[j]
            self.mass[o][kept - 1] += w

    def payoffs(self) -> list[float]:
        """What each hand's picked line gets from the group's best reply to its
        observation, valued by this turn alone (no look-ahead)."""
        replies: dict[int, list[float]] = {}
        out = []
        for opts, j in zip(self.options, self.pick, strict=True):
            _, o, kept = opts[j]
            if o not in replies:
                replies[o] = self.outcomes[o].payoffs(self.mass[o], now=True)
            out.append(replies[o][kept - 1])
        return out

    def value(self) -> float:
        """The summed team value of the current choice."""
        return float(sum(out.group(m) for out, m in zip(self.outcomes, self.mass, strict=True)))
