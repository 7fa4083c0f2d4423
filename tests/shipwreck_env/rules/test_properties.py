"""Property tests: many random legal games, every step checked against the rules.

Games are played by choosing among ``legal_actions`` with a seeded numpy Generator (the
"choice" generator); a second seeded Generator is the game's own rng. Two policies:

* ``uniform`` -- every legal action equally likely (a random legal game);
* ``informed`` -- uniform, except that in the group phases it often uses a power,
  predicts the real hidden fate or passes. Uniform games end after ~3 turns by doom;
  this policy makes long games that reach scoring, fading, powers, Sails and wins.

The sweep covers every player count 2-5, every difficulty, both group_decision modes,
challenge mode, reveal on/off and card sets "base" and "all". Every step is checked
(see ``Checker``); violations are collected per property, and each property is its
own test so that one engine bug does not hide the others. A quick sweep always runs;
the big one is marked ``slow``.

Authorities: ``docs/rules.md`` (One turn: turn order, resolve, fade, end check), the
printed rulebook of Shipwreck Arcana (Fading, Ending the Game, The Hours, FAQ) and the
engine's documented API.
"""

from __future__ import annotations

import collections
import traceback

import numpy as np
import pytest
from helpers import config_matrix

from shipwreck_env.rules.actions import ACTIONS, HOURS_TARGET, PASS
from shipwreck_env.rules.cards import CARD_INDEX, CARDS, FATE_COPIES, fate_hours
from shipwreck_env.rules.conditions import can_play
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import (
    IllegalActionError,
    legal_actions,
    new_game,
    step,
    step_inplace,
)
from shipwreck_env.rules.saving import dumps, loads
from shipwreck_env.rules.state import PHASES, Phase, State

DIFFICULTIES = ("easy", "normal", "hard", "doomed")
FEAST = CARD_INDEX["feast"]
ASH = CARD_INDEX["ash"]
FALL = CARD_INDEX["fall"]
IMAGO = CARD_INDEX["imago"]
BLIND_MAN = CARD_INDEX["blind_man"]
WIN_SCORE = 7
LOSE_DOOM = 7
MAX_MESSAGES = 5


def all_configs() -> list[GameConfig]:
    """Every combination of the switches that change the rules."""
    return [GameConfig(**kwargs) for kwargs in config_matrix()]


CONFIGS = all_configs()


def cards_of(config: GameConfig) -> list[int]:
    return sorted(i for i, card in enumerate(CARDS) if card.set in config.card_sets)


def independent_hours(s: State, slot: int) -> int:
    """Hours in front of the card on ``slot``: rulebook pips, Scions 1 per fate, Imago's
    7 counts 1."""
    fates = s.table[slot]
    if any(CARDS[c].power == "scions" for c in s.attached[slot]):
        return len(fates)
    if s.slots[slot] == IMAGO:
        return sum(1 if v == 7 else fate_hours(v) for v in fates)
    return sum(fate_hours(v) for v in fates)


def expected_plays(s: State) -> set[tuple[int, int]]:
    """(target, value) plays the rules allow for the active hand, from ``rules.can_play``
    and The Hours' text (only when no arcana card takes either fate)."""
    a, b = s.hands[s.active]
    visible = [v for slot in range(4) if s.slots[slot] >= 0 for v in s.table[slot]]
    out = set()
    for slot in range(4):
        card = s.slots[slot]
        if card < 0 or (card == FEAST and s.feast_done):
            continue
        for played, kept in ((a, b), (b, a)):
            if can_play(CARDS[card].id, played, kept, visible, s.table[slot], shadows=s.shadows):
                out.add((slot, played))
    if not out:
        out = {(HOURS_TARGET, a), (HOURS_TARGET, b)}
    return out


class Checker:
    """Collects property violations (category -> count and first messages)."""

    def __init__(self) -> None:
        self.counts: collections.Counter[str] = collections.Counter()
        self.messages: dict[str, list[str]] = collections.defaultdict(list)
        self.coverage: collections.Counter[str] = collections.Counter()
        self.games = 0
        self.steps = 0

    def fail(self, category: str, message: str) -> None:
        self.counts[category] += 1
        if len(self.messages[category]) < MAX_MESSAGES:
            self.messages[category].append(message)

    def check(self, category: str, ok: bool, message: str) -> None:
        if not ok:
            self.fail(category, message)

    def assert_clean(self, *categories: str) -> None:
        bad = {c: (self.counts[c], self.messages[c]) for c in categories if self.counts[c]}
        assert not bad, f"violations in {self.games} games / {self.steps} steps: {bad}"


