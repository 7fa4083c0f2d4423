"""Type inference at play time: a group (and a player) that works out which kind of
partner it sits with, from that partner's own plays, and reads and signals under the
resulting mixture. Scripted Bayesian reasoning; nothing is trained.

The library. Each *type* is a model of how an active player plays: uniformly random
legal play (``uniform``), the heuristic player (``heuristic``,
:mod:`shipwreck_agents.scripted.heuristic`) and the convention player (``convention``,
:class:`~shipwreck_agents.convention.team.ConventionPolicy`), and the shipped learned
team's play network (``fast``, :class:`NetworkReader`: its probabilities, in the games it
was trained for; elsewhere it has prior 0). Each type owns a
:class:`~shipwreck_agents.scripted.bayes.BayesGroup` with that model, which replays the public turn
for every hand the active seat could hold and scores the observed actions (mixed with
``epsilon`` of uniform play, so a deviation is never impossible). The sum over kept fates
of that group's unnormalised posterior (times the number line) is the probability of the
turn's observations under the type: the turn's *evidence*.

The group. Per (reading player, partner seat) it keeps a log posterior over types,
starting from ``prior``. At a group decision on seat ``s``'s turn, the kept-fate
posterior is ``sum_m P(m | earlier turns) * joint_m`` normalised, where ``joint_m`` is type
``m``'s unnormalised posterior for this turn: the exact Bayesian answer for a partner
whose type is one of the library's. When a later turn is seen, the last evidence of
``s``'s turn is folded into its type posterior (once per finished turn). The decision
(predict, pass, use a power) is :class:`BayesGroup`'s expected-value rule on that
mixture. With a one-type library the group decides exactly as that type's BayesGroup.

The player. In the play phase, for each legal first play it builds the turn as the
table would see it after the play (its true hand; no other hidden fates) and asks each
type's reader what it would then believe about the kept fate; the play's value is the
type-weighted mass on the true kept fate, less :class:`HeuristicPlayer`'s fade penalty.
The weights are the type posterior of the partner who reads it (the leader; in vote
mode every partner) if this player has watched that partner, else the pooled evidence
of every partner it has watched. In a 3-player leader game a player only decides on
its predecessor's turns; it sees its own reader play only when the driver lets it watch
the turns it does not decide on (:meth:`TypeGroup.watch`, called through
:func:`~shipwreck_env.envs.policy.let_watch` by the evaluator, the play table and the
single-agent env). Without that it assumes the table's strangers are alike. Ties, plays it cannot score (The Feast's first play) and
every other decision of the active player go to the heuristic player. The readers used
for signalling keep no memory between turns (a carried fate is read from the pool), so
they use only public facts.

What it must not do: read hidden facts. It sees only its :class:`AgentView`; every
memory is keyed by the reading player and starts empty in each game (:meth:`reset`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch

from shipwreck_agents.convention.team import ConventionPolicy
from shipwreck_agents.scripted.bayes import BayesGroup, RaceTable, replay_decision
from shipwreck_agents.scripted.heuristic import HeuristicPlayer
from shipwreck_agents.scripted.knowledge import (
    doom_of_fades,
    fading_slots,
    literal_posterior,
    mask_to_array,
)
from shipwreck_agents.scripted.simple import RandomPolicy
from shipwreck_agents.search.listening import (
    ENDINGS,
    PlayedTurn,
    ending_likelihood,
    note_turn,
    outcome_seen,
)
from shipwreck_agents.spec_text import spec_number
from shipwreck_env.envs.policy import BatchedPartner, Policy
from shipwreck_env.rules.actions import ACTIONS, HOURS_TARGET
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import step_inplace
from shipwreck_env.rules.observation import ObservationLayout, encode
from shipwreck_env.rules.scenario import ForcedDraws, hypothetical_turn_start
from shipwreck_env.rules.state import State
from shipwreck_env.rules.view import AgentView, make_view

__all__ = [
    "DEFAULT_TYPES",
    "KNOWN_TYPES",
    "PLAY_VALUES",
    "SCRIPTED_TYPES",
    "NetworkReader",
    "SelfModel",
    "TypeGroup",
    "TypeReader",
    "make_leader",
    "make_reader",
    "only_watched",
]

SCRIPTED_TYPES = ("uniform", "heuristic", "convention")
"""The scripted types, by name (:func:`make_reader`): the library before a learned
network joined it, and the ally's (:mod:`shipwreck_agents.search.ally`)."""

