"""No hidden fate leaks into what another player observes.

The only hidden data of a game are the fates in ``State.hands``. For many random
mid-game states (random legal play from new games and from arranged tables rich in
faded powers, 2-5 players, challenge mode, vote mode, card sets base and all, every
non-terminal phase) this file builds, for every seat holding fates, *alternative*
states that differ only in that seat's hidden fate(s) and agree with every public fact
(:func:`swapped`), and checks that for every player who does not own the seat

* the observation vector (with and without the belief block),
* the action mask,
* the :class:`~shipwreck_env.rules.view.AgentView`,
* the raw env's ``infos``, its ``render()`` text and the turn's ``describe_event`` texts

are identical in the real and the alternative state. ``test_checker_detects_*`` show
that the same checker fails on deliberately leaky encoders, views and masks, so a
passing sweep means something. The twin-game section at the end varies what the swaps
cannot (the face-down deck order and the hidden draws) without trusting the engine's
number lines or its choice of who decides.

Authorities: ``shipwreck_env/rules/state.py`` (``hands`` are the only hidden data;
``bag_known``), ``shipwreck_env/rules/observation.py`` and ``view.py`` (only public facts and
the observer's own fates), ``docs/rules.md`` (number lines).
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
from collections.abc import Iterable

import numpy as np
import pytest
from twins import swapped, twin

from shipwreck_env.envs import aec_env as aec_module
from shipwreck_env.envs import render as render_module
from shipwreck_env.envs.aec_env import VERSIONS, raw_env
from shipwreck_env.envs.render import describe_event
from shipwreck_env.rules import reference_game as reference_module
from shipwreck_env.rules.actions import ACTIONS, PASS, predict_action
from shipwreck_env.rules.cards import CARD_INDEX, CARDS, FATE_COPIES
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
from shipwreck_env.rules.observation import ObservationLayout
from shipwreck_env.rules.scenario import arrange
from shipwreck_env.rules.state import PHASES, Phase, State

NON_TERMINAL_PHASES = set(PHASES) - {"game_over"}


# --- alternative states ---------------------------------------------------------------


def alternatives(
    s: State, rng: np.random.Generator, per_fate: int
) -> list[tuple[int, int, int, State]]:
    """Up to ``per_fate`` random alternatives (seat, index, w, state) per held fate."""
    out = []
    for seat, hand in enumerate(s.hands):
        for index in range(len(hand)):
            options = [(w, t) for w in range(1, 8) if (t := swapped(s, seat, index, w))]
            rng.shuffle(options)
            out += [(seat, index, w, t) for w, t in options[:per_fate]]
    return out


# --- what a player can see ------------------------------------------------------------


class Observers:
    """Two raw envs of a config (belief off / on) that are pointed at any state, so the
    real ``observe`` / ``view`` / ``render`` code paths read it: the default version (v1,
    the compiled engine) unless ``version`` says otherwise (v0 observes and masks with
    the reference encoder and ``legal_actions``, which the checker tests plant leaks in)."""

    def __init__(self, config: GameConfig, version: int = 1) -> None:
        kwargs = config.to_dict()
        make = VERSIONS[version]
        self.plain = make(**kwargs, belief=False, render_mode="ansi")
        self.belief = make(**kwargs, belief=True, render_mode="ansi")
        self.envs = (self.plain, self.belief)
        for e in self.envs:
            e.reset(seed=0)
        self.num_players = config.num_players

    def load(self, s: State) -> None:
        for e in self.envs:
            e.state_ = s
            e._after_change()  # the env's own refresh: legal set, agent_selection

    def read(self, s: State, players: Iterable[int]) -> tuple[dict[int, dict], dict]:
        """Each of ``players``' snapshot of ``s`` and the public text, with the envs
        pointed at ``s`` once (observing, viewing and rendering change nothing, so one
        player's reading cannot change the next one's)."""
        self.load(s)
        return {p: self._snapshot(p) for p in players}, self._public_text(s)

    def _snapshot(self, player: int) -> dict:
        """Everything ``player`` gets from the envs as they stand."""
        agent = f"player_{player}"
        out = {}
        for name, e in (("plain", self.plain), ("belief", self.belief)):
            obs = e.observe(agent)
            out[f"{name} observation"] = obs["observation"].copy()
            out[f"{name} action_mask"] = obs["action_mask"].copy()
        out["view"] = self.plain.view(agent)
        # Every agent's info, but another agent's action_mask is that agent's own (like
        # its observation): only this player's mask is theirs to see. Lists compare with ==.
        out["infos"] = {
            a: {
                k: v.tolist() if isinstance(v, np.ndarray) else v
                for k, v in i.items()
                if k != "action_mask" or a == agent
            }
            for a, i in self.plain.infos.items()
        }
        out["agent_selection"] = self.plain.agent_selection
        return out

    def _public_text(self, s: State) -> dict:
        """What everybody sees: the render and this turn's (and last turn's) events."""
        return {
            "render": self.plain.render(),
            "events": [describe_event(e) for e in s.events],
            "last_events": [describe_event(e) for e in s.last_events],
        }


def _field_names(e: raw_env, a: np.ndarray, b: np.ndarray) -> list[str]:
    diff = np.flatnonzero(a != b)
    return sorted(
        {
            f.name
            for f in e.observation_layout.fields
            for i in diff
            if f.offset <= i < f.offset + f.size
        }
    )


def same(x: object, y: object) -> bool:
    """Whether two values are equal, arrays element by element, inside dicts too (infos
    hold the action mask as an array)."""
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        return (
            isinstance(x, np.ndarray)
            and isinstance(y, np.ndarray)
            and (x.shape == y.shape and np.array_equal(x, y))
        )
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
    return x == y


def differences(obs: Observers, a: dict, b: dict) -> list[str]:
    """Keys (with details) where two snapshots differ."""
    out = []
    for key in a:
        x, y = a[key], b[key]
        if isinstance(x, np.ndarray):
            if x.shape != y.shape or not np.array_equal(x, y):
                detail = ""
                if key.endswith("observation") and x.shape == y.shape:
                    e = obs.belief if key.startswith("belief") else obs.plain
                    detail = f" fields {_field_names(e, x, y)}"
                elif key.endswith("action_mask"):
                    detail = f" {np.flatnonzero(x).tolist()} vs {np.flatnonzero(y).tolist()}"
                out.append(key + detail)
        elif key == "view":
            if x == y:  # one comparison of the frozen dataclass; the fields only if not
                continue
            fields = [
                f.name for f in dataclasses.fields(x) if getattr(x, f.name) != getattr(y, f.name)
            ]
            if fields:
                out.append(f"view fields {fields}")
        elif not same(x, y):
            out.append(f"{key}: {x!r} vs {y!r}")
    return out


def differs(a: dict, b: dict) -> bool:
    """Whether two snapshots differ anywhere (:func:`differences` without the details,
    for the owner, whose snapshot must differ)."""
    for key, x in a.items():
        y = b[key]
        if not same(x, y):
            return True
    return False


@dataclasses.dataclass
class Report:
    """Results of a sweep: checks done, problems, phases covered by a check."""

    checks: int = 0
    states: int = 0
    problems: list[str] = dataclasses.field(default_factory=list)
    phases: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    kinds: collections.Counter = dataclasses.field(default_factory=collections.Counter)


def check_state(
    obs: Observers, s: State, rng: np.random.Generator, report: Report, where: str, per_fate: int
) -> None:
    """Compare every non-owner's snapshot of ``s`` with its snapshot of alternatives."""
    P = obs.num_players
    report.states += 1
    base, base_text = obs.read(s, range(P))
    for seat, index, w, t in alternatives(s, rng, per_fate):
        owner = s.owner(seat)
        what = (
            f"{where} phase {PHASES[s.phase]}: seat {seat} fate #{index} "
            f"{s.hands[seat][index]}->{w}"
        )
        snapshots, text = obs.read(t, range(P))
        for player in range(P):
            if player == owner:
                continue
            diff = differences(obs, base[player], snapshots[player])
            report.checks += 1
            if diff:
                report.problems.append(f"{what}, observer {player}: {diff}")
        if text != base_text:
            keys = [k for k in text if text[k] != base_text[k]]
            report.problems.append(f"{what}: public text differs in {keys}")
        # the swap is real: the owner sees a different hand
        if not differs(base[owner], snapshots[owner]):
            report.problems.append(f"{what}: the owner's observation did not change")
        report.phases[PHASES[s.phase]] += 1
        kind = "active" if seat == s.active else "other"
        report.kinds[f"{kind}:{PHASES[s.phase]}"] += 1