# --- per-state checks -----------------------------------------------------------------


def check_state(c: Checker, s: State, where: str) -> list[int]:
    """Check one state; returns its legal actions."""
    config = s.config
    # 21 fate tokens: bag + exiled + hands + table == 3 of each value
    counts = [s.bag[i] + s.exiled[i] for i in range(7)]
    for row in (*s.table, *s.hands):
        for v in row:
            counts[v - 1] += 1
    c.check(
        "fates",
        counts == [FATE_COPIES] * 7 and min(s.bag) >= 0 and min(s.exiled) >= 0,
        f"{where}: fates by value {counts}, bag {s.bag}, exiled {s.exiled}",
    )
    c.check("fates", all(len(h) <= 2 for h in s.hands), f"{where}: hands {s.hands}")
    # every card of the config's sets exactly once
    cards = [x for x in (*s.deck, *s.slots, *s.faded, *s.sands_waiting) if x != -1]
    cards += [x for row in s.attached for x in row]
    c.check(
        "cards",
        sorted(cards) == cards_of(config),
        f"{where}: cards {sorted(cards)} vs sets {cards_of(config)}",
    )
    legal = legal_actions(s)
    if s.over:
        c.check(
            "decider",
            legal == [] and s.decider == -1 and s.phase == Phase.GAME_OVER,
            f"{where}: over but legal {legal}, decider {s.decider}, phase {s.phase}",
        )
        return legal
    c.check(
        "decider",
        bool(legal) and 0 <= s.decider < config.num_players,
        f"{where}: not over, legal {legal}, decider {s.decider}, phase {PHASES[s.phase]}",
    )
    c.check(
        "legal_sorted",
        legal == sorted(set(legal)),
        f"{where}: phase {PHASES[s.phase]} legal {legal} is not ascending and unique "
        "(engine.legal_actions documents 'ascending')",
    )
    c.check(
        "legal_range",
        all(isinstance(a, int) and 0 <= a < len(ACTIONS) for a in legal),
        f"{where}: legal {legal}",
    )
    check_decider_role(c, s, where)
    # number lines hold the real held fate of every seat with exactly one fate, outside
    # its own turn
    for seat, hand in enumerate(s.hands):
        if seat != s.active and len(hand) == 1:
            c.check(
                "number_lines",
                s.lines[seat] >> (hand[0] - 1) & 1 == 1,
                f"{where}: seat {seat} holds {hand[0]} but its line is {s.lines[seat]:07b}",
            )
    # ... and the active seat's line holds its kept fate once the plays are over
    hand = s.hands[s.active]
    if s.phase != Phase.PLAY and len(hand) == 1:
        c.check(
            "active_line",
            s.lines[s.active] >> (hand[0] - 1) & 1 == 1,
            f"{where}: active seat {s.active} keeps {hand[0]}, phase {PHASES[s.phase]}, "
            f"line {s.lines[s.active]:07b}",
        )
    if s.phase == Phase.PLAY:
        check_plays(c, s, legal, where)
    c.coverage["phase:" + PHASES[s.phase]] += 1
    return legal


def check_decider_role(c: Checker, s: State, where: str) -> None:
    me = s.active_player
    phase = s.phase
    if phase in (Phase.PLAY, Phase.STEAL, Phase.AFTER_PLAY):
        ok = s.decider == me
    elif phase in (Phase.GROUP, Phase.COST, Phase.SAILS):
        ok = s.decider == (me + 1) % s.config.num_players
    elif phase == Phase.REVEAL:
        ok = (
            bool(s.queue)
            and s.decider == s.owner(s.queue[0])
            and s.decider != me
            and len(s.hands[s.queue[0]]) == 1
        )
    elif phase == Phase.VOTE:
        ok = bool(s.queue) and s.decider == s.queue[0] and s.decider != me
    else:
        ok = False
    c.check("decider_role", ok, f"{where}: phase {PHASES[phase]} decider {s.decider}, active {me}")