DEFAULT_TYPES = (*SCRIPTED_TYPES, "fast")
"""The library's types, by name (:func:`make_reader`): the scripted ones and the shipped
learned team's network, which has a say only in the games it was trained for."""

_READINGS: dict[tuple, np.ndarray] = {}
"""Signal readers' readings of the candidate plays of one public turn
(:meth:`TypeGroup._readings_of`), shared by every type-inference player of the process."""
_READINGS_TURN: list = [None]
"""The public turn :data:`_READINGS` holds: (config, turn start, active seat)."""

PLAY_VALUES = ("mass", "race")
"""How :meth:`TypeGroup.play_values` values a signalling play (``play_value``)."""

KNOWN_TYPES = (*DEFAULT_TYPES, "self")
"""Every type :func:`make_reader` knows: the default library's and ``self``, a player of
this team itself (:class:`SelfModel`), which a library may add."""


class TypeReader(BayesGroup):
    """A BayesGroup for one partner type that also hands out the turn's unnormalised
    posterior (:meth:`joint`), whose sum is the evidence for the type."""

    def __init__(self, type_name: str, model: Policy, epsilon: float) -> None:
        super().__init__(model=model, epsilon=epsilon)
        self.type_name = type_name
        self._last_part = np.zeros(7)

    def _model_posterior(self, view: AgentView) -> np.ndarray:
        # BayesGroup.posterior caches exactly one entry, the last computed here, so
        # after posterior() this is the model part it used.
        self._last_part = super()._model_posterior(view)
        return self._last_part

    def supports(self, config: GameConfig) -> bool:
        """Can this type stand for a player of ``config``'s game? (A scripted type can.)"""
        return True

    def joint(self, view: AgentView) -> np.ndarray:
        """P(the turn's observed actions, kept fate = v + 1 | this type), v = 0..6, from
        this player's knowledge (zeros when the active seat does not hold one fate).
        Also updates the reader's own memory of the seat's carried fate."""
        if self.posterior(view).sum() <= 0:
            return np.zeros(7)
        return self._last_part * mask_to_array(view.lines[view.active_seat])


class _ConventionModel(ConventionPolicy):
    """The convention player as a model the replay can ask about hypothetical hands.

    The convention's code on a carried turn depends on the public likelihood its last
    turn left; the replay asks with the active player's (hypothetical) view, so the code
    is looked up under the reading player's memory (``reader``), which the reading
    player's own call of :meth:`posterior` on the real view keeps. The memory a play
    leaves for the rest of its turn is cleared at each hand's first decision, so one
    hand's line never leaks into another's replay.
    """

    reader: int = -1

    def _memory(self, view: AgentView) -> tuple[float, ...] | None:
        return self._carry.get((self.reader, view.active_seat, view.turn - len(view.holding)))

    def act(self, observation, mask, view: AgentView, rng, state: State | None = None) -> int:
        if not view.turn_actions:
            key = (view.player, view.turn)
            for memory in (self._rescues, self._lines, self._kept_first):
                memory.pop(key, None)
        return super().act(observation, mask, view, rng, state)


class _ConventionReader(TypeReader):
    """The convention type: keeps the convention's code memory beside the replay."""

    model: _ConventionModel

    def joint(self, view: AgentView) -> np.ndarray:
        self.model.reader = view.player
        self.model.posterior(view)  # records the public likelihood this turn leaves
        return super().joint(view)

    def reset(self) -> None:
        super().reset()
        self.model.reset()