# --- random games ---------------------------------------------------------------------


def choose(s: State, legal: list[int], rng: np.random.Generator) -> int:
    """Random legal play that reaches long games and every phase: in the group phases
    it often uses a power or predicts the real fate (it may peek: it only picks moves)."""
    action = legal[int(rng.integers(len(legal)))]
    if s.phase == Phase.REVEAL:
        return PASS if rng.random() < 0.8 else action
    if s.phase in (Phase.GROUP, Phase.VOTE, Phase.SAILS):
        powers = [a for a in legal if ACTIONS[a].kind == "power"]
        if powers and rng.random() < 0.6:
            return powers[int(rng.integers(len(powers)))]
        hand = s.hands[s.active]
        right = predict_action(hand[0]) if hand and s.phase != Phase.SAILS else -1
        r = rng.random()
        if right in legal and r < 0.6:
            return right
        if PASS in legal and r < 0.9:
            return PASS
    if s.phase in (Phase.PLAY, Phase.STEAL, Phase.AFTER_PLAY):
        powers = [a for a in legal if ACTIONS[a].kind == "power"]
        if powers and rng.random() < 0.3:
            return powers[int(rng.integers(len(powers)))]
    return action


def arranged_start(config: GameConfig, rng: np.random.Generator) -> State:
    """A table with up to six faded powers (Sails, Scythes, Shells, Sinners, ... when the
    card sets have them), maybe The Thief, Chalice, Fall or Feast in play, fates on the
    table and held fates: it reaches the rare phases (steal, after_play, cost, sails)."""
    cards = [i for i, c in enumerate(CARDS) if c.set in config.card_sets]
    rng.shuffle(cards)
    wanted = [
        CARD_INDEX[n] for n in ("thief", "chalice", "fall", "feast") if CARD_INDEX[n] in cards
    ]
    rng.shuffle(wanted)
    slot_cards = wanted[:2]
    slot_cards += [c for c in cards if c not in slot_cards][: 4 - len(slot_cards)]
    rng.shuffle(slot_cards)
    power_first = [
        CARD_INDEX[n]
        for n in ("musicians", "ash", "thief", "key", "wish", "belltower", "fortune", "feast")
        if CARD_INDEX[n] in cards and CARD_INDEX[n] not in slot_cards
    ]
    rest = [c for c in cards if c not in slot_cards and c not in power_first]
    rng.shuffle(power_first)
    faded = (power_first[:4] + rest)[:6]
    tokens = [v for v in range(1, 8) for _ in range(FATE_COPIES)]
    rng.shuffle(tokens)
    hand, tokens = tokens[:2], tokens[2:]
    table = []
    for _ in range(4):
        n = int(rng.integers(0, 3))
        table.append(tokens[:n])
        tokens = tokens[n:]
    active = int(rng.integers(config.num_seats))
    held = {}
    for seat in range(config.num_seats):
        if seat != active and rng.random() < 0.8:
            held[seat] = tokens.pop()
    return arrange(
        config,
        slots=[CARDS[c].id for c in slot_cards],
        hand=hand,
        table=table,
        held=held,
        faded=[CARDS[c].id for c in faded],
        active=active,
        doom=0,
    )