def check_plays(c: Checker, s: State, legal: list[int], where: str) -> None:
    plays = {(ACTIONS[a].slot, ACTIONS[a].value) for a in legal if ACTIONS[a].kind == "play"}
    on_hours = {p for p in plays if p[0] == HOURS_TARGET}
    on_slots = plays - on_hours
    c.check(
        "hours_exclusive",
        bool(on_hours) != bool(on_slots),
        f"{where}: hand {s.hands[s.active]} plays {sorted(plays)}",
    )
    expected = expected_plays(s)
    if plays != expected:
        ids = [CARDS[x].id if x >= 0 else None for x in s.slots]
        c.fail(
            "plays_match_rules",
            f"{where}: hand {s.hands[s.active]} slots {ids} table {s.table} shadows "
            f"{s.shadows}: engine {sorted(plays)} vs rules {sorted(expected)}",
        )
    if on_hours:
        c.coverage["hours_play_offered"] += 1


# --- per-step and per-turn checks -----------------------------------------------------


class TurnLog:
    """What the group predicted this turn, seen from the actions taken."""

    def __init__(self) -> None:
        self.predicted = False
        self.correct = False

    def observe(self, pre: State, action: int) -> None:
        spec = ACTIONS[action]
        value = None
        if pre.phase == Phase.GROUP and spec.kind == "predict":
            value = spec.value
        elif pre.phase == Phase.VOTE and len(pre.queue) == 1:
            votes = [*pre.votes, spec.value if spec.kind == "predict" else 0]
            for v in set(votes):
                if v and 2 * votes.count(v) > len(votes):
                    value = v
        if value is not None:
            self.predicted = True
            if value == pre.hands[pre.active][0]:
                self.correct = True


def check_transition(
    c: Checker, pre: State, action: int, post: State, log: TurnLog, where: str
) -> None:
    c.check("monotone", post.score >= pre.score, f"{where}: score {pre.score}->{post.score}")
    c.check("monotone", post.doom >= pre.doom, f"{where}: doom {pre.doom}->{post.doom}")
    turn_ended = post.over or post.turn != pre.turn
    max_turns = post.config.max_turns
    c.check(
        "turns",
        post.turn in (pre.turn, pre.turn + 1) and (max_turns is None or post.turn <= max_turns),
        f"{where}: turn {pre.turn}->{post.turn}, max {max_turns}",
    )
    if not turn_ended:
        c.check(
            "score_within_turn",
            (post.score, post.doom) == (pre.score, pre.doom),
            f"{where}: score/doom changed mid-turn {pre.score, pre.doom}->"
            f"{post.score, post.doom} by {ACTIONS[action].description}",
        )
        return
    c.coverage["turns"] += 1
    if not post.over:
        c.check(
            "next_seat",
            post.active == (pre.active + 1) % pre.num_seats and post.phase == Phase.PLAY,
            f"{where}: active {pre.active}->{post.active}, phase {PHASES[post.phase]}",
        )
    # cards that faded: in play before the last step, gone after (fading cards go to
    # the faded area or wait as Sands; nothing else removes a card in these phases)
    fading = [
        slot for slot in range(4) if pre.slots[slot] >= 0 and pre.slots[slot] not in post.slots
    ]
    amplified = any(CARDS[x].power == "sands" for slot in fading for x in pre.attached[slot])
    score_gain = post.score - pre.score
    doom_gain = post.doom - pre.doom
    c.check(
        "turn_score",
        score_gain <= 2 and (score_gain == 0 or log.correct),
        f"{where}: score +{score_gain}, correct prediction {log.correct}",
    )
    expected_score = (1 + amplified) if log.correct else 0
    if log.correct:
        expected_doom = 0
    else:
        expected_doom = (1 if log.predicted else 0) + sum(
            0 if pre.slots[slot] == BLIND_MAN else 2 + amplified for slot in fading
        )
    ids = [CARDS[pre.slots[slot]].id for slot in fading]
    c.check(
        "turn_score",
        score_gain == expected_score,
        f"{where}: score +{score_gain}, expected +{expected_score} (correct {log.correct}, "
        f"amplified {amplified})",
    )
    c.check(
        "turn_doom",
        doom_gain == expected_doom and not (log.correct and doom_gain),
        f"{where}: doom +{doom_gain}, expected +{expected_doom} (predicted {log.predicted}, "
        f"correct {log.correct}, fading {ids}, amplified {amplified})",
    )
    if fading:
        c.coverage["fades"] += 1
    if amplified:
        c.coverage["amplified"] += 1
    if score_gain:
        c.coverage["scored"] += 1
    # which cards fade (the table is unchanged by the last step unless Sails exiled)
    if pre.phase != Phase.COST:
        for slot in range(4):
            card = pre.slots[slot]
            if card < 0 or card == FALL:
                continue
            if card == ASH:
                should = any(value <= 2 for value, _, _ in pre.plays)
            else:
                should = independent_hours(pre, slot) >= CARDS[card].moons
            c.check(
                "fade_rule",
                (slot in fading) == should,
                f"{where}: {CARDS[card].id} on slot {slot} with {pre.table[slot]} "
                f"(attached {[CARDS[x].id for x in pre.attached[slot]]}) fades "
                f"{slot in fading}, rules say {should}",
            )
    # end check
    if post.over:
        if post.won:
            ok = post.score >= WIN_SCORE and not post.truncated
        elif post.truncated:
            ok = post.turn == max_turns and post.score < WIN_SCORE and post.doom < LOSE_DOOM
        else:
            ok = post.doom >= LOSE_DOOM and post.score < WIN_SCORE
        c.check(
            "end_check",
            ok,
            f"{where}: over won={post.won} truncated={post.truncated} score {post.score} "
            f"doom {post.doom} turn {post.turn}",
        )
        c.coverage["won" if post.won else "truncated" if post.truncated else "lost"] += 1
    else:
        c.check(
            "end_check",
            post.score < WIN_SCORE and post.doom < LOSE_DOOM,
            f"{where}: not over at score {post.score} doom {post.doom}",
        )


