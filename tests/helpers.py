"""Helpers shared by several test modules (imported as ``helpers``: pytest puts the
tests folder on the path)."""

from __future__ import annotations

import ast
import itertools
import json
import pickle
from pathlib import Path

import numpy as np

from shipwreck_env.rules.actions import NUM_ACTIONS
from shipwreck_env.rules.conditions import visible_mask
from shipwreck_env.rules.config import DIFFICULTIES, GameConfig
from shipwreck_env.rules.engine import legal_actions, step
from shipwreck_env.rules.observation import ObservationLayout
from shipwreck_env.rules.state import State
from shipwreck_env.rules.view import make_view


def config_matrix() -> list[dict]:
    """Keyword sets of every combination of the switches that change the rules: 2-5
    players x difficulty x group decision x reveal x card sets, plus the 2-player
    challenge mode."""
    out = []
    for players, difficulty, group, reveal, sets in itertools.product(
        (2, 3, 4, 5), DIFFICULTIES, ("leader", "vote"), (True, False), ("base", "all")
    ):
        out.append(
            dict(
                num_players=players,
                difficulty=difficulty,
                group_decision=group,
                reveal=reveal,
                card_sets=sets,
            )
        )
    for difficulty, group, reveal, sets in itertools.product(
        DIFFICULTIES, ("leader", "vote"), (True, False), ("base", "all")
    ):
        out.append(
            dict(
                num_players=2,
                challenge_mode=True,
                difficulty=difficulty,
                group_decision=group,
                reveal=reveal,
                card_sets=sets,
            )
        )
    return out


def mask(*values: int) -> int:
    """Number line mask with exactly ``values`` possible (``rules.visible_mask``)."""
    return visible_mask(values)


def legal_mask(s: State) -> np.ndarray:
    """int8[NUM_ACTIONS]: 1 for each legal action at ``s``."""
    out = np.zeros(NUM_ACTIONS, dtype=np.int8)
    out[legal_actions(s)] = 1
    return out


def act_at(policy, s: State, state: State | None = None) -> int:
    """``policy``'s decision at ``s``, from the decider's view (``state`` handed over too,
    so a policy that peeks at it shows in a twin test)."""
    view = make_view(s, s.decider)
    return policy.act(None, legal_mask(s), view, np.random.default_rng(0), state=state)


def decision_states(config, table, games: int, seed: int):
    """Every decision state of ``games`` games of ``table`` (a team, reset before each
    game), its players let watch as the evaluator lets them; one seeded generator."""
    from shipwreck_env.envs.policy import let_watch
    from shipwreck_env.rules.engine import new_game, step_inplace

    rng = np.random.default_rng(seed)
    for _ in range(games):
        table.reset()
        s = new_game(config, rng)
        while not s.over:
            yield s
            step_inplace(s, act_at(table.policy_for(make_view(s, s.decider)), s), rng)
            let_watch(table, s)


def run(s: State, *actions: int, seed: int = 0) -> State:
    """Apply ``actions`` in order with one seeded generator; return the final state."""
    rng = np.random.default_rng(seed)
    for a in actions:
        s = step(s, a, rng)
    return s


def fake_rllib_checkpoint(root: Path, belief: bool = True, players: int = 3) -> tuple[Path, object]:
    """A checkpoint laid out as RLlib 2.60 writes one (the module's state a pickled dict
    of numpy arrays under ``net.``), with the trainer's metadata (role ``self``): what
    ``rllib:PATH`` loads, made without Ray. Returns (checkpoint folder, its network)."""
    import torch

    from shipwreck_agents.learned.rllib import META_FILE, MaskedActorCritic
    from shipwreck_agents.learned.sb3 import game_meta

    config = GameConfig(num_players=players)
    size = ObservationLayout.for_config(config, belief).size
    torch.manual_seed(0)
    net = MaskedActorCritic(size, NUM_ACTIONS, (16, 8))
    checkpoint = root / "run" / "checkpoints" / "iter_000004"
    module = checkpoint / "learner_group" / "learner" / "rl_module" / "shared"
    module.mkdir(parents=True)
    state = {f"net.{k}": v.numpy().copy() for k, v in net.state_dict().items()}
    (module / "module_state.pkl").write_bytes(pickle.dumps(state))
    meta = {
        "module": "shared",
        "role": "self",
        "obs_dim": size,
        "num_actions": NUM_ACTIONS,
        "hidden": [16, 8],
        "game": game_meta(config, belief),
        "iteration": 4,
        "env_steps": 1000,
    }
    (checkpoint / META_FILE).write_text(json.dumps(meta))
    (root / "run" / "checkpoints" / "latest").write_text("iter_000004\n")
    return checkpoint, net


def imported_modules(path: Path) -> set[str]:
    """Full names of every module ``path`` imports, at any depth (lazy imports in
    functions included)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def imported_packages(path: Path) -> set[str]:
    """Top-level names of every module ``path`` imports."""
    return {name.split(".")[0] for name in imported_modules(path)}