def sweep_configs() -> list[GameConfig]:
    configs = []
    for players, group, sets in itertools.product(
        (2, 3, 4, 5), ("leader", "vote"), ("base", "all")
    ):
        configs.append(
            GameConfig(num_players=players, difficulty="easy", card_sets=sets, group_decision=group)
        )
    for group, sets in itertools.product(("leader", "vote"), ("base", "all")):
        configs.append(
            GameConfig(
                num_players=2,
                challenge_mode=True,
                difficulty="easy",
                card_sets=sets,
                group_decision=group,
            )
        )
    configs.append(GameConfig(num_players=3, reveal=False, card_sets="all"))
    configs.append(GameConfig(num_players=4, reveal=False, difficulty="hard"))
    return configs


def run_sweep(games: int, max_steps: int, per_fate: int, seed0: int) -> Report:
    report = Report()
    for ci, config in enumerate(sweep_configs()):
        obs = Observers(config)
        for g in range(games):
            seed = seed0 + 100 * ci + g
            rng = np.random.default_rng(seed)
            choice = np.random.default_rng([seed, 1])
            s = arranged_start(config, rng) if g % 2 else new_game(config, rng)
            where = f"{config} game {g} seed {seed}"
            for n in range(max_steps):
                check_state(obs, s, choice, report, f"{where} step {n}", per_fate)
                if s.over:
                    break
                step_inplace(s, choose(s, legal_actions(s), choice), rng)
    return report