class NetworkReader(TypeReader):
    """A learned team's play network as a type (``fast``: the shipped ``fast:best``).

    The probability of each action the replayed active player takes is the network's
    softmax over the legal actions, on the observation the engine's encoder gives that
    player in the replayed state (its hypothetical hand, the public rest), mixed with
    ``epsilon`` of uniform play. The softmax rather than the network's greedy choice: a
    stranger trained another way ranks near-equal plays differently, and a type that
    calls such a play impossible would drop out at once. Only the games the network was
    trained for are read (:meth:`supports`); in others the type has no say.
    """

    def __init__(self, type_name: str, path: str, epsilon: float) -> None:
        super().__init__(type_name, RandomPolicy(), epsilon)  # the model is the network
        from shipwreck_agents.learned.actor_critic import load_sb3
        from shipwreck_agents.learned.sb3 import check_game, read_meta

        key = str(Path(path).resolve())
        if key not in _NETWORKS:  # one copy a process: every library reads it, none trains it
            _NETWORKS[key] = load_sb3(path), read_meta(path)
        self.network, self._meta = _NETWORKS[key]
        self._check_game = check_game
        self._supported: dict[GameConfig, bool] = {}
        self._layouts: dict[GameConfig, ObservationLayout] = {}

    def supports(self, config: GameConfig) -> bool:
        if config not in self._supported:
            try:
                self._check_game(self._meta, config, self.type_name)
                self._supported[config] = True
            except ValueError:
                self._supported[config] = False
        return self._supported[config]

    def joint(self, view: AgentView) -> np.ndarray:
        if not self.supports(view.config):
            return np.zeros(7)
        return super().joint(view)

    def _chance(self, state: State, legal: list[int], action: int, decisions: dict) -> float:
        config = state.config
        layout = self._layouts.get(config)
        if layout is None:
            layout = self._layouts[config] = ObservationLayout.for_config(
                config, bool(self._meta.get("belief", False))
            )
        _, key = replay_decision(state)
        probabilities = decisions.get(key)
        if probabilities is None:
            obs = torch.from_numpy(encode(state, state.active_player, layout)[None])
            mask = torch.zeros((1, len(ACTIONS)), dtype=torch.bool)
            mask[0, legal] = True
            with torch.no_grad():
                logits = self.network.logits(obs, mask)[0]
            probabilities = decisions[key] = torch.softmax(logits, -1).numpy()
        chance = float(probabilities[action])
        return (1 - self.epsilon) * chance + self.epsilon / len(legal)


_NETWORKS: dict[str, tuple] = {}  # resolved path -> (network, metadata), for NetworkReader


def make_leader(type_name: str) -> Policy | None:
    """The group of the team a library type stands for, deciding as that team's leader
    would (for :meth:`TypeGroup.listen`): the heuristic player's Bayesian group, the
    convention's group, the shipped learned team (its own instance: a replay resets it);
    ``None`` for ``uniform``, which explains every ending alike.

    Raises:
        ValueError: an unknown type name.
    """
    type_name = split_type(type_name)[0]  # a careless version leads as the careful one
    if type_name == "uniform":
        return None
    if type_name == "heuristic":
        return BayesGroup()
    if type_name == "convention":
        return ConventionPolicy()
    if type_name == "fast":
        from shipwreck_agents.learned.fast_team import FastTeamPolicy
        from shipwreck_agents.models import model_path

        return FastTeamPolicy(str(model_path("best")))
    if type_name == "self":
        return TypeGroup()
    raise ValueError(f"type {type_name!r} is not known; allowed: {', '.join(KNOWN_TYPES)}")


def split_type(type_name: str) -> tuple[str, float | None]:
    """``T@E`` -> (``T``, E), a library type mixed with its own ``E`` of uniform play
    (a careless version of ``T``); a plain ``T`` -> (``T``, None).

    Raises:
        ValueError: an ``E`` that is not a number from 0 to 1.
    """
    base, at, text = type_name.partition("@")
    if not at:
        return type_name, None
    return base, spec_number(type_name, text, 0.0, 1.0, what="type")


