"""Per-action features (:mod:`shipwreck_env.rules.action_features`) against the engine.

Every decision of random games (every card set, both group modes, 3 and 5 players):

* rows exist for the decider's legal actions only (``legal`` is the engine's set), and a
  player who does not decide gets none;
* a play's condition, line, kept value and belief are what the engine records when the
  play is made (``record_play``; the belief block of the observation right after it);
* ``forced`` and ``options`` against a brute force: the hands ``(v, k)`` given to the
  active seat of a copy, the engine's own legal plays counted;
* the fades and their doom against the engine's end of turn (``fading.fading_slots`` and
  ``fade_cost`` on the state right after the play);
* a prediction's ``p_literal`` is the observation's literal belief block;
* twin games (a fate the decider cannot see swapped, the deck below its top shuffled)
  give the same rows.

Authority: issue 52 (per-action features from public facts and one's own hand).
"""

from __future__ import annotations

import numpy as np
import pytest
from twins import decider_twins, twin

from shipwreck_env.rules.action_features import (
    FEATURES,
    NUM_FEATURES,
    action_features,
    column,
)
from shipwreck_env.rules.actions import ACTIONS, HOURS_TARGET, NUM_ACTIONS
from shipwreck_env.rules.cards import CARD_INDEX
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
from shipwreck_env.rules.fading import fade_cost, fading_slots
from shipwreck_env.rules.observation import ObservationLayout, decode
from shipwreck_env.rules.powers import sands_amplifies
from shipwreck_env.rules.scenario import arrange
from shipwreck_env.rules.state import Phase, State
from shipwreck_env.vector.chance import StreamGenerator

CONFIGS = [
    GameConfig(num_players=3, card_sets="all", difficulty="hard"),
    GameConfig(num_players=5, card_sets="all", difficulty="doomed", group_decision="vote"),
    GameConfig(num_players=3, difficulty="normal"),
]
CHALICE, FALL, FEAST = CARD_INDEX["chalice"], CARD_INDEX["fall"], CARD_INDEX["feast"]


def _block(row: np.ndarray, name: str) -> np.ndarray:
    start = column(name)
    return row[start : start + 7]


def _decisions(config: GameConfig, games: int, seed: int):
    """(state, decider) at every decision of ``games`` random games."""
    rng = np.random.default_rng(seed)
    for g in range(games):
        s = new_game(config, StreamGenerator(seed * 1000 + g))
        while not s.over:
            yield s, s.decider
            step_inplace(s, int(rng.choice(legal_actions(s))), StreamGenerator(g, s.turn))


def _after(s: State, action: int) -> State:
    t = s.copy()
    step_inplace(t, action, StreamGenerator(7, 1))
    return t


@pytest.mark.parametrize("config", CONFIGS, ids=["3p-all", "5p-vote", "3p-base"])
def test_play_rows_are_what_the_engine_records(config: GameConfig) -> None:
    layout = ObservationLayout.for_config(config, belief=True)
    checked = {"line": 0, "belief": 0, "fades": 0, "forced": 0}
    for s, decider in _decisions(config, 12, 3):
        features = action_features(s, decider)
        legal = legal_actions(s)
        assert sorted(np.flatnonzero(features[:, column("legal")]).tolist()) == sorted(legal)
        assert not features[[a for a in range(NUM_ACTIONS) if a not in legal]].any()
        other = (decider + 1) % config.num_players
        assert not action_features(s, other).any()  # only the decider has rows
        if s.phase != Phase.PLAY:
            continue
        for a in legal:
            spec = ACTIONS[a]
            if spec.kind != "play":
                assert not features[a, column("cond_1") : column("feast") + 1].any()
                continue
            row = features[a]
            v, target = spec.value, spec.slot
            card = s.slots[target] if target != HOURS_TARGET else -1
            t = _after(s, a)
            if card == FEAST and not s.feast_done:
                assert row[column("feast")] == 1.0
                continue
            kept = t.hands[s.active][0]
            assert _block(row, "kept_1").tolist() == [float(k == kept) for k in range(1, 8)]
            line = int(sum(int(b) << i for i, b in enumerate(_block(row, "line_1"))))
            engine_line = t.lines[s.active]
            assert engine_line & ~line == 0  # announcements only narrow the play's line
            announced = card == CHALICE or FALL in s.slots or t.correct or t.turn != s.turn
            if not announced:
                assert engine_line == line
                checked["line"] += 1
                # the same play when the tracked fate's line rules out v: the fate played
                # must be the fresh one, so the line keeps only the tracked fate's values
                narrowed = s.copy()
                narrowed.tracked = s.tracked & ~(1 << (v - 1)) | 1 << (kept - 1)
                after = _after(narrowed, a).lines[s.active]
                row_n = action_features(narrowed, decider)[a]
                assert _block(row_n, "line_1").tolist() == [float(after >> i & 1) for i in range(7)]
                checked["narrowed"] = checked.get("narrowed", 0) + (after != engine_line)
                if t.phase != Phase.PLAY and len(t.hands[s.active]) == 1:
                    seen = decode(layout.encoder(t, decider), layout)["belief"]
                    assert np.allclose(_block(row, "belief_1"), seen, atol=1e-6)
                    checked["belief"] += 1
            if t.turn == s.turn and not t.over and t.phase != Phase.STEAL:
                fading = fading_slots(t)
                amplified = sands_amplifies(t, fading)
                doom = sum(fade_cost(t.slots[slot], amplified) for slot in fading)
                assert row[column("fading")] == pytest.approx(len(fading) / 4)
                assert row[column("fade_doom")] == pytest.approx(doom / 3)
                assert row[column("amplified")] == float(amplified)
                left = sum(1 for c in t.slots if c >= 0) - len(fading)
                assert row[column("cards_left")] == pytest.approx(left / 4)
                checked["fades"] += 1
            # brute force: the engine's legal plays of each hand (v, k) on this table
            forced = options = 0.0
            for k in range(1, 8):
                weight = _block(row, "belief_1")[k - 1]
                if weight > 0:
                    u = s.copy()
                    u.hands[u.active] = [v, k]
                    plays = [b for b in legal_actions(u) if ACTIONS[b].kind == "play"]
                    forced += weight * (plays == [a])
                    options += weight * len(plays)
                    checked["forced"] += 1
            assert row[column("forced")] == pytest.approx(forced, abs=1e-6)
            assert row[column("options")] == pytest.approx(options / 8, abs=1e-6)
    assert min(checked.values()) > 10, checked  # every comparison ran, many times