# --- playing games --------------------------------------------------------------------


def choose(policy: str, s: State, legal: list[int], choice: np.random.Generator) -> int:
    action = legal[int(choice.integers(len(legal)))]
    if policy == "informed" and s.phase in (Phase.GROUP, Phase.VOTE, Phase.SAILS, Phase.REVEAL):
        if s.phase == Phase.REVEAL:
            return PASS if choice.random() < 0.8 else action
        powers = [a for a in legal if ACTIONS[a].kind == "power"]
        if powers and choice.random() < 0.5:
            return powers[int(choice.integers(len(powers)))]
        real = s.hands[s.active][0] if s.phase != Phase.SAILS else 0
        right = [a for a in legal if ACTIONS[a].kind == "predict" and ACTIONS[a].value == real]
        r = choice.random()
        if right and r < 0.6:
            return right[0]
        if PASS in legal and r < 0.9:
            return PASS
    return action


def play_game(
    c: Checker,
    config: GameConfig,
    game_seed: int,
    choice_seed: int,
    policy: str,
    save_at: float | None = None,
) -> State | None:
    """Play and check one game. ``save_at`` (0-1): at that fraction of the expected game
    length, save and load the game and continue the copy alongside the original."""
    where = f"{policy} seed {game_seed}/{choice_seed} {config}"
    rng = np.random.default_rng(game_seed)
    choice = np.random.default_rng(choice_seed)
    c.games += 1
    try:
        s = new_game(config, rng)
        twin: tuple[State, np.random.Generator] | None = None
        save_step = -1 if save_at is None else int(save_at * 20)
        log = TurnLog()
        limit = (config.max_turns or 200) * 200
        for n in range(limit):
            here = f"{where} step {n} turn {s.turn}"
            legal = check_state(c, s, here)
            if n == save_step:
                loaded, loaded_rng = loads(dumps(s, rng))
                c.check("save_load", loaded == s, f"{here}: loaded state differs")
                twin = (loaded, loaded_rng)
                c.coverage["saved:" + PHASES[s.phase]] += 1
            if s.over:
                return s
            action = choose(policy, s, legal, choice)
            spec = ACTIONS[action]
            c.coverage["action:" + (spec.power if spec.kind == "power" else spec.kind)] += 1
            log.observe(s, action)
            post = step(s, action, rng)
            c.steps += 1
            check_transition(c, s, action, post, log, here)
            if post.over or post.turn != s.turn:
                log = TurnLog()
            s = post
            if twin is not None:
                step_inplace(twin[0], action, twin[1])
                c.check("save_load", twin[0] == s, f"{here}: loaded game diverged")
        c.fail("game_ends", f"{where}: not over after {limit} steps (turn {s.turn})")
    except Exception:
        c.fail("exception", f"{where}: {traceback.format_exc(limit=-4)}")
    return None


SWEEPS = {
    # name: (games per config and policy, save every k-th game)
    "quick": (1, 1),
    "full": (16, 4),
}


