"""A fast-trained team on the reference engine (shipwreck_agents.learned.fast_team)."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from test_belief import BruteMemory, _brute_force, _carrying  # noqa: E402

from shipwreck_agents.learned.actor_critic import ActorCritic, export_sb3  # noqa: E402
from shipwreck_agents.learned.fast_team import FastTeamPolicy, shared_policy  # noqa: E402
from shipwreck_env.rules.actions import ACTIONS, NUM_ACTIONS  # noqa: E402
from shipwreck_env.rules.config import GameConfig  # noqa: E402
from shipwreck_env.rules.engine import new_game, step_inplace  # noqa: E402
from shipwreck_env.rules.observation import ObservationLayout, encode  # noqa: E402
from shipwreck_env.rules.view import make_view  # noqa: E402
from shipwreck_training.common.config import GameSettings  # noqa: E402
from shipwreck_training.common.games import Games  # noqa: E402
from shipwreck_training.common.policy_belief_batched import PolicyBelief  # noqa: E402


def _exported(tmp_path, belief_kind: str, sharpen: float = 1.0) -> str:
    torch.manual_seed(0)
    layout = ObservationLayout(3, belief=True)
    path = tmp_path / "team.pth"
    network = ActorCritic(layout.size, NUM_ACTIONS, (32,))
    with torch.no_grad():  # sharper than at initialisation: the hand matters more
        for p in network.parameters():
            p.mul_(sharpen)
    export_sb3(network, path)
    meta = {"belief": True, "belief_kind": belief_kind, "role": "self"}
    (tmp_path / "team.meta.json").write_text(json.dumps(meta))
    return str(path)


_PASS = next(a.index for a in ACTIONS if a.kind == "pass")
_REVEAL = next(a.index for a in ACTIONS if a.kind == "reveal")


def _keeping(view, action: int) -> int:
    """The action played instead of ``action`` so that fates stay held: whoever is not
    the active player passes where it may, and reveals a held fate only if forced."""
    if view.decider == view.active_player:
        return action
    if _PASS in view.legal:
        return _PASS
    if action == _REVEAL and len(view.legal) > 1:
        return next(a for a in view.legal if a != _REVEAL)
    return action


def _decisions(policy, difficulty: str, games: int, layout, rng, keep_fates: bool = False):
    """Play ``games`` games with ``policy`` in both roles (with ``keep_fates``, the
    actions of :func:`_keeping`); yields ``(game, state before the decision, the policy
    as it was before deciding (only where the turn's first play may come, else None),
    its view, the policy's action)``."""
    for game in range(games):
        s = new_game(GameConfig(num_players=3, difficulty=difficulty), np.random.default_rng(game))
        policy.reset()
        while not s.over:
            view = make_view(s, s.decider)
            mask = np.zeros(NUM_ACTIONS, np.int8)
            mask[list(view.legal)] = 1
            may_play = view.phase == "play" and not view.plays
            before = copy.deepcopy(s), copy.deepcopy(policy) if may_play else None
            action = policy.act(encode(s, s.decider, layout), mask, view, rng)
            yield game, *before, view, action
            step_inplace(s, _keeping(view, action) if keep_fates else action, rng)


def _first_play(view, action: int) -> bool:
    return view.phase == "play" and not view.plays and ACTIONS[action].kind == "play"


SPARROWS = np.array([a.kind == "power" and a.power == "sparrows" for a in ACTIONS])
"""Per action number: True for a use of Sparrows (cycle the card on a slot)."""
AFTER_PLAY_POWERS = np.array(
    [a.kind == "power" and a.power in ("shells", "sinners") for a in ACTIONS]
)
"""Per action number: True for a use of Shells or Sinners (after the play)."""


def with_sparrows(mask: np.ndarray, actions: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``actions``, except that every active player who may use Sparrows uses it (on a
    random slot): random play alone rarely reaches a turn with Sparrows before the play."""
    sparrows = mask & SPARROWS
    forced = (rng.random(mask.shape) * sparrows).argmax(1)
    return np.where(sparrows.any(1), forced, actions)


def with_after_play_powers(
    mask: np.ndarray, actions: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """``actions``, except that half of the players who may use Shells or Sinners do (a
    random one of those uses), so that both the powers and the pass are chosen."""
    powers = mask & AFTER_PLAY_POWERS
    forced = (rng.random(mask.shape) * powers).argmax(1)
    return np.where(powers.any(1) & (rng.random(len(mask)) < 0.5), forced, actions)


def sparrows_before_play(view) -> bool:
    """Sparrows was used this turn (before the play: it is legal at no other time)."""
    return any(SPARROWS[a] for a in view.turn_actions)


@pytest.mark.parametrize(
    ("kind", "after_play"),
    [("policy", False), ("policy_carry", False), ("policy", True), ("policy_carry", True)],
)
def test_the_trainers_belief_is_the_reference_teams_on_turns_with_sparrows(
    tmp_path, kind, after_play
):
    """Differential: along the same games, the block the trainer's batched
    ``PolicyBelief`` writes into every group observation equals the block
    :class:`FastTeamPolicy` writes on the reference engine's state of that game (the
    literal block where it writes none), for both policy belief kinds, with and without
    the after-play choice multiplied in; every active player who may use Sparrows does,
    so many blocks follow a turn whose table changed before the play (the hypothetical
    hands are judged on the table at the play), and half of those who may use Shells or
    Sinners after the play do (with ``after_play``, many blocks follow such a choice)."""
    path = _exported(tmp_path, kind, sharpen=3.0)
    games = Games(GameSettings(difficulties=("normal",)), 12, 7)
    part, offset = games.parts[0], games.layout.offsets["belief"]
    policies = [FastTeamPolicy(path, after_play=after_play) for _ in range(games.num_games)]
    belief = PolicyBelief(games, carry=kind == "policy_carry", after_play=after_play)
    rng = np.random.default_rng(7)
    compared = after_sparrows = after_powers = 0
    chose_after_play: set[tuple[int, int]] = set()  # (game, turn): a factor was applied
    for _ in range(300):
        obs, mask = games.observe(), games.legal_mask()
        ours = obs.copy()
        belief.fill(ours, games)
        actions = with_after_play_powers(mask, with_sparrows(mask, _carrying(mask, rng), rng), rng)
        for game, state in enumerate(part.to_states()):
            view = make_view(state, state.decider)
            reference_obs = encode(state, state.decider, games.layout)
            assert np.array_equal(reference_obs, obs[game])  # the two engines show the same
            policy = policies[game]
            if view.decider == view.active_player:
                action = int(actions[game])
                policy.remember_play(reference_obs, mask[game], view, action)
                before = policy._likelihood
                policy.remember_after_play(reference_obs, mask[game], view, action)
                if policy._likelihood is not before and (mask[game] & AFTER_PLAY_POWERS).any():
                    chose_after_play.add((game, view.turn))
                continue
            policy.act(reference_obs, mask[game], view, rng)
            got = ours[game, offset : offset + 7]
            if policy.last_belief is None:
                assert np.array_equal(got, obs[game, offset : offset + 7]), game
                continue
            np.testing.assert_allclose(got, policy.last_belief, rtol=1e-4, atol=1e-6)
            compared += 1
            after_sparrows += sparrows_before_play(view)
            after_powers += (game, view.turn) in chose_after_play
        belief.record(games, obs, mask, actions, policies[0].model)
        ended = np.flatnonzero(games.step(actions)[3]["_final"])
        belief.restart(ended)
        for game in ended:
            policies[game].reset()
    assert compared > 100 and after_sparrows >= 10, (compared, after_sparrows)
    assert after_powers >= 100 if after_play else after_powers == 0, after_powers


@pytest.mark.parametrize("kind", ["policy", "policy_carry"])
def test_group_belief_on_the_reference_engine_equals_brute_force(tmp_path, kind):
    """The reference-engine team's block equals the brute-force posterior of
    ``test_belief`` (with each seat's memory for ``policy_carry``), the same one the
    batched ``PolicyBelief`` is pinned to: the two sides compute one belief."""
    policy = FastTeamPolicy(_exported(tmp_path, kind, sharpen=3.0))
    layout = ObservationLayout(3, belief=True)
    rng = np.random.default_rng(0)
    compared = differs = 0
    memories: dict[int, BruteMemory] = {}  # per game, as the team resets per game
    pending = plain = None
    for game, before, _, view, action in _decisions(policy, "normal", 6, layout, rng, True):
        memory = memories.setdefault(game, BruteMemory())
        if _first_play(view, action):
            plain = _brute_force(before, action, policy.model, layout)
            pending = plain
            if kind == "policy_carry":
                pending = memory.weights(before, action, policy.model, layout)
        if policy.last_belief is not None:
            line = np.array([(before.lines[before.active] >> v) & 1 for v in range(7)])
            weights, without = pending * line, plain * line
            np.testing.assert_allclose(policy.last_belief, weights / weights.sum(), rtol=1e-4)
            assert policy.last_belief[before.hands[before.active][0] - 1] > 0
            differs += not np.allclose(policy.last_belief, without / without.sum(), rtol=1e-3)
            compared += 1
    used = sum(m.used for m in memories.values())
    assert compared >= 5
    assert kind == "policy" or (used >= 5 and differs >= 3), (used, differs)


def test_literal_models_keep_the_literal_block_and_one_object_per_file(tmp_path):
    path = _exported(tmp_path, "literal")
    from shipwreck_agents.registry import make_policy

    assert shared_policy(path) is shared_policy(path) is make_policy(f"fast:{path}")
    policy = shared_policy(path)
    s = new_game(GameConfig(num_players=3), np.random.default_rng(0))
    view = make_view(s, s.decider)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    mask[list(view.legal)] = 1
    action = policy.act(encode(s, s.decider, ObservationLayout(3, belief=True)), mask, view, None)
    assert action in view.legal and policy.last_belief is None


def test_a_fast_model_refuses_a_game_it_was_not_trained_on(tmp_path):
    path = _exported(tmp_path, "literal")
    meta = json.loads((tmp_path / "team.meta.json").read_text())
    meta["num_players"] = 4
    (tmp_path / "team.meta.json").write_text(json.dumps(meta))
    policy = FastTeamPolicy(path)
    s = new_game(GameConfig(num_players=3), np.random.default_rng(0))
    view = make_view(s, s.decider)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    mask[list(view.legal)] = 1
    with pytest.raises(ValueError, match="num_players=4"):
        policy.act(encode(s, s.decider, ObservationLayout(3, belief=True)), mask, view, None)


def _hidden_twins(s):
    """States that differ from ``s`` only in hidden facts: the face-down deck's order,
    and each held fate (the active seat's included) replaced by another value where the
    public record allows it."""
    from twins import swapped, twin

    out = [twin(s, np.random.default_rng(s.turn))]
    for seat, hand in enumerate(s.hands):
        for index in range(len(hand)):
            for w in range(1, 8):
                if (t := swapped(s, seat, index, w)) is not None:
                    out.append(t)
                    break
    return out


def test_the_carried_belief_reads_only_public_facts_and_the_network(tmp_path):
    """Twin test: at every first play, the likelihood and the memory the team keeps are
    the same in any state the public record cannot tell from the real one, as long as
    that state allows the same play (the active player's own hand is rewritten for
    every hypothesis, so its real value must not matter)."""
    policy = FastTeamPolicy(_exported(tmp_path, "policy_carry"))
    layout = ObservationLayout(3, belief=True)
    rng = np.random.default_rng(3)
    checked = own = 0
    for _, s, before, _, action in _decisions(policy, "normal", 4, layout, rng):
        if not _first_play(make_view(s, s.decider), action):
            continue
        for t in _hidden_twins(s):
            t_view = make_view(t, t.decider)
            if action not in t_view.legal:
                continue  # that hand could not make this play
            t_mask = np.zeros(NUM_ACTIONS, bool)
            t_mask[list(t_view.legal)] = True
            other = copy.deepcopy(before)
            other.remember_play(encode(t, t.decider, layout), t_mask, t_view, action)
            np.testing.assert_array_equal(other._likelihood, policy._likelihood)
            seat = s.active
            np.testing.assert_array_equal(other._memory[seat][1], policy._memory[seat][1])
            own += t.hands[seat] != s.hands[seat]
            checked += 1
    assert checked >= 20 and own >= 5, (checked, own)


def test_after_play_inputs_of_each_kept_fate_equal_the_reference_encoding(tmp_path):
    """The hypothetical after-play inputs (``after_play=True``, an experiment): for every
    kept value and whether it is the carried fate, the observation and the legal mask the
    player would have are the reference engine's for that state; Sinners is reached."""
    from shipwreck_agents.learned.fast_team import after_play_masks
    from shipwreck_agents.learned.policy_belief import kept_observations

    layout = ObservationLayout(3, belief=True)
    rng = np.random.default_rng(11)
    checked = sinners = 0
    for game in range(300):
        s = new_game(GameConfig(num_players=3, difficulty="normal"), np.random.default_rng(game))
        while not s.over and checked < 200:
            view = make_view(s, s.decider)
            if view.phase == "after_play" and view.decider == view.active_player:
                obs = encode(s, s.decider, layout)[None]
                legal = np.zeros(NUM_ACTIONS, bool)
                legal[list(view.legal)] = True
                masks = after_play_masks(legal, view)
                for carried in (False, True):
                    if carried and not view.carried_into_turn:
                        continue
                    rows = kept_observations(obs, layout, np.full(14, carried))
                    for h in range(7):
                        t = copy.deepcopy(s)
                        t.hands[t.active] = [h + 1]
                        t.old_fate = h + 1 if carried else 0
                        t.played_old = view.carried_into_turn and not carried
                        t.kept_eff = h + 1 + (1 if t.shadows else 0)
                        np.testing.assert_array_equal(rows[h], encode(t, t.decider, layout))
                        assert sorted(np.flatnonzero(masks[h])) == sorted(
                            make_view(t, t.decider).legal
                        )
                        sinners += any(
                            ACTIONS[a].power == "sinners" for a in np.flatnonzero(masks[h])
                        )
                        checked += 1
            legal = list(view.legal)
            step_inplace(s, legal[rng.integers(len(legal))], rng)
    assert checked >= 100 and sinners >= 20, (checked, sinners)


def test_the_after_play_belief_is_off_by_default_and_a_run_with_it_resumes_exactly(tmp_path):
    """``belief_after_play`` is a config key, off by default (a default belief keeps
    exactly the state it kept before the key), refused without the policy belief; a
    run with it resumes to the same network and belief, and its model tells the team
    to multiply the after-play choice in too."""
    from test_fast_ppo import _config

    from shipwreck_training.fast.ppo import Trainer
    from shipwreck_training.fast.run import train

    default = _config(policy_belief="carry", env={"belief": "policy"})
    assert default.belief_after_play is False
    assert set(Trainer(default).belief.state_dict()) == {
        "likelihood",
        "turn",
        "memory",
        "memory_turn",
    }
    with pytest.raises(ValueError, match=r"belief_after_play true is not allowed with env\.belief"):
        _config(belief_after_play=True)
    cfg = _config(policy_belief="carry", belief_after_play=True, env={"belief": "policy"})
    straight = train(cfg, tmp_path / "a")
    train(cfg, tmp_path / "b", stop_after=256)
    resumed = train(cfg, tmp_path / "b", resume=True)
    for p, q in zip(straight.model.parameters(), resumed.model.parameters(), strict=True):
        assert torch.equal(p, q)
    state = straight.belief.state_dict()
    assert "hands" in state and (state["hands"] > 0).any()
    for key, value in state.items():
        np.testing.assert_array_equal(value, resumed.belief.state_dict()[key])
    with pytest.raises(ValueError, match="after-play terms cannot load"):
        Trainer(default).belief.load_state_dict(state)
    assert FastTeamPolicy(str(tmp_path / "a" / "model.pth")).after_play is True
    meta = json.loads((tmp_path / "a" / "model.meta.json").read_text())
    assert meta["belief_after_play"] is True


def test_a_fast_model_refuses_an_observation_of_another_size_naming_both(tmp_path):
    policy = FastTeamPolicy(_exported(tmp_path, "literal"))
    s = new_game(GameConfig(num_players=3), np.random.default_rng(0))
    view = make_view(s, s.decider)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    mask[list(view.legal)] = 1
    obs = encode(s, s.decider, ObservationLayout(3, belief=True))
    with pytest.raises(ValueError, match=f"size {obs.size}, got {obs.size - 1}: evaluate"):
        policy.act(obs[:-1], mask, view, None)
