"""First contact with AgileRL, where its algorithms look for the action mask.

AgileRL's off-policy loop (``agilerl.training.train_off_policy``) hands DQN
``info.get("action_mask")`` from a Gymnasium vector env (``make_vect_envs``), and DQN
turns it into a mask with ``1 - action_mask``: the mask must be 1/0 integers (as
Gymnasium's own ``Discrete.sample(mask=...)`` wants: ``int8``), not booleans. Its
multi-agent algorithms read ``info[agent]["action_mask"]`` of a PettingZoo *parallel*
env, which a turn-based game is not (``docs/libraries/agilerl.md``).

AgileRL 2.58 pins ``pettingzoo<1.27`` and ``tensordict==0.13.0``, so it lives in its own
virtualenv, ``.venv-agilerl`` (``lab/tools/setup.sh``, ``lab/tools/requirements-agilerl.txt``);
``./test.sh`` runs this file there, and ``.venv`` skips it.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import shipwreck_env  # noqa: F401  (registers the ids)

agilerl = pytest.importorskip(
    "agilerl", reason="agilerl is installed only in .venv-agilerl (./test.sh runs this file there)"
)

from agilerl.algorithms import DQN  # noqa: E402

# the module-qualified id: AgileRL's make_vect_envs starts AsyncVectorEnv workers
PLAY = "shipwreck_env:ShipwreckArcana-Play-v0"
KWARGS = {"num_players": 3, "difficulty": "easy"}
ROOT = Path(__file__).resolve().parents[3]


def test_dqn_picks_only_actions_the_info_mask_allows() -> None:
    """DQN's ``get_action(obs, epsilon, action_mask=info["action_mask"])``, greedy and
    random alike, on a sync vector env's stacked info."""
    envs = gymnasium.make_vec(PLAY, num_envs=3, vectorization_mode="sync", **KWARGS)
    agent = DQN(envs.single_observation_space, envs.single_action_space)
    obs, info = envs.reset(seed=0)
    for step in range(100):
        mask = info["action_mask"]
        action = agent.get_action(obs, epsilon=0.5 if step % 2 else 0.0, action_mask=mask)
        assert mask[np.arange(3), action].all()
        obs, _, _, _, info = envs.step(action)
    envs.close()


def _docs_example() -> str:
    """The AgileRL page's example (a ``python title="agilerl_dqn.py"`` block, which the
    README/docs test leaves to this file: it needs this virtualenv)."""
    page = (ROOT / "docs" / "libraries" / "agilerl.md").read_text()
    blocks = re.findall(r'^```python title="agilerl_dqn.py"\n(.*?)^```', page, re.M | re.S)
    assert len(blocks) == 1, "docs/libraries/agilerl.md lost its example"
    return blocks[0]


@pytest.mark.slow
def test_the_docs_example_trains_dqn_with_train_off_policy(tmp_path: Path) -> None:
    """AgileRL's documented loop over ``make_vect_envs`` (async workers) trains a small
    DQN population for a few hundred steps, as docs/libraries/agilerl.md shows it."""
    script = tmp_path / "agilerl_dqn.py"
    script.write_text(_docs_example())
    result = subprocess.run(
        [sys.executable, str(script)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "fitness (mean team reward): [" in result.stdout