@pytest.mark.parametrize("config", CONFIGS[:2], ids=["3p-all", "5p-vote"])
def test_a_prediction_carries_the_observations_literal_belief(config: GameConfig) -> None:
    layout = ObservationLayout.for_config(config, belief=True)
    checked = 0
    for s, decider in _decisions(config, 10, 5):
        features = action_features(s, decider)
        predictions = [a for a in legal_actions(s) if ACTIONS[a].kind == "predict"]
        seen = decode(layout.encoder(s, decider), layout)["belief"]
        if not predictions or not seen.any():
            continue
        assert s.active % config.num_players != decider  # the group decides, never the active
        for a in predictions:
            v = ACTIONS[a].value
            assert features[a, column("p_literal")] == pytest.approx(seen[v - 1], abs=1e-6)
            assert features[a, column("on_line")] == float(s.lines[s.active] >> (v - 1) & 1)
        checked += 1
    assert checked > 20


@pytest.mark.parametrize("config", CONFIGS[:2], ids=["3p-all", "5p-vote"])
def test_twin_games_give_the_same_rows(config: GameConfig) -> None:
    rng = np.random.default_rng(11)
    compared = 0
    for i, (s, decider) in enumerate(_decisions(config, 12, 9)):
        if i % 2:
            continue
        features = action_features(s, decider)
        for other in [*decider_twins(s)[:4], twin(s, rng)]:
            assert np.array_equal(action_features(other, decider), features)
            compared += 1
    assert compared > 50


def test_bad_arguments_are_refused() -> None:
    s = new_game(GameConfig(), StreamGenerator(1))
    with pytest.raises(ValueError, match=r"observer 3 is not allowed; allowed: 0\.\.2"):
        action_features(s, 3)
    with pytest.raises(ValueError, match="feature 'nope' is not allowed"):
        column("nope")
    assert action_features(s, s.decider).shape == (NUM_ACTIONS, NUM_FEATURES)
    assert len(set(FEATURES)) == NUM_FEATURES


@pytest.mark.parametrize("shadows", [False, True], ids=["plain", "shadows"])
def test_a_plays_announcements_are_the_ones_the_engine_makes(shadows: bool) -> None:
    """The Chalice's tell and The Fall's answer in a play's row are what the engine
    announces right after that play; once Shadows is used the engine reads the kept fate
    one higher, and so do the features."""
    config = GameConfig(num_players=3, card_sets="all")
    said_any = {"chalice": 0, "fall": 0}
    for hand in ((4, 4), (2, 6), (6, 1), (5, 3), (3, 3)):
        s = arrange(config, slots=["chalice", "ash", "fall", "beast"], table=[(), (), (5,), ()], hand=hand)  # fmt: skip
        s.shadows = s.power_used = shadows
        features = action_features(s, s.decider)
        for a in legal_actions(s):
            if ACTIONS[a].kind != "play":
                continue
            t = _after(s, a)
            if t.turn != s.turn or t.phase == Phase.STEAL:
                continue
            said = dict(e for e in t.events[len(s.events) :] if e[0] in said_any)
            row = features[a]
            for kind, yes, no in (
                ("chalice", "chalice_higher", "chalice_not"),
                ("fall", "fall_fades", "fall_not"),
            ):
                answer = said.get(kind)
                assert row[column(yes)] == float(answer is not None and bool(answer)), (hand, a)
                assert row[column(no)] == float(answer is not None and not answer), (hand, a)
                said_any[kind] += answer is not None
    assert min(said_any.values()) > 5, said_any