def assert_clean(report: Report) -> None:
    assert not report.problems, (
        f"{len(report.problems)} leaks in {report.checks} checks, e.g.:\n"
        + "\n".join(report.problems[:10])
    )


@pytest.fixture(scope="module")
def quick_sweep() -> Report:
    return run_sweep(games=4, max_steps=150, per_fate=2, seed0=0)


def test_no_leak_in_sweep(quick_sweep: Report) -> None:
    assert_clean(quick_sweep)
    assert quick_sweep.checks > 5000, quick_sweep.checks


def test_sweep_covers_every_phase(quick_sweep: Report) -> None:
    """Swaps were checked in all 8 non-terminal phases; the active seat's fates in every
    phase but sails (reached only after a correct prediction, when the active seat holds
    nothing), other seats' fates in every phase."""
    covered = set(quick_sweep.phases)
    assert covered >= NON_TERMINAL_PHASES, (NON_TERMINAL_PHASES - covered, quick_sweep.phases)
    for phase in NON_TERMINAL_PHASES:
        if phase != "sails":
            assert quick_sweep.kinds[f"active:{phase}"] > 0, (phase, quick_sweep.kinds)
        assert quick_sweep.kinds[f"other:{phase}"] > 0, (phase, quick_sweep.kinds)


@pytest.mark.slow
def test_no_leak_in_long_sweep() -> None:
    report = run_sweep(games=16, max_steps=400, per_fate=6, seed0=50_000)
    assert_clean(report)
    assert set(report.phases) >= NON_TERMINAL_PHASES, report.phases


# --- the swap itself keeps public facts ----------------------------------------------


def test_swapped_states_keep_public_facts() -> None:
    """Alternatives differ from the real state only in hands, bag and the engine's notes
    about the active seat's kept fate; tokens are conserved; lines allow the new fates."""
    public = set(State.__slots__) - {"hands", "bag", "kept_eff", "fall_kept", "old_fate"}
    rng = np.random.default_rng(5)
    seen = 0
    for config in sweep_configs()[::3]:
        for g in range(3):
            s = arranged_start(config, rng) if g % 2 else new_game(config, rng)
            for _ in range(60):
                if s.over:
                    break
                for seat, index, w, t in alternatives(s, rng, 7):
                    seen += 1
                    assert all(getattr(t, k) == getattr(s, k) for k in public)
                    assert sum(t.bag) == sum(s.bag)
                    assert all(t.bag_known[i] <= t.bag[i] for i in range(7))
                    assert t.hands[seat][index] == w
                    if not (seat == s.active and s.phase == Phase.PLAY):
                        assert s.lines[seat] >> (w - 1) & 1
                    for k, hand in enumerate(t.hands):
                        expected = list(s.hands[k])
                        if k == seat:
                            expected[index] = w
                        assert hand == expected
                    v = s.hands[seat][index]
                    assert t.bag[v - 1] == s.bag[v - 1] + 1
                    assert t.bag[w - 1] == s.bag[w - 1] - 1 >= t.bag_known[w - 1]
                step_inplace(s, choose(s, legal_actions(s), rng), rng)
    assert seen > 500


