"""Lock-step runs of the batched engine and the reference engine (imported as
``vector_helpers``: pytest puts the tests folder on the path).

:class:`Twins` holds a :class:`~shipwreck_env.vector.VectorGame` and one reference
``State`` per game, each reference game drawing from the batched game's own random
stream (``VectorGame.stream``). Every decision is taken on the reference side -- by a
random legal choice or by a scripted team (``shipwreck_agents``) -- and replayed in the
batched engine; after every step the two are compared field by field. Only the public
API of the batched engine is used (``legal_mask``, ``observe``, ``step``,
``final_info``, ``to_states``, ``from_states``, ``stream``), so the checks stay valid
whatever the engine does inside.

While the games run, :class:`Twins` counts the situations each step went through
(:data:`SITUATIONS`, read from the reference games' public events and states), so that a
test can assert that a rule it means to check was actually reached.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np

from shipwreck_env.envs.policy import Team, decide, observation_layouts
from shipwreck_env.rules.actions import ACTIONS, HOURS_TARGET, predict_action
from shipwreck_env.rules.cards import CARD_INDEX, CARDS, POWER_INDEX
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
from shipwreck_env.rules.observation import encode
from shipwreck_env.rules.powers import CARD_POWER
from shipwreck_env.rules.rewards import team_reward
from shipwreck_env.rules.state import PHASES, Phase, State
from shipwreck_env.vector import VectorGame
from shipwreck_env.vector.chance import StreamGenerator, game_keys

__all__ = [
    "SITUATIONS",
    "Mismatch",
    "Twins",
    "fall_after_sails",
    "first_difference",
    "lucky_chooser",
    "random_chooser",
    "sparing_chooser",
    "sweep_rules",
    "team_chooser",
]

SITUATIONS: dict[str, str] = {
    "play": "a fate played",
    "hours_play": "a fate played on The Hours",
    "hours_no_card": "a fate played on The Hours with no card in play (it goes to the bag)",
    "empty_bag_draw": "a draw from an empty bag (the table's fates go back first)",
    "exiled_to_bag": "an empty bag and an empty table: the exiled fates go back",
    "empty_deck": "a step that ends with the deck empty",
    "deck_cycled": "a card put under the deck after more cards than the game holds went "
    "into the deck since the game started (a ring of that size wraps)",
    "deck_top_cycled": "a card taken from the deck after more cards than the game holds "
    "were taken from it since the game started (the ring's top wraps)",
    "sparrows_at_deck_end": "Sparrows takes card number M, 2M, ... from the deck (M cards "
    "in the game): the top of a ring of M moves from its last place to its first",
    "refill_across_deck_end": "one end of turn refills several slots and takes cards "
    "number M and M + 1 (or 2M and 2M + 1, ...): the refill reads across the ring's end",
    "fade": "a card fading",
    "refill": "a slot refilled",
    "refill_empty_slot": "a slot refilled that was left empty at an earlier turn's end",
    "won": "a game won",
    "lost": "a game lost",
    "truncated": "a game cut at max_turns",
    "feast_draw": "The Feast's draw (a second play follows)",
    "steal": "The Thief takes a visible fate",
    "steal_nothing": "The Thief takes nothing (no visible fate above the kept fate)",
    "shadows_in_steal": "Shadows used in The Thief's phase",
    "fall_announced": "The Fall announces whether it fades (or changes its answer)",
    "sands_attached": "a waiting Sands card attaches to the card refilling its slot",
    "sands_amplified": "a card with Sands attached fades: fades cost more, a hit scores more",
    "exile": "Sails exiles a visible fate (after its cost)",
    "fall_after_sails": "Sails exiles a fate while The Fall's answer of this turn stands, "
    "after exactly one prediction: The Fall is announced again",
    "fall_changed_by_sails": "as fall_after_sails, and the exile changes The Fall's answer",
    "imago_seven": "a 7 in front of The Imago (it counts 1 hour there)",
    "scions_hours": "fates in front of a card with Scions attached (1 hour each)",
}
"""Situations :class:`Twins` counts, plus ``power:<id>`` for each power used,
``card:<id>`` for each play directly on a card, ``fade:<id>`` for each card fading,
``cost:<id>`` for each power paid as a cost and ``phase:<name>`` for each decision taken
in a phase."""

_SANDS, _SCIONS = POWER_INDEX["sands"], POWER_INDEX["scions"]
_IMAGO = CARD_INDEX["imago"]

Chooser = Callable[[int, State, np.random.Generator], int]
"""Picks the action of game ``g`` from its reference state."""


class Mismatch(AssertionError):
    """The batched engine and the reference engine disagree."""


def first_difference(ref: State, got: State) -> str:
    """The first ``State`` field where ``got`` differs from ``ref`` (or "")."""
    for name in State.__slots__:
        if getattr(ref, name) != getattr(got, name):
            return f"{name}: reference {getattr(ref, name)!r}, batched {getattr(got, name)!r}"
    return ""


def fall_after_sails(turn_events: Sequence[tuple]) -> tuple[str, ...]:
    """The situations of The Fall around a Sails exile in one turn's events: none, or
    ``fall_after_sails`` (The Fall had answered before the exile and exactly one
    prediction was made) and, if a new answer follows the exile,
    ``fall_changed_by_sails``. Reads only public events: The Fall's answers, the
    predictions and the exile."""
    kinds = [e[0] for e in turn_events]
    if "exile" not in kinds:
        return ()
    at = kinds.index("exile")
    if "fall" not in kinds[:at] or kinds.count("predict") != 1:
        return ()
    if "fall" in kinds[at + 1 :]:
        return ("fall_after_sails", "fall_changed_by_sails")
    return ("fall_after_sails",)


def random_chooser() -> Chooser:
    """A uniform random legal action (as ``test_vector_engine`` plays)."""

    def choose(g: int, s: State, rng: np.random.Generator) -> int:
        legal = legal_actions(s)
        return legal[int(rng.random() * len(legal))]

    return choose


def sparing_chooser(power_rate: float) -> Chooser:
    """A random legal action, but a power only with probability ``power_rate`` (when one
    is legal): faded cards then stay faded and the deck runs out."""

    def choose(g: int, s: State, rng: np.random.Generator) -> int:
        legal = legal_actions(s)
        plain = [a for a in legal if ACTIONS[a].kind != "power"]
        if plain and (len(plain) == len(legal) or rng.random() >= power_rate):
            legal = plain
        return legal[int(rng.random() * len(legal))]

    return choose


def lucky_chooser(power_rate: float, hit_rate: float) -> Chooser:
    """A random legal action, but a power with probability ``power_rate`` when one is
    legal, and the right prediction (read from the hidden hand) with probability
    ``hit_rate`` when it is legal: games last longer than under random play, and the
    powers that follow a correct prediction (Sails) come up."""

    def choose(g: int, s: State, rng: np.random.Generator) -> int:
        legal = legal_actions(s)
        powers = [a for a in legal if ACTIONS[a].kind == "power"]
        if powers and rng.random() < power_rate:
            return powers[int(rng.random() * len(powers))]
        if s.phase in (Phase.GROUP, Phase.VOTE) and rng.random() < hit_rate:
            right = predict_action(s.hands[s.active][0])
            if right in legal:
                return right
        return legal[int(rng.random() * len(legal))]

    return choose


def team_chooser(play: str, group: str, num_games: int) -> tuple[Chooser, Callable[[int], None]]:
    """A scripted team (registry specs ``play`` and ``group``) per game, and the
    ``on_restart`` hook that starts a game's team afresh (teams remember within a game)."""
    from shipwreck_agents.registry import make_policy

    teams = [Team(make_policy(play), make_policy(group)) for _ in range(num_games)]
    layouts: dict = {}

    def choose(g: int, s: State, rng: np.random.Generator) -> int:
        if s.config not in layouts:
            layouts[s.config] = observation_layouts(s.config)
        return decide(teams[g], s, layouts[s.config], rng).action

    def on_restart(g: int) -> None:
        teams[g].reset()

    return choose, on_restart


