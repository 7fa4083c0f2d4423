"""The policy-conditioned belief in RLlib: each env runner's env asks its runner's module.

RLlib's single-agent env runner builds its vector env before its RLModule, and after
every training iteration loads the learner's weights into that same module object
(``set_state``). :class:`BeliefCallback` (``on_environment_created``) therefore hands the
env (:class:`shipwreck_training.rllib.vector_env.ShipwreckVectorEnv`) a function that
returns the runner's module's network when asked, so the belief written into the group's
observations is always computed with the weights that are sampling the actions, as the
fast trainer's is. Local and remote runners alike; nothing crosses the network.
"""

from __future__ import annotations

from typing import Any

from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core import DEFAULT_MODULE_ID

__all__ = ["BeliefCallback", "runner_network"]


def runner_network(env_runner: Any) -> Any:
    """The masked actor-critic of ``env_runner``'s module (the one module of the
    single-agent runner, alone or inside a ``MultiRLModule``)."""
    module = env_runner.module
    if DEFAULT_MODULE_ID in getattr(module, "_rl_modules", {}):
        module = module[DEFAULT_MODULE_ID]
    return module.net


class BeliefCallback(RLlibCallback):
    """Gives every env the belief needs its runner's current network (module docstring)."""

    def on_environment_created(
        self, *, env_runner: Any, metrics_logger: Any = None, env: Any, env_context: Any, **kw: Any
    ) -> None:
        if hasattr(env, "use_model"):
            env.use_model(lambda: runner_network(env_runner))