# --- the checker can fail ---------------------------------------------------------------


def _some_states(config: GameConfig, count: int) -> list[State]:
    rng = np.random.default_rng(11)
    choice = np.random.default_rng(12)
    states = []
    s = new_game(config, rng)
    while len(states) < count:
        if s.over:
            s = new_game(config, rng)
        states.append(s.copy())
        step_inplace(s, choose(s, legal_actions(s), choice), rng)
    return states


def _check_many(obs: Observers, states: list[State]) -> Report:
    report = Report()
    rng = np.random.default_rng(0)
    for n, s in enumerate(states):
        check_state(obs, s, rng, report, f"state {n}", per_fate=3)
    return report


CONFIG = GameConfig(num_players=3, card_sets="all", difficulty="easy")


def test_checker_detects_leaky_encoder(monkeypatch: pytest.MonkeyPatch) -> None:
    """An encoder that writes the active seat's first held fate into ``own_carried``
    for everyone is caught, in both observation vectors."""
    obs = Observers(CONFIG)
    states = _some_states(CONFIG, 40)
    assert not _check_many(obs, states).problems
    obs = Observers(CONFIG, version=0)  # v0 observes with the (patched) reference encoder
    for e in obs.envs:
        layout = e.observation_layout
        honest = layout.encoder
        carried = layout.offsets["own_carried"]

        def leaky(s: State, observer: int, honest=honest, carried=carried) -> np.ndarray:
            vec = honest(s, observer)
            hand = s.hands[s.active]
            if hand:
                vec[carried + hand[0] - 1] = 1.0
            return vec

        monkeypatch.setattr(layout, "encoder", leaky)
    report = _check_many(obs, states)
    assert report.problems
    text = "\n".join(report.problems)
    assert "plain observation fields ['own_carried']" in text
    assert "belief observation fields ['own_carried']" in text


def test_checker_detects_leaky_view(monkeypatch: pytest.MonkeyPatch) -> None:
    """A view that shows every player the active seat's fates is caught."""
    obs = Observers(CONFIG)
    states = _some_states(CONFIG, 40)
    honest = aec_module.make_view

    def leaky(s: State, player: int):
        view = honest(s, player)
        hand = s.hands[s.active]
        return dataclasses.replace(view, my_carried=hand[0] if hand else 0)

    monkeypatch.setattr(aec_module, "make_view", leaky)
    report = _check_many(obs, states)
    assert any("view fields ['my_carried']" in p for p in report.problems), report.problems[:3]


def test_checker_detects_leaky_mask(monkeypatch: pytest.MonkeyPatch) -> None:
    """A legal set that lets the group predict only wrong values is caught."""
    obs = Observers(CONFIG)
    states = [s for s in _some_states(CONFIG, 200) if s.phase == Phase.GROUP]
    assert states
    obs = Observers(CONFIG, version=0)  # v0 masks with the (patched) reference legal_actions
    honest = reference_module.legal_actions

    def leaky(s: State) -> list[int]:
        legal = honest(s)
        hand = s.hands[s.active]
        if s.phase == Phase.GROUP and hand:
            legal = [a for a in legal if a != predict_action(hand[0])]
        return legal

    monkeypatch.setattr(reference_module, "legal_actions", leaky)
    report = _check_many(obs, states)
    assert any("plain action_mask" in p for p in report.problems), report.problems[:3]