def _new_events(s: State, turn: int, seen: int) -> tuple[list[tuple], list[tuple]]:
    """The events ``s`` recorded since it was at turn ``turn`` with ``seen`` events, and
    the whole event list of the turn that was running then."""
    if s.turn == turn:
        return s.events[seen:], s.events
    # a step ends at most one turn: the old turn's events are now last_events
    return s.last_events[seen:] + s.events, s.last_events


class Twins:
    """Batched games and their reference twins, stepped together and compared.

    Args:
        vg: the batched games.
        refs: the reference game of each batched game (equal to ``vg.to_states()``).
        rngs: the reference games' generators, at the batched games' places in their
            streams.
        choose: picks each game's action from its reference state.
        seed: seed of the choosers' generator.
        on_restart: called with the game index when a game restarts (resets a team).
        observe: compare observations too (off only for states outside the range the
            observation encoders are defined for, such as doom below 0).
    """

    def __init__(
        self,
        vg: VectorGame,
        refs: list[State],
        rngs: list[StreamGenerator],
        choose: Chooser,
        seed: int,
        *,
        on_restart: Callable[[int], None] | None = None,
        observe: bool = True,
    ) -> None:
        self.vg = vg
        self.observe = observe
        self.refs = refs
        self.rngs = rngs
        for g, rng in enumerate(rngs):
            if rng.counter != vg.stream(g).counter:
                raise Mismatch(
                    f"game {g}: the reference drew {rng.counter} numbers, the batch "
                    f"{vg.stream(g).counter}"
                )
        self.choose = choose
        self.policy_rng = np.random.default_rng(seed)
        self.on_restart = on_restart
        self.layout = vg.layout
        self.counts: Counter[str] = Counter()
        self.finished = 0
        self.steps = 0
        self._num_cards = sum(1 for c in CARDS if c.set in vg.config.card_sets)
        self._into_deck = [len(s.deck) for s in refs]  # cards that entered each deck
        self._out_of_deck = [0] * len(refs)  # cards taken from each deck
        self.check_states()

    @classmethod
    def new(
        cls, config: dict, num_games: int, seed: int, choose: Chooser, **kwargs: object
    ) -> Twins:
        """``num_games`` new games of ``config`` (keyword arguments of ``VectorGame``
        other than the config go in ``kwargs``, with ``on_restart``)."""
        on_restart = kwargs.pop("on_restart", None)
        vg = VectorGame(num_games, seed, **config, **kwargs)  # type: ignore[arg-type]
        rngs = [StreamGenerator(int(k)) for k in game_keys(seed, num_games)]
        refs = [new_game(vg.config, rng) for rng in rngs]
        return cls(vg, refs, rngs, choose, seed, on_restart=on_restart)  # type: ignore[arg-type]

    # --- checks -----------------------------------------------------------------------

    def check_states(self) -> None:
        """Every batched game's full state equals its reference twin."""
        for g, (got, ref) in enumerate(zip(self.vg.to_states(), self.refs, strict=True)):
            if got != ref:
                raise Mismatch(f"step {self.steps} game {g}: {first_difference(ref, got)}")

    def check_decisions(self) -> None:
        """Every live game's legal mask and observation equal the reference's."""
        mask = self.vg.legal_mask()
        obs = self.vg.observe() if self.observe else None
        for g, s in enumerate(self.refs):
            if s.over:
                if mask[g].any():
                    raise Mismatch(f"step {self.steps} game {g}: a finished game has legal actions")
                continue
            legal = legal_actions(s)
            if np.flatnonzero(mask[g]).tolist() != legal:
                raise Mismatch(
                    f"step {self.steps} game {g}: mask {np.flatnonzero(mask[g]).tolist()} "
                    f"!= reference {legal}"
                )
            if obs is None:
                continue
            expected = encode(s, s.decider, self.layout)
            if not np.array_equal(obs[g], expected):
                field = next(
                    f.name
                    for f in self.layout.fields
                    if not np.array_equal(obs[g][f.slice], expected[f.slice])
                )
                raise Mismatch(f"step {self.steps} game {g}: observation field {field!r} differs")

    # --- stepping ---------------------------------------------------------------------

    def step(self) -> None:
        """One decision in every game (finished games, without autoreset, get action 0),
        then every comparison."""
        self.check_decisions()
        actions = np.zeros(self.vg.num_games, np.int64)
        for g, s in enumerate(self.refs):
            if not s.over:
                actions[g] = self.choose(g, s, self.policy_rng)
        reward, terminated, truncated = self.vg.step(actions)
        info = self.vg.final_info
        for g, s in enumerate(self.refs):
            if s.over:  # kept over (no autoreset): nothing may happen
                if reward[g] != 0 or terminated[g] or truncated[g] or info["_final"][g]:
                    raise Mismatch(
                        f"step {self.steps} game {g}: a finished game gave reward {reward[g]}, "
                        f"end flags {terminated[g]}/{truncated[g]}, final {info['_final'][g]}"
                    )
                continue
            self._apply(g, s, int(actions[g]), reward[g], terminated[g], truncated[g], info)
        self.steps += 1
        self.check_states()

    def _apply(
        self,
        g: int,
        s: State,
        action: int,
        reward: float,
        terminated: bool,
        truncated: bool,
        info: dict,
    ) -> None:
        score, doom, turn, seen, deck = s.score, s.doom, s.turn, len(s.events), len(s.deck)
        self._count_decision(s, action)
        attached = [cards[:] for cards in s.attached]
        step_inplace(s, action, self.rngs[g])
        expected = team_reward(self.vg.reward_kind, s, score, doom)
        where = f"step {self.steps} game {g}"
        if reward != expected:
            raise Mismatch(f"{where}: reward {reward} != reference {expected}")
        if terminated != (s.over and not s.truncated) or truncated != s.truncated:
            raise Mismatch(f"{where}: end flags {terminated}/{truncated}, reference over {s.over}")
        self._count(g, s, turn, seen, deck)
        self._count_cards(s, turn, seen, attached)
        if not s.over:
            if info["_final"][g]:
                raise Mismatch(f"{where}: final_info marks a game that goes on")
            return
        got = (info["_final"][g], info["score"][g], info["doom"][g], info["won"][g])
        if got != (True, s.score, s.doom, s.won):
            raise Mismatch(f"{where}: final_info {got}, reference {(s.score, s.doom, s.won)}")
        self.finished += 1
        self.counts["truncated" if s.truncated else "won" if s.won else "lost"] += 1
        if self.vg.autoreset:
            self.refs[g] = new_game(s.config, self.rngs[g])  # the batched game restarted so
            self._into_deck[g] = len(self.refs[g].deck)
            self._out_of_deck[g] = 0
            if self.on_restart is not None:
                self.on_restart(g)

    def _count_decision(self, s: State, action: int) -> None:
        """Count the decision about to be taken in ``s``: its phase, the card a play
        goes on, Shadows in The Thief's phase."""
        c = self.counts
        c[f"phase:{PHASES[s.phase]}"] += 1
        spec = ACTIONS[action]
        if spec.kind == "play" and spec.slot != HOURS_TARGET:
            c[f"card:{CARDS[s.slots[spec.slot]].id}"] += 1
        if s.phase == Phase.STEAL and spec.power == "shadows":
            c["shadows_in_steal"] += 1

    def _count_cards(self, s: State, turn: int, seen: int, attached: list[list[int]]) -> None:
        """Count the expansion cards' situations of the step that led to ``s``
        (``attached``: the attachments before it)."""
        new, turn_events = _new_events(s, turn, seen)
        c = self.counts
        for e in new:
            kind = e[0]
            if kind in ("feast_draw", "exile"):
                c[kind] += 1
                if kind == "exile":
                    for name in fall_after_sails(turn_events):
                        c[name] += 1
            elif kind == "steal":
                c["steal" if e[1] >= 0 else "steal_nothing"] += 1
            elif kind == "fall":
                c["fall_announced"] += 1
            elif kind == "attach":
                c["sands_attached"] += 1
            elif kind == "cost":
                c[f"cost:{e[1]}"] += 1
            elif kind == "fade":
                c[f"fade:{e[2]}"] += 1
                if any(CARD_POWER[card] == _SANDS for card in attached[e[1]]):
                    c["sands_amplified"] += 1
        for slot in range(4):
            fates = s.table[slot]
            if s.slots[slot] == _IMAGO and 7 in fates:
                c["imago_seven"] += 1
            if fates and any(CARD_POWER[card] == _SCIONS for card in s.attached[slot]):
                c["scions_hours"] += 1

    def _count(self, g: int, s: State, turn: int, seen: int, deck: int) -> None:
        """Count the situations of the step that took game ``g`` from (``turn``, ``seen``
        events, ``deck`` cards) to ``s``."""
        new, turn_events = _new_events(s, turn, seen)
        c = self.counts
        m = self._num_cards
        taken = 0
        last_refill = -2  # index in ``new`` of the last refill event

        def take(sparrows: bool, batch: bool) -> None:
            """Count the next card taken from the deck (by Sparrows, or by a refill that
            follows another one of this end of turn: ``batch``)."""
            index = self._out_of_deck[g] + taken
            if index >= m:
                c["deck_top_cycled"] += 1
            if sparrows and index % m == m - 1:
                c["sparrows_at_deck_end"] += 1
            if batch and index % m == 0:
                c["refill_across_deck_end"] += 1

        for i, e in enumerate(new):
            kind = e[0]
            if kind == "play":
                c["play"] += 1
                if e[2] == HOURS_TARGET:
                    c["hours_play"] += 1
                    if e[3] == -1:
                        c["hours_no_card"] += 1
            elif kind == "power":
                c[f"power:{e[1]}"] += 1
                if e[1] == "sparrows":
                    take(True, False)
                    taken += 1
            elif kind == "table_to_bag":
                c["empty_bag_draw"] += 1
            elif kind == "exiled_to_bag":
                c["exiled_to_bag"] += 1
            elif kind == "fade":
                c["fade"] += 1
            elif kind == "refill":
                c["refill"] += 1
                take(False, last_refill == i - 1)
                last_refill = i
                taken += 1
                if ("fade", e[1]) not in {ev[:2] for ev in turn_events if ev[0] == "fade"}:
                    c["refill_empty_slot"] += 1
        if not s.over and not s.deck:
            c["empty_deck"] += 1
        # cards into the deck = its growth plus what was taken from it
        put = len(s.deck) - deck + taken
        before_in = self._into_deck[g]
        self._into_deck[g] += put
        self._out_of_deck[g] += taken
        c["deck_cycled"] += max(0, self._into_deck[g] - max(before_in, m))

    def run(self, steps: int, finished: int | None = None) -> Twins:
        """``steps`` decisions in every game, or fewer once ``finished`` games have
        ended; raise :class:`Mismatch` at the first disagreement."""
        for _ in range(steps):
            if finished is not None and self.finished >= finished:
                break
            self.step()
        return self