def make_reader(type_name: str, epsilon: float = 0.05) -> TypeReader:
    """The reader of one library type: ``uniform`` (every legal action alike),
    ``heuristic``, ``convention``, ``fast`` (the shipped learned team's play network,
    :class:`NetworkReader`) or ``self`` (a type-inference player, :class:`SelfModel`),
    each mixed with ``epsilon`` of uniform play; ``T@E`` is type ``T`` mixed with ``E``
    instead (:func:`split_type`), a careless version of it beside the careful one.

    Raises:
        ValueError: an unknown type name or an epsilon outside [0, 1].
    """
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"epsilon {epsilon!r} is not allowed; allowed: 0 to 1")
    base, own = split_type(type_name)
    if own is not None:
        if base in ("uniform", "self"):
            raise ValueError(
                f"type {type_name!r} is not allowed: '@' makes a careless version of "
                "heuristic, convention or fast"
            )
        reader = make_reader(base, own)
        reader.type_name = type_name
        return reader
    if type_name == "uniform":
        return TypeReader(type_name, RandomPolicy(), epsilon=1.0)
    if type_name == "heuristic":
        return TypeReader(type_name, HeuristicPlayer(), epsilon)
    if type_name == "convention":
        return _ConventionReader(type_name, _ConventionModel(), epsilon)
    if type_name == "fast":
        from shipwreck_agents.models import model_path

        return NetworkReader(type_name, str(model_path("best")), epsilon)
    if type_name == "self":
        return TypeReader(type_name, SelfModel(epsilon), epsilon)
    raise ValueError(f"type {type_name!r} is not known; allowed: {', '.join(KNOWN_TYPES)}")