def run_sweep(name: str) -> Checker:
    games, save_every = SWEEPS[name]
    offset = 0 if name == "quick" else 10_000
    c = Checker()
    k = 0
    for index, config in enumerate(CONFIGS):
        for policy in ("uniform", "informed"):
            for g in range(games):
                seed = offset + 100 * index + 10 * g + (policy == "informed")
                save_at = ((k * 7) % 10) / 10 if k % save_every == 0 else None
                play_game(c, config, seed, seed + 1_000_000, policy, save_at)
                k += 1
    return c


@pytest.fixture(scope="module", params=["quick", pytest.param("full", marks=pytest.mark.slow)])
def sweep(request: pytest.FixtureRequest) -> Checker:
    return run_sweep(request.param)


# --- the properties -------------------------------------------------------------------


def test_no_exception(sweep: Checker) -> None:
    sweep.assert_clean("exception")


def test_fate_tokens_conserved(sweep: Checker) -> None:
    """bag + exiled + hands + table == 3 of each value 1-7, after every step."""
    sweep.assert_clean("fates")


def test_cards_each_once(sweep: Checker) -> None:
    """Each card of the config's sets appears exactly once among deck, slots, faded,
    attached and sands_waiting."""
    sweep.assert_clean("cards")


def test_decider_has_legal_actions_until_over(sweep: Checker) -> None:
    sweep.assert_clean("decider", "legal_range")


def test_legal_actions_ascending_and_unique(sweep: Checker) -> None:
    """``engine.legal_actions``: "The legal action numbers ..., ascending"."""
    sweep.assert_clean("legal_sorted")


def test_decider_is_who_the_rulings_name(sweep: Checker) -> None:
    """Active player plays / steals / uses after-play powers; the leader (first player
    clockwise) decides group powers, costs and Sails; reveals and votes come from players
    who are not active."""
    sweep.assert_clean("decider_role")


def test_score_and_doom_never_decrease(sweep: Checker) -> None:
    sweep.assert_clean("monotone", "score_within_turn")


def test_turn_score(sweep: Checker) -> None:
    """Score rises only at the end of a turn with a correct prediction: +1, +2 when an
    amplified (Sands) card fades."""
    sweep.assert_clean("turn_score")


def test_turn_doom(sweep: Checker) -> None:
    """Correct turn: no doom. Otherwise +1 once for wrong predictions, +2 per fading card
    (+1 more each when amplified; The Blind Man none)."""
    sweep.assert_clean("turn_doom")


def test_fading_cards(sweep: Checker) -> None:
    """A card fades exactly when its hours reach its moons (The Ash: a 1 or 2 was played)."""
    sweep.assert_clean("fade_rule")


def test_games_end_and_end_check(sweep: Checker) -> None:
    """Every game is over within max_turns; it ends exactly at score 7 (won), doom 7
    (lost) or max_turns (truncated); the next seat clockwise starts the next turn."""
    sweep.assert_clean("game_ends", "turns", "end_check", "next_seat")


def test_hours_exactly_when_nothing_else(sweep: Checker) -> None:
    """A PLAY decision offers The Hours or slots 0-3, never both."""
    sweep.assert_clean("hours_exclusive")


def test_play_actions_match_card_conditions(sweep: Checker) -> None:
    """The play actions offered are exactly those ``rules.can_play`` allows for the hand
    (The Hours for both fates when nothing else is)."""
    sweep.assert_clean("plays_match_rules")


def test_number_lines_hold_real_fates(sweep: Checker) -> None:
    """Outside its own turn, a seat holding one fate has that value on its number line."""
    sweep.assert_clean("number_lines")


def test_active_number_line_holds_kept_fate(sweep: Checker) -> None:
    """After the plays, the active seat's public line still allows its real kept fate."""
    sweep.assert_clean("active_line")


def test_save_load_continue(sweep: Checker) -> None:
    """dumps(state, rng) -> loads mid-game, then both continue identically."""
    sweep.assert_clean("save_load")
    assert sum(n for k, n in sweep.coverage.items() if k.startswith("saved:")) > 100


def test_sweep_coverage(sweep: Checker) -> None:
    """The sweep really exercises the rules it checks."""
    cov = sweep.coverage
    assert sweep.games >= 300
    for key in ("won", "lost", "fades", "scored", "hours_play_offered"):
        assert cov[key] > 0, (key, dict(cov))
    for phase in ("play", "steal", "after_play", "reveal", "group", "vote", "cost"):
        assert cov["phase:" + phase] > 0, (phase, dict(cov))
    used = {k.split(":")[1] for k in cov if k.startswith("action:")}
    expected = {"play", "predict", "pass", "reveal", "cost", "steal", "saints", "sparrows"}
    assert expected <= used, expected - used