def test_checker_detects_leaky_render(monkeypatch: pytest.MonkeyPatch) -> None:
    """A render that prints the active seat's fates is caught."""
    obs = Observers(CONFIG)
    states = _some_states(CONFIG, 40)
    honest = render_module.render

    def leaky(s: State, viewer: int | None = None) -> str:
        return honest(s) + f"\n{s.hands[s.active]}"

    monkeypatch.setattr(render_module, "render", leaky)
    report = _check_many(obs, states)
    assert any("public text differs in ['render']" in p for p in report.problems)


# --- infos and render over whole games --------------------------------------------------


def test_infos_hold_only_the_result() -> None:
    """Infos hold only score, doom and won (False until the end)."""
    for players in (2, 3, 5):
        e = aec_module.env(num_players=players, card_sets="all", difficulty="easy")
        e.reset(seed=players)
        rng = np.random.default_rng(players)
        for _ in e.agent_iter(5000):
            obs, _, term, trunc, info = e.last()
            assert set(info) == {"score", "doom", "won"}
            if term or trunc:
                e.step(None)
                continue
            assert info["won"] is False
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[rng.integers(len(legal))]))


# --- twin games: another deck order and other hidden draws, the same public course -------
#
# The sweep above builds its alternative states with the engine's own public record (a
# swap must agree with the number lines) and never varies the deck. Twin games do
# neither: a twin is a copy of a game whose face-down deck (below the visible top card)
# is reshuffled and whose later draws come from another generator. Both twins then take
# the same actions. While the public record *as the test reads it from the rules* -- the
# table, the visible deck top and size, hand sizes, score, doom and the answers the rules
# announce -- is the same in both, every player whose own fates are the same in both must
# get the same observation, mask, infos, view, render (also their own) and event texts,
# and be asked to decide at the same moments. Number lines, ``bag_known`` and the
# engine's choice of who decides are not trusted: they are among what is compared.

ANSWER_EVENTS = (
    "draw",
    "chalice",
    "fall",
    "power",
    "steal",
    "predict",
    "resolve",
    "reveal",
    "table_to_bag",
    "exiled_to_bag",
)
"""Events that are the answers the rules make public (the other events restate actions
and the table)."""


def public_record(s: State) -> tuple:
    """The public course of ``s`` as the rules define it (see the section comment)."""
    return (
        s.slots,
        s.table,
        s.attached,
        s.sands_waiting,
        s.faded,
        s.exiled,
        s.deck[0] if s.deck else -1,
        len(s.deck),
        [len(hand) for hand in s.hands],
        sum(s.bag),
        (s.score, s.doom, s.turn, s.over, s.won, s.truncated),
        [e for e in s.events if e[0] in ANSWER_EVENTS],
    )


@dataclasses.dataclass
class TwinReport(Report):
    twins: int = 0
    deck_differs: int = 0
    draws_differ: int = 0


def run_twins(pairs: int, max_steps: int, seed0: int, version: int = 1) -> TwinReport:
    """Fork ``pairs`` twin games over the sweep's configurations at random moments and
    follow each pair while its public record agrees (seen by AEC env ``version``)."""
    report = TwinReport()
    configs = sweep_configs()
    for n in range(pairs):
        config = configs[n % len(configs)]
        obs = Observers(config, version)
        seed = seed0 + n
        rng = np.random.default_rng(seed)
        choice = np.random.default_rng([seed, 1])
        a = arranged_start(config, rng) if n % 3 == 2 else new_game(config, rng)
        for _ in range(int(rng.integers(0, 40))):
            if a.over:
                break
            step_inplace(a, choose(a, legal_actions(a), choice), rng)
        if a.over or len(a.deck) < 3:
            continue
        b = twin(a, choice)
        rng_a, rng_b = np.random.default_rng([seed, 2]), np.random.default_rng([seed, 3])
        report.twins += 1
        report.deck_differs += a.deck != b.deck
        owners: set[int] = set()
        for step in range(max_steps):
            if public_record(a) != public_record(b):
                break
            owners |= {a.owner(k) for k in range(a.num_seats) if a.hands[k] != b.hands[k]}
            where = f"{config} twins {n} seed {seed} step {step} phase {PHASES[a.phase]}"
            check_twins(obs, a, b, owners, report, where)
            if a.over:
                break
            common = sorted(set(legal_actions(a)) & set(legal_actions(b)))
            if not common:
                break
            action = choose(a, common, choice)
            step_inplace(a, action, rng_a)
            step_inplace(b, action, rng_b)
        report.draws_differ += bool(owners)
    return report