class TypeGroup(BayesGroup):
    """See the module docstring. One object plays both roles (a team of one policy).

    Args:
        types: the library, by name (:data:`DEFAULT_TYPES`).
        prior: prior probability of each type (uniform by default).
        epsilon: uniform play mixed into the heuristic and convention models.
        info_value, power_cost, accuracy, fail_doom, race_table: as in
            :class:`BayesGroup` (the value of the race its decisions weigh: the rough one
            by default).
        play_value: how a signalling play is valued (:meth:`play_values`): ``"mass"``, the
            type-weighted mass the readers put on the kept fate less the heuristic's fade
            penalty; ``"race"``, the type-weighted race value of the reply each reader's
            group would make, by this group's own rule and race.
        signal: choose plays by the mixture's reading (else play like the heuristic).
        margin: leave the heuristic's play only for a play valued this much higher
            (0.1 measured best of 0 and 0.1: docs/type-inference.md).
        watch: keep evidence on the partners whose turns this player only watches
            (:meth:`watch`), so it knows its own reader.
        listen: keep evidence on the leader of each of this player's turns from how it
            ended the turn (:meth:`listen`; leader mode; off by default until measured).
        quiet: library types left out of the weights the player signals to (still read
            by, and believed of partners): its plays are chosen for the other types'
            readings, renormalised (when only quiet types have weight, all types count).
    """

    name = "types"

    def __init__(
        self,
        types: Sequence[str] = DEFAULT_TYPES,
        prior: Sequence[float] | None = None,
        epsilon: float = 0.05,
        info_value: float = 0.01,
        power_cost: float = 0.005,
        signal: bool = True,
        margin: float = 0.1,
        watch: bool = True,
        listen: bool = False,
        quiet: Sequence[str] = (),
        accuracy: float = 0.0,
        fail_doom: int = 1,
        race_table: RaceTable | None = None,
        play_value: str = "mass",
    ) -> None:
        if play_value not in PLAY_VALUES:
            raise ValueError(
                f"play_value {play_value!r} is not allowed; allowed: {', '.join(PLAY_VALUES)}"
            )
        self.play_value = play_value
        super().__init__(
            model=HeuristicPlayer(),
            epsilon=epsilon,
            info_value=info_value,
            power_cost=power_cost,
            accuracy=accuracy,
            fail_doom=fail_doom,
            race_table=race_table,
        )
        self.types = tuple(types)
        if not self.types or len(set(self.types)) != len(self.types):
            raise ValueError(f"types {list(types)!r} are not allowed; allowed: distinct names")
        unknown = [t for t in quiet if t not in self.types]
        if unknown:
            raise ValueError(
                f"quiet types {unknown!r} are not allowed; allowed: types of the library "
                f"{list(self.types)}"
            )
        self.loud = np.array([t not in quiet for t in self.types])
        self.readers = [make_reader(t, epsilon) for t in self.types]
        self._signal_readers = [make_reader(t, epsilon) for t in self.types]
        weights = np.ones(len(self.types)) if prior is None else np.asarray(prior, dtype=float)
        if weights.shape != (len(self.types),) or not np.all(weights >= 0) or weights.sum() <= 0:
            raise ValueError(
                f"prior {prior!r} is not allowed; allowed: {len(self.types)} non-negative "
                "weights, not all zero"
            )
        with np.errstate(divide="ignore"):  # a type the prior rules out: log 0
            self.log_prior = np.log(weights / weights.sum())
        self._game_priors: dict[GameConfig, np.ndarray] = {}
        self._game_prior = self.log_prior
        self.signal = signal
        if not 0.0 <= margin <= 1.0:
            raise ValueError(f"margin {margin!r} is not allowed; allowed: 0 to 1")
        self.margin = margin
        self.watching = watch
        self.listening = listen
        self._leaders = [make_leader(t) for t in self.types] if listen else []
        self._played: dict[int, PlayedTurn] = {}  # player -> its last turn, as it played it
        self._watched: set[tuple[int, int]] = set()
        self._evidence: dict[tuple[int, int], np.ndarray] = {}  # summed log evidence
        self._pending: dict[tuple[int, int], tuple[int, np.ndarray]] = {}

    def reset(self) -> None:
        super().reset()
        for reader in (*self.readers, *self._signal_readers):
            reader.reset()
        self._evidence.clear()
        self._pending.clear()
        self._watched.clear()
        self._played.clear()

    def batched(self, num_games: int, config: GameConfig, decisions: str) -> BatchedPartner | None:
        """No compiled twin (BayesGroup's twin would model one type only)."""
        return None

    # --- the type posterior --------------------------------------------------------------

    def _commit(self, player: int, turn: int) -> None:
        """Fold the evidence of every finished turn ``player`` watched into its posteriors."""
        for key in [k for k, (t, _) in self._pending.items() if k[0] == player and t < turn]:
            _, log_evidence = self._pending.pop(key)
            if np.isfinite(log_evidence).any():
                self._evidence[key] = self.log_evidence(*key) + log_evidence

    def log_evidence(self, player: int, seat: int) -> np.ndarray:
        """Log P(the finished turns of ``seat`` that ``player`` watched | type), by type."""
        return self._evidence.get((player, seat), np.zeros(len(self.types)))

    def _meet(self, config: GameConfig) -> None:
        """Play ``config``'s game: a type that cannot stand for its players (a network
        trained for another game) gets prior 0, the others share its weight."""
        prior = self._game_priors.get(config)
        if prior is None:
            supported = [reader.supports(config) for reader in self.readers]
            prior = np.where(supported, self.log_prior, -np.inf)
            if not np.isfinite(prior).any():
                raise ValueError(
                    f"types {list(self.types)!r} cannot play this game ({config}); allowed: "
                    "a library with a scripted type"
                )
            prior = self._game_priors[config] = _normalised(prior)
        self._game_prior = prior

    def log_post(self, player: int, seat: int) -> np.ndarray:
        """Log P(type) of ``seat`` for ``player`` from the finished turns it watched."""
        return _normalised(self._game_prior + self.log_evidence(player, seat))

    def type_posterior(self, player: int, seat: int) -> np.ndarray:
        """P(type) of ``seat``'s player as ``player`` has concluded so far."""
        return np.exp(self.log_post(player, seat))

    def posterior(self, view: AgentView) -> np.ndarray:
        """P(active seat's kept fate = v + 1) under the type mixture (see the module
        docstring), from this player's knowledge."""
        seat = view.active_seat
        if sum(view.holding[seat : seat + 1]) != 1:
            return np.zeros(7)
        self._meet(view.config)
        self._commit(view.player, view.turn)
        joints = [reader.joint(view) for reader in self.readers]
        with np.errstate(divide="ignore"):
            log_evidence = np.log([j.sum() for j in joints])
        self._pending[(view.player, seat)] = (view.turn, log_evidence)
        weights = np.exp(self.log_post(view.player, seat))
        mixture = 0.0
        for weight, joint in zip(weights, joints, strict=True):
            mixture = mixture + weight * joint
        total = float(np.sum(mixture))
        if total <= 0:
            posterior = literal_posterior(view.lines[seat], view.unseen)
            return posterior / posterior.sum()
        return mixture / total

    def watch(self, view: AgentView) -> None:
        """A turn this player neither plays nor decides on (leader mode): at its first
        group decision, note the turn's evidence on the active partner's type, as the
        leader does (folded in when a later turn is seen). Other views are ignored."""
        self.listen(view)
        key = (view.player, view.turn)
        if self.watching and only_watched(view) and key not in self._watched:
            self._watched.add(key)
            self.posterior(view)

    # --- the player ----------------------------------------------------------------------

    def act(self, observation, mask, view: AgentView, rng, state: State | None = None) -> int:
        self._meet(view.config)
        self.listen(view)
        if view.decider == view.active_player:
            self._commit(view.player, view.turn)
            action = self.model.act(observation, mask, view, rng)
            if self.signal and view.phase == "play" and not view.turn_actions:
                action = self._signal(view, action)
            self._note_turn(view, action)
            return action
        return super().act(observation, mask, view, rng, state)

    # --- listening: how the leader ended this player's turn ------------------------------

    def _note_turn(self, view: AgentView, action: int) -> None:
        """Record this player's own turn (its first view, hand, every action it takes)
        for :meth:`listen`."""
        if not self.listening or view.config.group_decision != "leader" or view.phase == "cost":
            return
        self._played[view.player] = note_turn(self._played.get(view.player), view, action)

    def listen(self, view: AgentView) -> None:
        """Once ``view`` (any later view of this player's) shows how the leader ended the
        player's last turn (passed, predicted right or wrong:
        :func:`~shipwreck_agents.search.listening.outcome_seen`), add to the evidence on
        that leader's type the log probability of that ending under each type: the turn
        replayed with the group of the team the type stands for (:func:`make_leader`)
        deciding, over the fates the leader may hold
        (:func:`~shipwreck_agents.search.listening.ending_likelihood`), mixed with
        ``epsilon`` of a uniform ending; 1/3 for ``uniform``. Only turns that carried
        nothing in: on a carried turn the leader's reading rests on its own memory of the
        player's last turn, which a replay does not have. A turn that cannot be replayed
        (The Feast, Sparrows) or whose ending the view does not show adds nothing."""
        me = view.player
        played = self._played.get(me)
        if played is None or view.turn <= played.start.turn:
            return
        del self._played[me]
        seen = outcome_seen(played, view)
        if seen is None or played.carried:
            return
        log_likelihood = np.full(len(self.types), -np.log(len(ENDINGS)))
        for i, leader in enumerate(self._leaders):
            if leader is None or not np.isfinite(self._game_prior[i]):
                continue  # explains every ending alike, or ruled out for this game
            likelihood = ending_likelihood(played, seen, leader, self.epsilon)
            if likelihood is None:
                return
            log_likelihood[i] = np.log(likelihood)
        reader = played.start.leader % view.config.num_players
        self._evidence[(me, reader)] = self.log_evidence(me, reader) + log_likelihood

    def reader_weights(self, view: AgentView) -> np.ndarray:
        """P(type) of the partners who read this player's play: the leader's (every
        partner's in vote mode) where this player has watched them, else the pooled
        evidence of every partner it has watched."""
        me = view.player
        if view.config.group_decision == "leader":
            readers = [view.leader % view.config.num_players]
        else:
            readers = [p for p in range(view.config.num_players) if p != me]
        seats = {
            seat for (player, seat) in self._evidence if player == me and seat not in view.my_seats
        }
        per_reader = [
            self.type_posterior(me, seat)
            for seat in seats
            if seat % view.config.num_players in readers
        ]
        if per_reader:
            return np.mean(per_reader, axis=0)
        pooled = self._game_prior + sum((self.log_evidence(me, s) for s in seats), 0.0)
        return np.exp(_normalised(pooled))

    def play_values(self, view: AgentView) -> dict[int, float]:
        """For each legal first play the player can score (not The Feast's): the
        type-weighted mass its reading puts on the kept fate, less the heuristic's
        penalty for the doom of the fades it leaves (``view`` is the active player's);
        with ``play_value="race"``, the type-weighted value of the race after the reply
        each type's reader would make (:meth:`_race_after`)."""
        weights = self.reader_weights(view)
        if (weights * self.loud).sum() > 0:
            weights = weights * self.loud / (weights * self.loud).sum()
        reader = view.leader if view.leader != view.player else (view.player + 1)
        reader %= view.config.num_players
        hand = view.my_hands[view.my_seats.index(view.active_seat)]
        values: dict[int, float] = {}
        for action in view.legal:
            spec = ACTIONS[action]
            if spec.kind != "play" or (
                spec.slot != HOURS_TARGET and view.slots[spec.slot] == "feast"
            ):
                continue
            read = self._readings_of(view, hand, action, reader, weights)
            if read is None:
                continue
            readings, doom = read
            kept = hand[1] if hand[0] == spec.value else hand[0]
            if self.play_value == "race":
                values[action] = self._race_after(view, readings, weights, kept, doom)
                continue
            reading = float(weights @ readings[:, kept - 1])
            values[action] = reading - self.model.doom_weight * doom * (1.0 - reading)
        return values

    def _race_after(
        self, view: AgentView, readings: np.ndarray, weights: np.ndarray, kept: int, doom: int
    ) -> float:
        """The race value (:meth:`~shipwreck_agents.scripted.bayes.BayesGroup.race_outcomes`,
        this group's race) after a play whose readers believe ``readings`` (float[types, 7])
        and whose fades cost ``doom``, the kept fate being ``kept``: each type's reader
        names its likeliest value when this group's rule would (the right or wrong
        guess's race) and passes otherwise (the race after the fades, plus
        ``info_value``); weighted by ``weights``. Question powers and Sands are left
        out. The value is given in units of the turn's stake, a right guess's race less
        a wrong one's with no fade (0 for a wrong guess with no fade, 1 for a right
        one), the same for every play of the turn, so that ``margin`` reads as it does
        for the mass on the kept fate."""
        calm, right, wrong = self.race_outcomes(view.score, view.doom, doom, config=view.config)
        floor = self.race_outcomes(view.score, view.doom, 0, config=view.config)[2]
        stake = right - floor if right > floor else 1.0
        value = 0.0
        for weight, reading in zip(weights, readings, strict=True):
            total = float(reading.sum())
            if weight <= 1e-6 or total <= 0:
                value += weight * calm
                continue
            guess = int(np.argmax(reading))
            sure = float(reading[guess]) / total
            if sure * right + (1.0 - sure) * wrong > calm:
                value += weight * (right if guess + 1 == kept else wrong)
            else:
                value += weight * calm
        return (value - floor) / stake

    def _readings_of(
        self, view: AgentView, hand: tuple[int, ...], action: int, reader: int, weights: np.ndarray
    ) -> tuple[np.ndarray, int] | None:
        """After the active player, holding ``hand``, takes first play ``action``: each
        signal reader's posterior as ``reader`` would see the turn (float[types, 7], rows
        of types with no weight at 0) and the doom of the fades it leaves; ``None`` when
        the play cannot be scored (the turn cannot be replayed, or it leaves the seat
        without one fate). Both rest on public facts only (each reader starts with no
        memory) and are the same for every hand that can make the play and for every
        player who asks, so they are kept (:data:`_READINGS`) under the public turn, the
        play, the reader and the type: :class:`SelfModel` asks for every hand of a turn."""
        turn = (view.config, view.turn_start, view.active_seat)
        if _READINGS_TURN[0] != turn:
            _READINGS.clear()
            _READINGS_TURN[0] = turn
        where = (tuple(view.turn_actions), action, reader)
        if where not in _READINGS:
            after = _view_after(view, hand, action, reader)
            scored = after is not None and after.holding[view.active_seat] == 1
            _READINGS[where] = (
                (after, doom_of_fades(after, fading_slots(after))) if scored else None
            )
        if _READINGS[where] is None:
            return None
        after, doom = _READINGS[where]
        out = np.zeros((len(self.types), 7))
        for i, (name, signal_reader) in enumerate(
            zip(self.types, self._signal_readers, strict=True)
        ):
            if weights[i] <= 1e-6:
                continue
            key = (*where, name, self.epsilon)
            reading = _READINGS.get(key)
            if reading is None:
                signal_reader.reset()  # public facts only: no memory of past turns
                reading = _READINGS[key] = signal_reader.posterior(after)
            out[i] = reading
        return out, doom

    def _signal(self, view: AgentView, heuristic: int) -> int:
        """The play of highest :meth:`play_values`; ties (within ``margin``) and plays it
        cannot score go to ``heuristic``."""
        values = self.play_values(view)
        best = max(values.values(), default=0.0)
        if heuristic not in values or values[heuristic] >= best - self.margin - 1e-9:
            return heuristic
        return max(values, key=lambda a: (values[a], -a))


