"""The convention team: player and group share one code, computed afresh every turn.

Method, in our words.

1. **A public convention per turn.** When a seat's turn starts, every teammate can list
   the hands it may hold, from public facts only (:mod:`shipwreck_env.rules.public_record`):
   two fresh fates, or the fate it carried plus one fresh one. Each hand gets a public
   prior weight: fresh fates by the copies nobody can place on the table (the
   *onlooker's pool*), a carried fate by what the convention of that seat's last turn
   said about it (stored as a likelihood, re-weighted by today's pool and number line).
   The convention maps every hand to one *line of play*: a legal first play, then, if
   Shells or Sinners is available, that power or nothing (or, with ``pre_play``, a
   power before the play and then the play: see below). A line shows a public
   *observation*: the fate, the card, the Hours slide, The Thief's steal, The Chalice's
   tell, The Fall's announcement, the power used and Shells' answer. Using a power is
   itself a signal, and Sinners can take a fate off a card that would fade. Which fate
   The Thief takes (any visible one higher than the kept fate, on another card) is the
   player's choice, so it is a signal too, and the fades are counted after the steal.
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
   of public facts: every teammate computes the same one. On turns that start with
   doom 5 or more (one misread can end the game) the search starts again from 3 random
   codes drawn with a fixed seed, and the code of highest summed value is kept
   (docs/convention-losses.md).
3. **The group is an exact Bayesian on the convention.** Seeing the line, it keeps the
   hands the convention maps to that line, weighted by *its own* prior (its pool leaves
   out its own fates), times the number line (which carries the announcements, power
   answers and wrong guesses: each is a deterministic function of the kept value, so
   the product is exact). It then predicts, passes or uses a power by the value of the
   race, as :class:`~shipwreck_agents.scripted.bayes.BayesGroup` does (with the settings'
   race): a question power, Sorrows or Scions
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

Powers before the play. With ``pre_play`` the code also has lines that start with
Sparrows or Skies (and Shadows with ``pre_play_shadows``): the power, then a play on
the table it left (:func:`~shipwreck_agents.convention.codebook.pre_play_tables`; Sparrows
puts the face-up deck top in place of a card with no fates, Skies moves a visible fate,
Shadows reads the kept fate 1 higher). Which power and where is public, so it is part
of the observation; such a line asks no group power (one power a turn) and pays
``power_cost``. The group reads it by the code and both sides remember it, like any
other line. A hand whose every plain line fades a card at a doom cost can thus reshape
the table and still signal. By default only such hands get these lines, and only on
turns that start with doom 4 or more (hard and doomed; the extra search costs time a
calm turn does not repay): docs/convention-powers.md.

A way out. Sparrows, Skies and Shadows are also used outside the code when the line
the convention gives the player's own hand is worth less than a turn the group passes
at no doom, and one of them opens a play after which the number line alone names the
kept fate (the turn scores, its fades are free) or, failing that, a play that fades
nothing (:mod:`shipwreck_agents.convention.rescue`). Without ``pre_play`` the group
does not read such a turn by the code (it reads the number line) and neither side
remembers it; with it, a way out through a power the code holds is read and remembered
by the code like any line (a line no hand of the code shows leaves the group the number
line, and the memory empty). Not used: reveals and Sails. With The Thief in play the
player uses no power after the play.

The Feast. A hand plays on The Feast only when every other play it has fades a card at
a doom cost (or it has none), and never after a power: the second play is another
chance. The second play
then has a convention of its own (:func:`~shipwreck_agents.convention.codebook.after_feast`):
the table with the first fate on it, the hand the fate the first play kept (its prior is
what the first convention said of it, read off the first play) plus the fresh draw,
The Feast closed. The group reads the second play by it and both remember what it says
of the kept fate. A turn the convention does not cover (a power before a play that the code does not
hold) falls
back to the literal posterior; neither the player nor the group remembers such a turn,
so they still agree on the next.

A look-ahead (``lookahead``, off by default) can add to each line the chance that the
table it leaves forces the next seat (:mod:`shipwreck_agents.convention.ahead`).

The codebook itself (hands, lines, observations, best responses, ascent) is in
:mod:`shipwreck_agents.convention.codebook`; this module is the policy that plays and reads it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from shipwreck_agents.convention.codebook import Convention, after_feast, compute_convention
from shipwreck_agents.convention.lines import public_hands
from shipwreck_agents.convention.rescue import way_out
from shipwreck_agents.convention.settings import DEFAULT, ConventionSettings
from shipwreck_agents.scripted.bayes import BayesGroup, _pool_at_start, race_win
from shipwreck_agents.scripted.heuristic import HeuristicPlayer
from shipwreck_agents.scripted.knowledge import literal_posterior, mask_to_array
from shipwreck_env.rules.actions import ACTIONS, PASS
from shipwreck_env.rules.public_record import onlooker_pool
from shipwreck_env.rules.state import State
from shipwreck_env.rules.view import AgentView, TurnStart

__all__ = ["Convention", "ConventionPolicy", "ConventionSettings", "compute_convention", "race_win"]


class ConventionPolicy(BayesGroup):
    """The convention team, for both roles (see the module docstring).

    Args:
        settings: how it values and searches its code
            (:class:`~shipwreck_agents.convention.settings.ConventionSettings`; the
            shipped ones by default).
        **options: single settings to change from ``settings`` by name
            (``ConventionPolicy(plan=False)``); an unknown name is refused with the names
            allowed.
    """

    name = "convention"

    def __init__(self, settings: ConventionSettings = DEFAULT, **options: Any) -> None:
        settings = settings.but(**options) if options else settings
        super().__init__(
            model=HeuristicPlayer(),
            info_value=settings.info_value,
            power_cost=settings.power_cost,
            accuracy=settings.accuracy,
            fail_doom=settings.fail_doom,
        )
        self.settings = settings
        self._rescues: dict[tuple[int, int], int] = {}  # the play after a rescuing power
        self._carry: dict[tuple[int, int, int], tuple[float, ...]] = {}
        self._lines: dict[tuple[int, int], tuple[int, int, int, int]] = {}
        self._kept_first: dict[tuple[int, int], int] = {}  # the fate a Feast play kept

    def reset(self) -> None:
        super().reset()
        self._carry.clear()
        self._lines.clear()
        self._kept_first.clear()
        self._rescues.clear()

    # --- the public code of this turn ----------------------------------------------------

    def _memory(self, view: AgentView) -> tuple[float, ...] | None:
        return self._carry.get((view.player, view.active_seat, view.turn - len(view.holding)))

    def _compute(self, view: AgentView, start: TurnStart, carried: bool, like, second: bool):
        return compute_convention(
            view.config, start, view.active_seat, carried, like, self.settings, second_play=second
        )

    def convention(self, view: AgentView) -> Convention:
        """This turn's convention, from the view's public facts and this player's memory."""
        like = self._memory(view) if view.carried_into_turn else None
        return self._compute(view, view.turn_start, view.carried_into_turn, like, False)

    def second_play(self, view: AgentView) -> tuple[Convention, TurnStart, tuple[float, ...]]:
        """The convention of The Feast's second play (the turn's first action was a play on
        The Feast), its table and its likelihood of the fate the first play kept: what
        this turn's convention says of it, read off the first play alone."""
        first, action = self.convention(view), view.turn_actions[0]
        value, _, landed = view.plays[0]
        start = after_feast(view.turn_start, view.active_seat, value, landed)
        pool = onlooker_pool(start)
        m = first.kept_mass(action)
        like = tuple(m[v] / pool[v] if pool[v] > 0 else 0.0 for v in range(7))
        return self._compute(view, start, True, like, True), start, like

    def _remember(
        self,
        view: AgentView,
        convention: Convention,
        start: TurnStart,
        line: tuple[int, int, int, int],
    ) -> None:
        """Store the public likelihood of the kept fate after ``line`` (the power before
        the play or 0, the last play, after-play power or 0, The Thief's steal or 0) of
        ``convention`` on ``start``."""
        pool = onlooker_pool(start)
        m = [0.0] * 7
        for w, kept, shown in zip(
            convention.weights, convention.kept, _lines(convention), strict=True
        ):
            if shown == line:
                m[kept - 1] += w
        like = tuple(m[v] / pool[v] if pool[v] > 0 else 0.0 for v in range(7))
        self._carry[(view.player, view.active_seat, view.turn)] = like

    def _before(self, view: AgentView) -> int:
        """The turn's first action if it is a power before the play that this turn's
        code may hold (Sparrows or Skies with ``pre_play``; Shadows too with
        ``pre_play_shadows``), else 0."""
        actions = view.turn_actions
        if (
            actions
            and ACTIONS[actions[0]].power in self.settings.coded_before
            and not view.feast_done
        ):
            return actions[0] if self.settings.pre_play_at(view.turn_start.doom) else 0
        return 0

    def _covered(self, view: AgentView) -> bool:
        """Does the convention describe this turn so far (its plays first, or a power
        the code holds and then one play)?"""
        first = 1 if self._before(view) else 0
        plays = 2 if view.feast_done else 1
        actions = view.turn_actions[first:]
        return len(actions) >= plays and all(ACTIONS[a].kind == "play" for a in actions[:plays])

    def _observed_line(self, view: AgentView) -> tuple[int, int, int, int]:
        """This turn's line as the convention names it: (power before the play or 0,
        last play, after-play power (Shells, Sinners) or 0, The Thief's steal or 0)."""
        before = self._before(view)
        plays = (2 if view.feast_done else 1) + (1 if before else 0)
        power = steal = 0
        for action in view.turn_actions[plays:]:
            spec = ACTIONS[action]
            if spec.power in ("shells", "sinners"):
                power = action
            elif spec.kind == "steal":
                steal = action
        return before, view.turn_actions[plays - 1], power, steal

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

    @staticmethod
    def hand_key(view: AgentView) -> tuple[int, int]:
        """The active seat's hand as the code lists it (:meth:`Convention.index`): the
        carried fate first when one was carried into the turn, else the two values in
        order. ``view`` is the active player's own, at the turn's first play."""
        hand = view.my_hands[view.my_seats.index(view.active_seat)]
        if view.carried_into_turn:
            c = view.my_carried or hand[0]
            return (c, hand[1] if hand[0] == c else hand[0])
        return (min(hand), max(hand))

    def _play(self, observation, mask, view: AgentView, rng, legal: tuple[int, ...]) -> int:
        if view.phase == "play" and not view.plays and not view.power_used:
            convention = self.convention(view)
            key = self.hand_key(view)
            i = convention.index(key)
            if i >= 0 and (convention.before[i] or convention.choice[i]) in legal:
                out = self._way_out(view, convention.payoff[i], key)
                if out is not None:
                    self._rescues[(view.player, view.turn)] = out[1]
                    if ACTIONS[
                        out[0]
                    ].power in self.settings.coded_before and self.settings.pre_play_at(
                        view.turn_start.doom
                    ):
                        # the group reads this turn by the code too: remember it alike
                        self._remember(view, convention, view.turn_start, (*out, 0, 0))
                    return out[0]
                line = (
                    convention.before[i],
                    convention.choice[i],
                    convention.power[i],
                    convention.steal[i],
                )
                if line[0]:
                    self._remember(view, convention, view.turn_start, line)
                    self._lines[(view.player, view.turn)] = line
                    return line[0]
                target = ACTIONS[line[1]].slot
                if target < len(view.slots) and view.slots[target] == "feast":
                    # the second play's convention reads what this play kept
                    self._kept_first[(view.player, view.turn)] = convention.kept[i]
                else:
                    self._remember(view, convention, view.turn_start, line)
                self._lines[(view.player, view.turn)] = line
                return line[1]
        planned = self._rescues.get((view.player, view.turn))
        if view.phase == "play" and planned in legal and not view.plays:
            return planned
        line = self._lines.get((view.player, view.turn))
        if view.phase == "play" and line and line[0] and not view.plays and line[1] in legal:
            return line[1]
        kept = self._kept_first.get((view.player, view.turn))
        if view.phase == "play" and kept and len(view.turn_actions) == 1:
            convention, start, _ = self.second_play(view)
            hand = view.my_hands[view.my_seats.index(view.active_seat)]
            i = convention.index((kept, hand[1] if hand[0] == kept else hand[0]))
            if i >= 0 and convention.choice[i] in legal:
                line = (0, convention.choice[i], convention.power[i], convention.steal[i])
                self._remember(view, convention, start, line)
                self._lines[(view.player, view.turn)] = line
                return line[1]
        if view.phase in ("after_play", "steal"):
            line = self._lines.get((view.player, view.turn))
            planned = line[2 if view.phase == "after_play" else 3] if line is not None else 0
            if planned and planned in legal and self._covered(view):
                return planned
        if view.phase in ("play", "steal"):
            return self.model.act(observation, mask, view, rng)
        return PASS if PASS in legal else int(legal[0])

    def _way_out(
        self, view: AgentView, payoff: float, hand: tuple[int, int]
    ) -> tuple[int, int] | None:
        """A power before the play and the play after it
        (:func:`~shipwreck_agents.convention.rescue.way_out`) that the number line alone
        reads or that fade nothing, when the convention's line is worth less to this hand
        than a turn the group passes at no doom, less the power's price (with
        ``rescue_score``, also a sure reading when the line would not score); else
        ``None``."""
        if not self.settings.rescue:
            return None
        race = (self.settings.accuracy, self.settings.fail_doom)
        calm = race_win(view.score, view.doom, *race) + self.info_value
        if payoff < calm - self.power_cost:
            return way_out(view, hand, view.carried_into_turn, self.settings.rescue_read)
        if (
            self.settings.rescue_score
            and payoff < race_win(view.score + 1, view.doom, *race) - self.power_cost
        ):
            return way_out(view, hand, view.carried_into_turn, certain=True, calm=False)
        return None

    # --- the group's reading -------------------------------------------------------------

    def posterior(self, view: AgentView) -> np.ndarray:
        """P(active seat's kept fate = v + 1) under the convention, from this player's
        view (its own pool), restricted to the number line."""
        seat = view.active_seat
        if view.holding[seat] != 1:
            return np.zeros(7)
        posterior = self.reading(view)
        if posterior.sum() <= 0:
            posterior = literal_posterior(view.lines[seat], view.unseen)
        return posterior / posterior.sum()

    def reading(self, view: AgentView) -> np.ndarray:
        """The unnormalised mass, by kept value, of the hands whose line under this
        turn's code shows what the active seat did, weighted by this player's own pool
        and restricted to the number line: all zeros when the seat does not hold one
        fate, when the code does not cover the turn, or when no hand the code and the
        line allow shows it (a play the convention never makes). Also remembers what
        the line says of the kept fate, as :meth:`posterior` does."""
        seat = view.active_seat
        line = mask_to_array(view.lines[seat])
        if view.holding[seat] != 1:
            return np.zeros(7)
        m = np.zeros(7)
        if self._covered(view):
            observed = self._observed_line(view)
            pool = _pool_at_start(view)
            if view.feast_done:
                convention, start, like = self.second_play(view)
                carried = True
                pool[view.plays[0][0] - 1] = max(0, pool[view.plays[0][0] - 1] - 1)
            else:
                convention, start = self.convention(view), view.turn_start
                carried = view.carried_into_turn
                like = self._memory(view) if carried else None
            self._remember(view, convention, start, observed)
            private = dict(public_hands(start, seat, carried, like, pool))
            for hand, kept, shown in zip(
                convention.hands, convention.kept, _lines(convention), strict=True
            ):
                if shown == observed:
                    m[kept - 1] += private.get(hand, 0.0)
        return m * line


def _lines(convention: Convention) -> zip:
    """Each hand's line of play: (power before the play or 0, first play, after-play power
    or 0, steal or 0)."""
    return zip(
        convention.before, convention.choice, convention.power, convention.steal, strict=True
    )
