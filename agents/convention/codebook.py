"""The codebook behind the convention team (:mod:`shipwreck_agents.convention.team`): one turn's public
code, from public inputs only.

:func:`compute_convention` takes the hands the active seat may hold and their lines of
play (:mod:`shipwreck_agents.convention.lines`), each line's observation valued by
:class:`~shipwreck_agents.convention.outcomes.Outcomes`, and picks one line per hand
(``_Codebook``: greedy start, best responses, coordinate ascent on the summed value). The
method is explained in :mod:`shipwreck_agents.convention.team`. Nothing here reads a
hidden fate: every input is public, so every teammate computes the same code.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from operator import itemgetter

import numpy as np

from shipwreck_agents.convention import lines as _lines
from shipwreck_agents.convention.lines import SHADOWS, Lines, Option, public_hands
from shipwreck_agents.convention.outcomes import EPS, Outcomes
from shipwreck_agents.convention.settings import DEFAULT, ConventionSettings
from shipwreck_env.rules.actions import power_action
from shipwreck_env.rules.cards import CARDS
from shipwreck_env.rules.public_record import (
    onlooker_pool,
)
from shipwreck_env.rules.view import TurnStart

__all__ = [
    "Convention",
    "after_feast",
    "compute_convention",
    "pre_play_tables",
]

EVERY_VALUE = 0b1111111
RESTART_SEED = 20_26
"""The seed of the convention's random restarts: part of the convention, like its rules."""


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
        value: the summed team value of the code (with each hand's legibility bonus,
            weighted by the hand, when the settings' ``legible`` is on).
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

    def kept_mass(self, action: int) -> list[float]:
        """The prior mass, by kept value (index ``v - 1``), of the hands whose line opens
        with the play ``action`` (no power before it)."""
        mass = [0.0] * 7
        for w, before, choice, kept in zip(
            self.weights, self.before, self.choice, self.kept, strict=True
        ):
            if choice == action and not before:
                mass[kept - 1] += w
        return mass


_CACHE: dict[tuple, Convention] = {}


def clear_cache() -> None:
    """Forget every cached convention code (and look-ahead share), so the next turn pays
    for its own code as a cold start would; results do not change, only time."""
    _CACHE.clear()
    _lines._FORCED.clear()


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
    best code found over the lines of :func:`code_problem` (the same arguments).

    Args:
        sweeps: at most this many rounds of best responses, then of coordinate ascent.
            After the first pass, ``settings.restarts_at(start.doom)`` more start from
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
    codebook = _Codebook(weights, lines, outcomes, settings.legible)
    codebook.greedy()
    codebook.best_responses(sweeps)
    codebook.ascend(sweeps)
    if restarts > 0:
        codebook.restart(restarts, sweeps)
    picked = [opts[j] for opts, j in zip(codebook.options, codebook.pick, strict=True)]
    convention = Convention(
        hands=tuple(hands),
        weights=tuple(codebook.weights),
        before=tuple(line[0] for line, _, _ in picked),
        choice=tuple(line[1] for line, _, _ in picked),
        power=tuple(line[2] for line, _, _ in picked),
        steal=tuple(line[3] for line, _, _ in picked),
        kept=tuple(kept for _, _, kept in picked),
        payoff=tuple(codebook.payoffs()),
        value=codebook.value(),
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
) -> tuple[list[tuple[int, int]], list[float], list[list[Option]], list[Outcomes], list[bool]]:
    """What :func:`compute_convention` chooses from, before any choice: the hands, their
    normalised prior weights, each hand's lines (``Option``), the observations' race
    values, and which hands are *forced* (every line without a power before the play
    fades a card at a doom cost). :func:`compute_convention` chooses the code;
    ``lab/studies/convention_ceiling.py`` measures how good a code could be.

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
    lines = Lines(start, s.info_value, race, s.power_cost, s.plan, s.player_powers, second_play)
    if s.lookahead > 0 or s.tie_ahead > 0:
        lines.look_ahead((seat + 1) % len(start.holding), s.lookahead, s.read_ahead, s.tie_ahead)
    options = [lines.options(hand, carried) for hand in hands]
    outcomes = lines.outcomes
    forced = [all(lines.fade_doom[o] > 0 for _, o, _ in opts) for opts in options]
    if s.pre_play_at(start.doom) and not second_play:
        needy = [i for i in range(len(options)) if not s.pre_play_forced or forced[i]]
        for power, table in pre_play_tables(start, s.pre_play_shadows) if needy else ():
            after = Lines(table, s.info_value, race, s.power_cost, s.plan, False, before=power)
            more = [after.options(hands[i], carried) for i in needy]
            shift = len(outcomes)
            outcomes = outcomes + after.outcomes
            for i, extra in zip(needy, more, strict=True):
                options[i].extend((line, o + shift, kept) for line, o, kept in extra)
    weights = [w / total for _, w in weighted]
    return hands, weights, options, outcomes, forced


def _moved(m: list[float], kept: int, delta: float) -> list[float]:
    m = m[:]
    m[kept - 1] += delta
    return m


class _Codebook:
    """The choice of one line per hand: ``pick[i]`` indexes ``options[i]``; ``mass[o]``
    is the prior mass, by kept value, of the hands whose picked line shows ``o``."""

    def __init__(
        self,
        weights: list[float],
        options: list[list[Option]],
        outcomes: list[Outcomes],
        legible: float = 0.0,
    ) -> None:
        self.weights, self.options, self.outcomes = weights, options, outcomes
        self.pick = [0] * len(options)
        self.mass = [[0.0] * 7 for _ in outcomes]
        self.bonus = self._legibility(legible)

    def _legibility(self, legible: float) -> list[list[float]]:
        """``bonus[i][j]``: ``legible`` times the chance that a reader who knows no code
        names hand ``i``'s kept value from the observation of its line ``j``: the prior
        mass, by kept value, of every hand able to show that observation (any of its
        lines), normalised. All zero when ``legible`` is 0."""
        if legible <= 0:
            return [[0.0] * len(opts) for opts in self.options]
        literal = [[0.0] * 7 for _ in self.outcomes]
        for w, opts in zip(self.weights, self.options, strict=True):
            shown: dict[int, int] = {}  # observation -> kept value of its first line
            for _, o, kept in opts:
                shown.setdefault(o, kept)
            for o, kept in shown.items():
                literal[o][kept - 1] += w
        return [
            [legible * literal[o][kept - 1] / (sum(literal[o]) or 1.0) for _, o, kept in opts]
            for opts in self.options
        ]

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
            best, best_value, bonus = 0, -np.inf, self.bonus[i]
            for j, (_, o, kept) in enumerate(opts):
                if payoff[o][kept - 1] + bonus[j] > best_value + EPS:
                    best, best_value = j, payoff[o][kept - 1] + bonus[j]
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
                bonus = self.bonus[i]
                best, best_value = self.pick[i], payoff[o1][k1 - 1] + bonus[self.pick[i]]
                for j, (_, o, kept) in enumerate(opts):
                    if payoff[o][kept - 1] + bonus[j] > best_value + EPS:
                        best, best_value = j, payoff[o][kept - 1] + bonus[j]
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
                bonus = self.bonus[i]
                best, best_gain = -1, EPS
                for j, (_, o, kept) in enumerate(opts):
                    if j == now or o == o1:
                        continue
                    moved = mass[o][:]  # as _moved(mass[o], kept, w), inlined
                    moved[kept - 1] += w
                    gain = loss + outcomes[o].group(moved) - value[o] + w * (bonus[j] - bonus[now])
                    if gain > best_gain:
                        best, best_gain = j, gain
                if best >= 0:
                    for o in self._move(i, best):
                        value[o] = outcomes[o].group(mass[o])
                    changed = True
            if not changed:
                return

    def restart(self, times: int, sweeps: int) -> None:
        """Start ``times`` more times from random codes (fixed seed: the same draws for every
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
            if value > best_value + EPS:
                best_pick, best_value = self.pick[:], value
        self._assign(best_pick)

    def bound(self) -> float:
        """An upper bound of the summed value: each hand on its best line, read as if no
        other hand shared its observation (sharing never helps the group)."""
        return sum(
            w
            * max(
                self.outcomes[o].payoffs([0.0] * 7)[kept - 1] + bonus
                for (_, o, kept), bonus in zip(opts, b, strict=True)
            )
            for w, opts, b in zip(self.weights, self.options, self.bonus, strict=True)
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
        """The summed team value of the current choice (with its legibility bonus)."""
        value = sum(out.group(m) for out, m in zip(self.outcomes, self.mass, strict=True))
        if any(any(b) for b in self.bonus):
            value += sum(
                w * b[j] for w, b, j in zip(self.weights, self.bonus, self.pick, strict=True)
            )
        return float(value)