def check_twins(
    obs: Observers, a: State, b: State, owners: set[int], report: TwinReport, where: str
) -> None:
    """Every non-owner sees the same in ``a`` and ``b``; so does everybody in public."""
    report.states += 1
    report.phases[PHASES[a.phase]] += 1
    readers = [p for p in range(obs.num_players) if p not in owners]
    seen_a, text_a = obs.read(a, readers)
    seen_b, text_b = obs.read(b, readers)
    for player in readers:
        diff = differences(obs, seen_a[player], seen_b[player])
        if render_module.render(a, player) != render_module.render(b, player):
            diff.append("render for this viewer")
        report.checks += 1
        if diff:
            report.problems.append(f"{where}, observer {player}: {diff}")
    if text_a != text_b:
        report.problems.append(
            f"{where}: public text differs in {[k for k in text_a if text_a[k] != text_b[k]]}"
        )


@pytest.fixture(scope="module")
def twin_sweep() -> TwinReport:
    return run_twins(pairs=240, max_steps=120, seed0=0)


def test_no_leak_between_twin_games(twin_sweep: TwinReport) -> None:
    assert_clean(twin_sweep)
    assert twin_sweep.checks > 2000, twin_sweep.checks


def test_twin_games_vary_the_deck_and_the_draws_and_reach_every_phase(
    twin_sweep: TwinReport,
) -> None:
    """The twins really differ (deck order in nearly all pairs, hidden draws in many) and
    are compared in every non-terminal phase."""
    assert twin_sweep.deck_differs >= 0.9 * twin_sweep.twins
    assert twin_sweep.draws_differ >= 0.3 * twin_sweep.twins, twin_sweep
    covered = set(twin_sweep.phases)
    assert covered >= NON_TERMINAL_PHASES - {"sails", "cost"}, twin_sweep.phases


@pytest.mark.slow
def test_no_leak_between_many_twin_games() -> None:
    report = run_twins(pairs=2000, max_steps=300, seed0=70_000)
    assert_clean(report)
    assert set(report.phases) >= NON_TERMINAL_PHASES, report.phases


def test_twin_checker_detects_a_render_showing_the_card_under_the_top(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The planted render defect (the deck line naming the card under the top) is caught
    by the twins, which no state swap could do."""
    honest = render_module.render

    def leaky(s: State, viewer: int | None = None) -> str:
        text = honest(s, viewer)
        under = CARDS[s.deck[1]].name if len(s.deck) > 1 else "empty"
        return text.replace("Deck:", f"Deck (next {under}):", 1)

    monkeypatch.setattr(render_module, "render", leaky)
    report = run_twins(pairs=12, max_steps=5, seed0=0)
    assert any("render" in p for p in report.problems), report.problems[:3]


def test_twin_checker_detects_an_observation_of_the_next_draw(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An encoder that leaks a hidden fate drawn this turn by the active seat into the
    turn counter (a field no swap of held fates could tell apart) is caught."""
    honest = ObservationLayout.__init__

    def leaky_layout(self, *args, **kwargs) -> None:
        honest(self, *args, **kwargs)
        encoder, turn = self.encoder, self.offsets["turn"]

        def leaky(s: State, observer: int) -> np.ndarray:
            vec = encoder(s, observer)
            vec[turn] += 0.001 * sum(s.hands[s.active])
            return vec

        self.encoder = leaky

    monkeypatch.setattr(ObservationLayout, "__init__", leaky_layout)
    report = run_twins(pairs=40, max_steps=40, seed0=0, version=0)  # the reference encoder
    assert any("observation fields ['turn']" in p for p in report.problems), report.problems[:3]
