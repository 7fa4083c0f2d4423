"""The heuristic player: plays so that the group can read the kept fate.

Rule, for every decision of the active player:

1. Score each legal option by the outcome it leads to for the group. For a play of
   fate ``p`` on a card, the group's number line after the play follows from the card's
   condition (plus the announcements the play triggers -- The Chalice's tell, The
   Fall's fade -- which the player can foresee because it knows its kept fate ``k``).
   The *clarity* of an option is the literal posterior probability of ``k``: its number
   line weighted by the copies of each value the group cannot see. A clarity of 1 means
   the group can name ``k`` for sure.
2. Subtract the expected doom of the cards the option makes fade: each fade costs 2
   doom (0 for The Blind Man, 3 with Sands) unless the group predicts correctly, which
   we take to happen with probability = clarity. ``doom_weight`` converts doom into
   clarity units.
3. The Feast is scored by looking one play ahead, roughly: the expected best score of
   the second play over the fate it would draw, judged on the table as it is now.
4. After the play, Shells or Sinners is used when it raises the score by at least
   ``power_margin`` (Sinners can also stop a fade); The Thief takes the fate that tells
   the group most.

Ties go to the lower action number, so the player is deterministic given its view --
which lets the Bayesian group model it exactly. Sparrows, Shadows and Skies are never
used (their value depends on the next cards, which this rule does not look at).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from shipwreck_agents.base import Policy
from shipwreck_agents.scripted.knowledge import (
    condition_mask,
    doom_of_fades,
    fading_slots,
    group_counts,
    line_after_play,
    literal_posterior,
)
from shipwreck_env.envs.policy import BatchedPartner
from shipwreck_env.rules.actions import ACTIONS, HOURS_TARGET, PASS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.state import State
from shipwreck_env.rules.view import AgentView

__all__ = ["HeuristicPlayer"]


class HeuristicPlayer(Policy):
    """See the module docstring.

    Args:
        doom_weight: clarity lost per expected doom point.
        power_margin: minimum score gain for using Shells or Sinners.
    """

    name = "heuristic"

    def __init__(self, doom_weight: float = 0.25, power_margin: float = 0.1) -> None:
        self.doom_weight = doom_weight
        self.power_margin = power_margin

    def act(
        self,
        observation: np.ndarray | None,
        mask: np.ndarray,
        view: AgentView,
        rng: np.random.Generator,
        state: State | None = None,
    ) -> int:
        legal = view.legal or tuple(int(a) for a in np.flatnonzero(mask))
        if view.phase == "play":
            return self._play(view, legal, rng)
        if view.phase == "steal":
            return self._steal(view, legal)
        if view.phase == "after_play":
            return self._after_play(view, legal)
        return PASS if PASS in legal else legal[0]

    def batched(self, num_games: int, config: GameConfig, decisions: str) -> BatchedPartner | None:
        """The compiled twin (:mod:`shipwreck_agents.scripted.twins`)."""
        from shipwreck_agents.scripted.twins import twin_of

        return twin_of(self, num_games, config, decisions)

    # --- scoring ---------------------------------------------------------------------

    def _kept(self, view: AgentView) -> int:
        return view.my_hands[view.my_seats.index(view.active_seat)][0]

    def _clarity(self, line: int, kept: int, counts: np.ndarray) -> float:
        """How surely the group can name ``kept`` from ``line``: its literal posterior."""
        return float(literal_posterior(line, counts)[kept - 1])

    def _score(
        self, view: AgentView, line: int, kept: int, counts: np.ndarray, fades: list[int]
    ) -> float:
        clarity = self._clarity(line, kept, counts)
        doom = doom_of_fades(view, fades)
        return clarity - self.doom_weight * doom * (1.0 - clarity)

    def _announced(self, view: AgentView, line: int, played: int, target: int, kept: int) -> int:
        """Narrow ``line`` by what the play will make the player announce."""
        bonus = 1 if view.shadows else 0
        eff = kept + bonus
        values = np.arange(1, 8) + bonus
        if target != HOURS_TARGET and view.slots[target] == "chalice":
            line &= _bits((values > played) == (eff > played))
        if "fall" in view.slots:
            slot = view.slots.index("fall")
            total = sum(view.table[slot]) + (played if _landing(view, target) == slot else 0)
            line &= _bits((total >= 2 * values) == (total >= 2 * eff))
        return line

    def _play_score(
        self, view: AgentView, hand: tuple[int, int], played: int, target: int
    ) -> float:
        kept = hand[1] if hand[0] == played else hand[0]
        line = line_after_play(view, played, target, view.lines[view.active_seat])
        line = self._announced(view, line, played, target, kept)
        counts = _counts_without(view, played)
        landed = _landing(view, target)
        fades = fading_slots(view, {landed: (played,)}) if landed >= 0 else fading_slots(view)
        return self._score(view, line, kept, counts, fades)

    def _play_scores(self, view: AgentView, legal: tuple[int, ...]) -> list[tuple[float, int]]:
        """(score, action) of every legal play, in action order."""
        hand = view.my_hands[view.my_seats.index(view.active_seat)]
        scored = []
        for action in legal:
            spec = ACTIONS[action]
            if spec.kind != "play":
                continue
            if spec.slot != HOURS_TARGET and view.slots[spec.slot] == "feast":
                score = self._feast_score(view, hand, spec.value)
            else:
                score = self._play_score(view, hand, spec.value, spec.slot)
            scored.append((score, action))
        return scored

    def _play(self, view: AgentView, legal: tuple[int, ...], rng: np.random.Generator) -> int:
        best, best_score = legal[0], -np.inf
        for score, action in self._play_scores(view, legal):
            if score > best_score + 1e-12:
                best, best_score = action, score
        return best

    def _feast_score(self, view: AgentView, hand: tuple[int, ...], played: int) -> float:
        """Expected best second play after playing ``played`` on The Feast."""
        rest = hand[1] if hand[0] == played else hand[0]
        counts = np.array(view.unseen, dtype=float)
        total = counts.sum()
        if total <= 0:
            return -1.0
        expected = 0.0
        for drawn in range(1, 8):
            if counts[drawn - 1] <= 0:
                continue
            second = (rest, drawn)
            options = _legal_plays(view, second, exclude_feast=True)
            scores = [self._play_score(view, second, v, t) for v, t in options]
            expected += counts[drawn - 1] / total * max(scores)
        return expected - 0.02  # a small price for giving the group a harder turn

    # --- after the play --------------------------------------------------------------

    def _steal(self, view: AgentView, legal: tuple[int, ...]) -> int:
        kept = self._kept(view)
        counts = group_counts(view)
        best, best_score = legal[0], -np.inf
        for action in legal:
            spec = ACTIONS[action]
            if spec.kind != "steal":
                continue
            bonus = 1 if view.shadows else 0
            line = view.lines[view.active_seat] & _bits(np.arange(1, 8) + bonus < spec.value)
            score = self._score(view, line, kept, counts, fading_slots(view))
            if score > best_score + 1e-12:
                best, best_score = action, score
        return best

    def _after_play(self, view: AgentView, legal: tuple[int, ...]) -> int:
        kept = self._kept(view)
        counts = group_counts(view)
        line = view.lines[view.active_seat]
        base = self._score(view, line, kept, counts, fading_slots(view))
        best, best_score = PASS, base + self.power_margin
        bonus = 1 if view.shadows else 0
        for action in legal:
            spec = ACTIONS[action]
            if spec.power == "shells":
                played_carried = view.carried_into_turn and view.my_carried == 0
                new_line = view.line_if_fresh if played_carried else view.line_if_carried
                score = self._score(view, new_line, kept, counts, fading_slots(view))
            elif spec.power == "sinners":
                new_line = line & _bits(np.arange(1, 8) + bonus > spec.value)
                fates = list(view.table[spec.slot])
                fates.remove(spec.value)
                lighter = _with_table(view, spec.slot, tuple(fates))
                score = self._score(view, new_line, kept, counts, fading_slots(lighter))
            else:
                continue
            if score > best_score + 1e-12:
                best, best_score = action, score
        return best


def _bits(flags: np.ndarray) -> int:
    return int(sum(1 << i for i, f in enumerate(flags) if f))


def _landing(view: AgentView, target: int) -> int:
    if target != HOURS_TARGET:
        return target
    return next((slot for slot, card in enumerate(view.slots) if card is not None), -1)


def _counts_without(view: AgentView, played: int) -> np.ndarray:
    counts = group_counts(view)
    counts[played - 1] -= 1  # the played fate becomes visible
    return counts


def _legal_plays(
    view: AgentView, hand: tuple[int, int], exclude_feast: bool
) -> list[tuple[int, int]]:
    """(value, target) plays allowed for a hypothetical ``hand`` on the current table."""
    a, b = hand
    out = []
    for slot, card in enumerate(view.slots):
        if card is None or (card == "feast" and exclude_feast):
            continue
        for played, kept in ((a, b), (b, a)):
            if condition_mask(view, played, slot) >> (kept - 1) & 1 and (played, slot) not in out:
                out.append((played, slot))
    if not out:
        out = [(a, HOURS_TARGET)] + ([(b, HOURS_TARGET)] if b != a else [])
    return out


def _with_table(view: AgentView, slot: int, fates: tuple[int, ...]) -> AgentView:
    table = list(view.table)
    table[slot] = fates
    return dataclasses.replace(view, table=tuple(table))