class SelfModel(Policy):
    """A player of this team as a library type (``self``): the heuristic player's
    decisions, its first play of a turn replaced by the signal a type-inference player
    of the default library (:data:`DEFAULT_TYPES`, margin 0.1) makes when it has no
    evidence on its reader yet (the library's prior weights). A reader of this type can
    so invert the team's own signals. It keeps no memory between turns: the readings
    of the turn's candidate plays, public facts only, are shared by every hand the
    replay asks about (:meth:`TypeGroup._readings_of`)."""

    name = "self"

    def __init__(self, epsilon: float = 0.05) -> None:
        self.inner = TypeGroup(types=DEFAULT_TYPES, epsilon=epsilon)
        self._turn: tuple | None = None
        self._chosen: dict[tuple, int] = {}

    def reset(self) -> None:
        self.inner.reset()
        self._turn, self._chosen = None, {}

    def act(self, observation, mask, view: AgentView, rng, state: State | None = None) -> int:
        # A reader replays the same hands once for every play it weighs: each choice is
        # kept for the public turn, under what the replayed player knows.
        turn = (view.config, view.turn_start, view.active_seat)
        if self._turn != turn:
            self._turn, self._chosen = turn, {}
        key = (
            tuple(view.turn_actions),
            view.phase,
            view.my_hands,
            view.my_carried,
            len(view.events),
            view.lines,
        )
        chosen = self._chosen.get(key)
        if chosen is None:
            self.inner._meet(view.config)
            chosen = self.inner.model.act(observation, mask, view, rng)
            if view.phase == "play" and not view.turn_actions:
                chosen = self.inner._signal(view, chosen)
            self._chosen[key] = chosen
        return chosen


