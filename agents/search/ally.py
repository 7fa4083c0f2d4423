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

* **its play** (the group decider watching it): the turn opened with a play (a power
  first may be the convention's way out, which leaves its code) and the convention's
  code for the turn shows what the partner did for no hand its number line allows -- the
  convention's exact reading (:meth:`ConventionPolicy.reading`) has no mass at all;
* **the outcome of the reading** (the same decider, on its next decision, when that is the
  very next turn): the prediction it made scored, so the kept fate was the value named,
  and the convention's reading of the play gave that value no mass;
* **its play, watched** (``watch``; a player who neither plays nor decides that turn,
  leader mode, when the driver lets it watch: :func:`~shipwreck_env.envs.policy.let_watch`):
  the same test as the first, on the turns of a partner this player does not read -- in
  a 3-player leader game, exactly its own reader's turns, which it never decides on;
* **its type evidence** (``doubt``, off by default; the leader and the watcher): from
  even odds, the likelihood ratio of the partner's plays under type inference's
  convention type against the mean of its other types (:meth:`AllyTeam.ally_odds`)
  leaves less than ``doubt`` on its being an ally (a judgement, not a proof: it can
  refute a convention player);
* **its reading of our play** (``listen``; the active player, on its next decision,
  leader mode): the leader ended our turn in a way no convention leader could. The
  player sees whether the leader passed (it still holds the fate), missed (the fate is
  gone and no point was scored since) or scored (a point, and no other turn that could
  have scored it ended between); it replays its own turn from the public start with its
  own hand and a convention leader deciding, once for each fate the leader may hold, and
  the leader is refuted if what it did is none of the replays' endings.

Each is a fact about public actions and what the deciding player itself knows (its own
hand, its own predictions), so nothing hidden enters; all but the type evidence are
exact, so they never refute a convention player.

What it does. The group decision on a partner's turn is the convention's while that
partner stands, else type inference's (the posterior over partner types, which the ally
keeps up to date on every turn it watches, in either mode). With ``read=r`` (off by default:
it measured a worse trade, docs/adhoc.md) a standing partner whose chance of being an
ally (as for ``doubt``) is below ``r`` is read by type inference too, without being
refuted. The active player plays the
convention's line while its reader (the leader; every partner in vote mode) stands (with
``pooled``, also only while no partner this player has watched is refuted: in a 3-player
leader game a player never watches its own reader, so a stranger seen anywhere may be
taken as a sign the reader is one too); otherwise it plays as type inference does.
A turn keeps the mode its first decision chose. With ``hedge=q`` (off by default: it
measured within noise of off), once a stranger is seen at the table a player whose reader
stands weighs its first play: the reader is an ally at even odds, times ``1/q`` for each
of the reader's endings a convention leader could give and times the likelihood ratio of
the reader's plays it has seen (:meth:`AllyTeam.ally_odds`), and the play leaves the
convention's line when, so weighed (an ally reads it by the code, a stranger as type
inference's mixture would), another reads better by more than the margin.

What it must not do: read hidden facts. Every memory is keyed by the reading player and
cleared by :meth:`reset`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from shipwreck_agents.base import Policy
from shipwreck_agents.convention.team import ConventionPolicy
from shipwreck_agents.search.listening import (
    PlayedTurn,
    leader_holdings,
    note_turn,
    outcome_seen,
    replay_leader,
)
from shipwreck_agents.search.type_inference import SCRIPTED_TYPES, TypeGroup, only_watched
from shipwreck_env.envs.policy import BatchedPartner
from shipwreck_env.rules.actions import ACTIONS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.state import State
from shipwreck_env.rules.view import AgentView

__all__ = ["AllyTeam"]