def twins_from_states(
    states: Sequence[State], seed: int, choose: Chooser, **kwargs: object
) -> Twins:
    """Batched games loaded with ``VectorGame.from_states`` and copies of ``states`` as
    their reference twins; ``kwargs`` go to ``from_states`` except ``on_restart`` and
    ``observe`` (see :class:`Twins`)."""
    import copy

    on_restart = kwargs.pop("on_restart", None)
    observe = kwargs.pop("observe", True)
    vg = VectorGame.from_states(states, seed, **kwargs)  # type: ignore[arg-type]
    refs = [copy.deepcopy(s) for s in states]
    rngs = [vg.stream(g) for g in range(len(refs))]
    return Twins(vg, refs, rngs, choose, seed, on_restart=on_restart, observe=observe)  # type: ignore[arg-type]


SWEEP_DIFFICULTIES = ("easy", "normal", "hard", "doomed")
SWEEP_CARD_SETS = ("base", "base,kickstarter", "base,gencon", "base,stars_below", "all")
SWEEP_SPECIAL_RULES = (
    dict(num_players=2, challenge_mode=True, group_decision="vote", card_sets="all"),
    dict(num_players=3, reveal=False, card_sets="all"),
    dict(num_players=4, max_turns=6, group_decision="vote", card_sets="all"),
)


def sweep_rules(
    compare: Callable[..., Counter],
    sweep: tuple[int, int, int],
    special: tuple[int, int, int],
) -> Counter:
    """A slow differential's sweep: ``compare(games, steps, seed, **rules)`` over every
    difficulty x 3-5 players x card set (``sweep``: games, steps, first seed, one seed
    more per combination), then over the special rules (two players with challenge and
    vote, no reveal, a turn limit; ``special``: games, steps, seed). Returns the
    situations met, summed."""
    games, steps, first = sweep
    seen: Counter = Counter()
    combos = itertools.product(SWEEP_DIFFICULTIES, (3, 4, 5), SWEEP_CARD_SETS)
    for i, (difficulty, players, card_sets) in enumerate(combos):
        seen += compare(
            games, steps, first + i, num_players=players, difficulty=difficulty, card_sets=card_sets
        )
    for rules in SWEEP_SPECIAL_RULES:
        seen += compare(*special, **rules)
    return seen