def only_watched(view: AgentView) -> bool:
    """Is ``view`` a group decision (leader mode) of a turn its player neither plays nor
    decides on: one it can only watch?"""
    me = view.player
    return (
        view.config.group_decision == "leader"
        and view.phase == "group"
        and view.active_player != me
        and view.leader % view.config.num_players != me
    )


def _normalised(log_weights: np.ndarray) -> np.ndarray:
    top = np.max(log_weights)
    if not np.isfinite(top):
        return log_weights
    shifted = log_weights - top
    return shifted - np.log(np.exp(shifted).sum())


def _view_after(view: AgentView, hand: tuple[int, ...], action: int, reader: int):
    """``reader``'s view of this turn after the active player (``view.player``, holding
    ``hand``) takes ``action``, on the public turn start with no other hidden fates; or
    ``None`` if the turn cannot be replayed."""
    carried = view.carried_into_turn
    if carried:
        c = view.my_carried or hand[0]
        ordered = (c, hand[1] if hand[0] == c else hand[0])
    else:
        ordered = tuple(hand)
    state = hypothetical_turn_start(view, list(ordered), carried=carried)
    draws = ForcedDraws(state, [])
    try:
        for past in (*view.turn_actions, action):
            step_inplace(state, past, draws, check=False)
    except ForcedDraws.Impossible:
        return None
    return make_view(state, reader)