class AllyTeam(Policy):
    """See the module docstring. One object plays both roles.

    Args:
        types: type inference's library (the scripted types, :data:`SCRIPTED_TYPES`).
        pooled: a refuted partner anywhere makes this player's plays type inference's
            (off by default: measured worse, docs/adhoc.md).
        listen: refute a leader that ended this player's turn as no convention leader
            could (a replay of the turn).
        margin: type inference's signalling margin.
        doubt: refute a partner whose chance of being an ally, from even odds and its
            plays' likelihood ratio (:meth:`ally_odds`), is below this (0: proofs only).
        hedge: weigh first plays by the chance the reader is an ally once a stranger is
            seen (0: off; else the chance a stranger's ending agrees with the code's).
        read: on the turn of a partner still standing, decide for the group as type
            inference does when the partner's chance of being an ally, from even odds and
            its plays' likelihood ratio (:meth:`ally_odds`), is below this (0: off). Unlike
            ``doubt`` it refutes no one itself (an outcome of the guesses it makes is
            still judged as any guess is).
        watch: test the plays of the partners whose turns this player only watches,
            and keep type inference's evidence on them (:meth:`watch`).
        legible: the convention it plays with its own kind leans its code toward lines
            a reader without the code reads right (the convention's ``legible`` setting;
            0: the shipped convention). Allies must share it: it is part of the code.
    """

    name = "ally"

    def __init__(
        self,
        types: Sequence[str] = SCRIPTED_TYPES,
        pooled: bool = False,
        listen: bool = True,
        margin: float = 0.1,
        doubt: float = 0.0,
        hedge: float = 0.0,
        watch: bool = True,
        read: float = 0.0,
        legible: float = 0.0,
    ) -> None:
        self.convention = ConventionPolicy(legible=legible)
        self.watching = watch
        # its own memory: the decisions' is untouched
        self._watcher = ConventionPolicy(self.convention.settings)
        self._watched: set[tuple[int, int]] = set()
        self.types = TypeGroup(types=types, margin=margin)  # the ally listens itself
        self.pooled = pooled
        self.listen = listen
        self.doubt = doubt
        self.hedge = hedge
        self.read = read
        self._agreed: dict[tuple[int, int], int] = {}  # (player, reader) -> endings agreed
        self._refuted: dict[int, set[int]] = {}
        self._why: dict[tuple[int, int], str] = {}  # (player, partner) -> first evidence
        self._mode: dict[tuple[int, int], bool] = {}  # (player, turn) -> convention?
        self._guess: dict[int, tuple[int, int, np.ndarray, int, int]] = {}
        self._played: dict[int, PlayedTurn] = {}
        # a convention leader, for replays
        self._leader_model = ConventionPolicy(self.convention.settings)

    def reset(self) -> None:
        self.convention.reset()
        self.types.reset()
        self._refuted.clear()
        self._why.clear()
        self._agreed.clear()
        self._mode.clear()
        self._guess.clear()
        self._played.clear()
        self._watcher.reset()
        self._watched.clear()

    def batched(self, num_games: int, config: GameConfig, decisions: str) -> BatchedPartner | None:
        """No compiled twin."""
        return None

    # --- what it believes --------------------------------------------------------------

    def refuted(self, player: int) -> frozenset[int]:
        """The partners ``player`` has seen leave the convention, so far this game."""
        return frozenset(self._refuted.get(player, ()))

    def evidence(self, player: int) -> dict[int, str]:
        """For each partner ``player`` has refuted, the evidence that did it first:
        ``"play"``, ``"watched"``, ``"outcome"``, ``"reader"`` or ``"types"``."""
        return {partner: why for (p, partner), why in self._why.items() if p == player}

    def _refute(self, player: int, partner: int, why: str) -> None:
        """``player`` saw ``partner`` leave the convention (``why``: the evidence)."""
        if partner != player:
            self._refuted.setdefault(player, set()).add(partner)
            self._why.setdefault((player, partner), why)

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
        if played is not None and view.turn > played.start.turn:
            del self._played[me]
            seen = outcome_seen(played, view)
            expected = self._convention_outcomes(played) if seen is not None else None
            reader = played.start.leader % view.config.num_players
            if expected is not None and seen not in expected:
                self._refute(me, reader, "reader")
            elif expected is not None:
                self._agreed[(me, reader)] = self._agreed.get((me, reader), 0) + 1

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
            if self._mode[key] and self.hedge and refuted:
                self._mode[key] = self._hedged(view)
        return self._mode[key]

    def reader_is_ally(self, view: AgentView) -> float:
        """P(this player's reader is one of its own kind), once a stranger is seen at the
        table: even odds, times ``1 / hedge`` for each of the reader's endings a
        convention leader's replay could give (a stranger gives one that often), times
        the likelihood ratio of the reader's watched plays (:meth:`watch`) under type
        inference's convention type against its other types, equally weighted."""
        me, reader = view.player, view.leader % view.config.num_players
        log_odds = self._agreed.get((me, reader), 0) * -np.log(self.hedge)
        self.types._commit(me, view.turn)  # the reader's last watched turn, folded in
        return _chance(log_odds + self.ally_odds(me, reader))

    def _hedged(self, view: AgentView) -> bool:
        """Keep the convention's line this turn (else type inference's play): the line's
        expected reading, the reader an ally with :meth:`reader_is_ally` and a stranger
        read by type inference's mixture otherwise, is within ``margin`` of the best
        play's."""
        if view.phase != "play" or view.plays or view.power_used or view.feast_done:
            return True
        convention = self.convention.convention(view)
        i = convention.index(ConventionPolicy.hand_key(view))
        if i < 0 or convention.before[i] or convention.choice[i] not in view.legal:
            return True
        line = convention.choice[i]
        strangers = self.types.play_values(view)
        if line not in strangers:
            return True
        hand = view.my_hands[view.my_seats.index(view.active_seat)]
        ally = self.reader_is_ally(view)
        best, best_value = line, -np.inf
        values = {}
        for action, stranger in strangers.items():
            spec = ACTIONS[action]
            kept = hand[1] if hand[0] == spec.value else hand[0]
            mass = convention.kept_mass(action)
            total = sum(mass)
            read = mass[kept - 1] / total if total > 0 else 0.0
            values[action] = ally * read + (1.0 - ally) * stranger
            if values[action] > best_value:
                best, best_value = action, values[action]
        return best == line or values[line] >= best_value - self.types.margin

    def ally_odds(self, player: int, partner: int) -> float:
        """Log likelihood ratio of the turns ``player`` has seen ``partner`` play (type
        inference's evidence, folded in up to the last finished turn): its convention
        type against the mean of its other types. 0 when there is no evidence (or no
        convention type); ``-inf`` when the convention type cannot explain them."""
        if "convention" not in self.types.types or len(self.types.types) < 2:
            return 0.0
        log_e = self.types.log_evidence(player, partner)
        conv = self.types.types.index("convention")
        others = np.delete(log_e, conv)
        top = np.max(others)
        if not np.isfinite(top):
            return 0.0
        if not np.isfinite(log_e[conv]):
            return -np.inf
        return float(log_e[conv] - (top + np.log(np.mean(np.exp(others - top)))))

    def _doubt(self, player: int, partner: int) -> None:
        """Refute ``partner`` if ``doubt`` is on and, from even odds, the likelihood
        ratio of its plays (:meth:`ally_odds`) leaves less than ``doubt`` on its being
        one of this player's own kind."""
        if self.doubt and _chance(self.ally_odds(player, partner)) < self.doubt:
            self._refute(player, partner, "types")

    def _doubted(self, player: int, partner: int) -> bool:
        """With ``read`` on: is ``partner``'s chance of being an ally, from even odds and
        its plays' likelihood ratio (:meth:`ally_odds`), below ``read``?"""
        return bool(self.read) and _chance(self.ally_odds(player, partner)) < self.read

    def watch(self, view: AgentView) -> None:
        """A turn this player neither plays nor decides on (leader mode): once the code
        covers it, refute the active partner if no hand its line allows shows what it
        did (the leader's own test, on a watcher's view and memory), and keep type
        inference's evidence on it. Other views are ignored."""
        me, key = view.player, (view.player, view.turn)
        if (
            not self.watching
            or not only_watched(view)
            or key in self._watched
            or view.holding[view.active_seat] != 1
            or view.active_player in self._refuted.get(me, ())
            or not self._watcher._covered(view)
        ):
            return
        self._watched.add(key)
        self._judge(self._watcher, view, "watched")  # on a reader it never decides for

    def _judge(self, convention: ConventionPolicy, view: AgentView, why: str) -> np.ndarray:
        """At a group decision on a partner's turn, by ``convention`` (its memory is the
        one this player keeps for such turns): refute the partner (``why``) if the turn
        opened with a play the code covers and no hand its line allows shows it; if it
        still stands, keep type inference's evidence on it and weigh it (``doubt``).
        Returns the code's reading."""
        me, partner = view.player, view.active_player
        reading = convention.reading(view)
        if (
            convention._covered(view)
            and view.holding[view.active_seat] == 1
            and ACTIONS[view.turn_actions[0]].kind == "play"  # a way out may leave the code
            and reading.sum() <= 0
        ):
            self._refute(me, partner, why)
        if partner not in self._refuted.get(me, ()):
            self.types.posterior(view)  # the type evidence, kept in either mode
            self._doubt(me, partner)
        return reading

    # --- acting ------------------------------------------------------------------------

    def act(self, observation, mask, view: AgentView, rng, state: State | None = None) -> int:
        me = view.player
        self._settle(view)
        if view.decider == view.active_player:
            if self.plays_convention(view):
                action = self.convention.act(observation, mask, view, rng)
            else:
                action = self.types.act(observation, mask, view, rng)
            if (
                self.listen
                and view.config.group_decision == "leader"
                and view.phase != "cost"  # Sails' or Scythes' price, after the group decided
            ):
                self._note_play(view, action)
            return action
        partner = view.active_player
        if view.phase in ("group", "vote"):
            reading = self._judge(self.convention, view, "play")
            if partner in self._refuted.get(me, ()) or self._doubted(me, partner):
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

    def _note_play(self, view: AgentView, action: int) -> None:
        """Keep this turn's first view, hand and every action this player takes in it,
        for :meth:`_convention_outcomes`."""
        me = view.player
        played = self._played.get(me)
        new_turn = played is None or played.start.turn != view.turn
        if new_turn and view.carried_into_turn and not self.plays_convention(view):
            return  # its memory of the carried fate is not the one a reader keeps
        self._played[me] = note_turn(played, view, action)

    def _convention_outcomes(self, played: PlayedTurn) -> set[str] | None:
        """How a convention leader could end the turn ``played`` records: a set of
        :data:`~shipwreck_agents.search.listening.ENDINGS`, one for each fate the leader
        may hold (its own pool changes its reading), found by replaying the turn from its
        public start with this player's own hand, the leader deciding as the convention
        does (its memory of a carried fate is the one this player keeps: the same public
        likelihood); ``None`` if the turn cannot be replayed (it drew a fate this player
        did not record)."""
        start = played.start
        reader = start.leader % start.config.num_players
        before = start.turn - len(start.holding)
        memory = self.convention._carry.get((start.player, start.active_seat, before))

        def prepare(leader: ConventionPolicy) -> None:
            if memory is not None:
                leader._carry[(reader, start.active_seat, before)] = memory

        outcomes = set()
        for value, _ in leader_holdings(start):
            outcome = replay_leader(played, value, self._leader_model, prepare)
            if outcome is None:
                return None
            outcomes.add(outcome)
        return outcomes


def _chance(log_odds: float) -> float:
    """The probability whose log odds are ``log_odds``."""
    return float(1.0 / (1.0 + np.exp(-log_odds)))