@pytest.mark.slow
def test_full_sweep_reaches_sails_and_amplify() -> None:
    """The informed policy over all configs reaches Sails and amplified fades."""
    c = Checker()
    configs = [cfg for cfg in CONFIGS if cfg.card_sets != ("base",)]
    for index, config in enumerate(configs):
        for g in range(4):
            play_game(c, config, 50_000 + 10 * index + g, 60_000 + index, "informed")
    c.assert_clean(*(k for k in c.counts if k != "legal_sorted"))  # that one: own test
    assert c.coverage["phase:sails"] > 0 and c.coverage["action:sails"] > 0, dict(c.coverage)
    assert c.coverage["amplified"] > 0, dict(c.coverage)


# --- determinism, step vs step_inplace, max_turns -------------------------------------


def record_game(config: GameConfig, game_seed, choice_seed: int) -> list[str]:
    if isinstance(game_seed, np.random.Generator):
        rng = game_seed
    else:
        rng = np.random.default_rng(game_seed)
    choice = np.random.default_rng(choice_seed)
    s = new_game(config, rng)
    out = [dumps(s)]
    while not s.over:
        legal = legal_actions(s)
        s = step(s, choose("informed", s, legal, choice), rng)
        out.append(dumps(s))
    return out


@pytest.mark.parametrize("config", CONFIGS[::23], ids=str)
def test_same_seed_same_actions_same_game(config: GameConfig) -> None:
    first = record_game(config, 7, 8)
    assert record_game(config, 7, 8) == first
    assert record_game(config, np.random.default_rng(7), 8) == first


def test_int_seed_equals_generator() -> None:
    config = GameConfig(num_players=4, card_sets="all")
    for seed in range(20):
        assert new_game(config, seed) == new_game(config, np.random.default_rng(seed))


def test_different_seeds_differ() -> None:
    config = GameConfig(card_sets="all")
    starts = {dumps(new_game(config, seed)) for seed in range(20)}
    assert len(starts) == 20


@pytest.mark.parametrize("config", CONFIGS[5::31], ids=str)
def test_step_leaves_input_and_matches_step_inplace(config: GameConfig) -> None:
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    choice = np.random.default_rng(4)
    s = new_game(config, rng_a)
    t = new_game(config, rng_b)
    while not s.over:
        legal = legal_actions(s)
        action = choose("informed", s, legal, choice)
        before = s.copy()
        new = step(s, action, rng_a)
        assert s == before, "step changed its input state"
        assert new is not s
        step_inplace(t, action, rng_b)
        assert t == new
        s = new


@pytest.mark.parametrize("config", CONFIGS[::40], ids=str)
def test_illegal_action_raises_and_changes_nothing(config: GameConfig) -> None:
    rng = np.random.default_rng(11)
    choice = np.random.default_rng(12)
    s = new_game(config, rng)
    while not s.over:
        legal = legal_actions(s)
        illegal = [a for a in range(len(ACTIONS)) if a not in legal]
        for bad in (illegal[0], illegal[-1], -1, len(ACTIONS)):
            before = s.copy()
            state_before = rng.bit_generator.state
            with pytest.raises(IllegalActionError):
                step(s, bad, rng)
            with pytest.raises(IllegalActionError):
                step_inplace(s, bad, rng)
            assert s == before
            assert rng.bit_generator.state == state_before
        s = step(s, choose("informed", s, legal, choice), rng)
    for bad in (0, PASS):
        with pytest.raises(IllegalActionError):
            step(s, bad, rng)


@pytest.mark.parametrize("max_turns", [1, 2, 3, 5])
def test_max_turns_truncates(max_turns: int) -> None:
    c = Checker()
    ended = collections.Counter()
    for index, base in enumerate(CONFIGS[::9]):
        config = GameConfig(**{**base.to_dict(), "difficulty": "easy", "max_turns": max_turns})
        for policy in ("uniform", "informed"):
            s = play_game(c, config, 900 + index, 901 + index, policy)
            if s is not None:
                assert s.turn <= max_turns
                ended["truncated" if s.truncated else "other"] += 1
    c.assert_clean(*(k for k in c.counts if k != "legal_sorted"))  # that one: own test
    assert ended["truncated"] > 0
