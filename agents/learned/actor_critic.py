"""The masked actor-critic every trainer trains and every loader plays, laid out as SB3's.

One network, two tanh MLPs (policy and value) and one linear head each. Its modules
carry the names of ``sb3_contrib``'s ``MaskableActorCriticPolicy`` with
``net_arch=dict(pi=hidden, vf=hidden)`` and tanh activations, so :func:`export_sb3`
copies the weights into such a policy (the ``ppo:<file>.pth`` loader plays it) and
:func:`load_sb3` reads such a file back. The fast trainer (``shipwreck_training.fast``)
trains it directly, RLlib's module (``shipwreck_training.rllib``) holds it, and the
``fast:`` and ``rllib:`` loaders rebuild it from saved weights (:data:`RLLIB_LEGACY_NAMES`
maps the layout of RLlib checkpoints written before this module existed).

Illegal actions get the logit :data:`MASKED`: ``exp(MASKED - max)`` is exactly 0 in
float32, so an illegal action is never sampled, and the logit is finite, so an all-zero
mask (an agent's final observation in RLlib) gives no NaN.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import nn

__all__ = [
    "MASKED",
    "RLLIB_LEGACY_NAMES",
    "ActorCritic",
    "export_sb3",
    "load_sb3",
    "rename",
    "tanh_mlp",
    "widen",
]

MASKED = -1e9
"""Logit of an illegal action (exp underflows to 0; no NaN when multiplied by 0)."""

RLLIB_LEGACY_NAMES = {
    "pi.": "mlp_extractor.policy_net.",
    "vf.": "mlp_extractor.value_net.",
    "pi_head.": "action_net.",
    "vf_head.": "value_net.",
}
"""Parameter-name prefixes of the network RLlib checkpoints held before this module
(``MaskedActorCritic``) -> this module's (SB3's) names."""


def tanh_mlp(width_in: int, hidden: tuple[int, ...]) -> nn.Sequential:
    """Linear layers of widths ``hidden`` from ``width_in``, each followed by tanh (the
    body of every network kind here)."""
    layers: list[nn.Module] = []
    for width in hidden:
        layers += [nn.Linear(width_in, width), nn.Tanh()]
        width_in = width
    return nn.Sequential(*layers)


class _Extractor(nn.Module):
    def __init__(self, obs_dim: int, hidden: tuple[int, ...]) -> None:
        super().__init__()
        self.policy_net = tanh_mlp(obs_dim, hidden)
        self.value_net = tanh_mlp(obs_dim, hidden)


class ActorCritic(nn.Module):
    """Separate tanh MLPs for the policy and the value, one linear head each.

    Args:
        obs_dim: observation size.
        num_actions: size of the action list.
        hidden: hidden widths of each MLP.
        fate_head: add a head predicting the active seat's kept fate (7 logits) from
            the policy features (the fast trainer's ``aux`` belief ablation).
        shared_first_layer: the value MLP's first layer *is* the policy MLP's (one
            module under both names), computed once per call. The layout and the
            state dict keep both names, so :func:`export_sb3` writes it as two equal
            layers and any loader plays it unchanged; the first layer, which reads the
            whole observation, is most of the network's work.
    """

    def __init__(
        self,
        obs_dim: int,
        num_actions: int,
        hidden: tuple[int, ...],
        fate_head: bool = False,
        shared_first_layer: bool = False,
    ) -> None:
        super().__init__()
        self.obs_dim, self.num_actions, self.hidden = obs_dim, num_actions, tuple(hidden)
        self.shared_first_layer = shared_first_layer
        self.mlp_extractor = _Extractor(obs_dim, self.hidden)
        self.action_net = nn.Linear(self.hidden[-1], num_actions)
        self.value_net = nn.Linear(self.hidden[-1], 1)
        self.fate_net = nn.Linear(self.hidden[-1], 7) if fate_head else None
        for module in self.mlp_extractor.modules():  # CleanRL / SB3 initialisation
            if isinstance(module, nn.Linear):
                nn.init.orthogonal_(module.weight, np.sqrt(2))
                nn.init.zeros_(module.bias)
        nn.init.orthogonal_(self.action_net.weight, 0.01)
        nn.init.zeros_(self.action_net.bias)
        nn.init.orthogonal_(self.value_net.weight, 1.0)
        nn.init.zeros_(self.value_net.bias)
        if shared_first_layer:  # initialised as above first: the same random draws
            self.mlp_extractor.value_net[0] = self.mlp_extractor.policy_net[0]

    def _features(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(policy features, value features)."""
        policy, value = self.mlp_extractor.policy_net, self.mlp_extractor.value_net
        if not self.shared_first_layer:
            return policy(obs), value(obs)
        first = policy[:2](obs)  # Linear and Tanh, shared
        return policy[2:](first), value[2:](first)

    @staticmethod
    def _illegal(mask: torch.Tensor) -> torch.Tensor:
        return ~mask if mask.dtype == torch.bool else mask == 0

    def logits(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Masked action logits (:data:`MASKED` where ``mask`` is False or 0)."""
        features = self.mlp_extractor.policy_net(obs)
        return self.action_net(features).masked_fill(self._illegal(mask), MASKED)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """State values, shape ``[batch]``."""
        return self.value_net(self.mlp_extractor.value_net(obs)).squeeze(-1)

    def forward(
        self, obs: torch.Tensor, mask: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """(masked logits, values, kept-fate logits or None)."""
        features, value_features = self._features(obs)
        logits = self.action_net(features).masked_fill(self._illegal(mask), MASKED)
        fate = self.fate_net(features) if self.fate_net is not None else None
        return logits, self.value_net(value_features).squeeze(-1), fate

    @torch.no_grad()
    def act(
        self, obs: torch.Tensor, mask: torch.Tensor, generator: torch.Generator | None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Sample one legal action per row: (actions, their log-probabilities, values).

        Sampled by inverting each row's cumulative probabilities at one uniform draw:
        ``torch.multinomial`` and ``exp`` of the masked log-probabilities (whose
        underflow takes a slow path on CPU) each cost more than the network here."""
        features, value_features = self._features(obs)
        logits = self.action_net(features).masked_fill(self._illegal(mask), MASKED)
        cumulative = torch.softmax(logits, -1).cumsum(-1)
        total = cumulative[:, -1:]
        draw = torch.rand(len(logits), 1, generator=generator) * total
        # an illegal action has probability 0, so its step of ``cumulative`` is empty and
        # ``right=True`` skips it; a draw rounded up to the total takes the last action
        # of positive probability (the first whose cumulative reaches the total)
        actions = torch.searchsorted(cumulative, draw, right=True).squeeze(-1)
        actions = torch.minimum(actions, (cumulative < total).sum(-1))
        logp = torch.log_softmax(logits, -1).gather(-1, actions[:, None]).squeeze(-1)
        return actions, logp, self.value_net(value_features).squeeze(-1)

    @torch.no_grad()
    def greedy(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The most likely legal action of each row."""
        return self.logits(obs, mask).argmax(-1)


@torch.no_grad()
def widen(model: ActorCritic, hidden: tuple[int, ...], seed: int = 0) -> ActorCritic:
    """A copy of ``model`` with wider hidden layers that computes the same function.

    Each hidden layer keeps its units and gains new ones (initialised as a fresh network of
    the new widths, from ``seed``); every weight from a new unit into an old unit or a
    head is zero, so the logits and values are exactly the old ones until training moves
    those weights (their gradients are not zero: the new units' outputs are). The
    kept-fate head, if any, is widened alike.

    Raises:
        ValueError: ``hidden`` has another depth or a layer narrower than the model's.
    """
    hidden = tuple(int(w) for w in hidden)
    if len(hidden) != len(model.hidden) or any(
        new < old for new, old in zip(hidden, model.hidden, strict=True)
    ):
        raise ValueError(
            f"cannot widen hidden {list(model.hidden)} to {list(hidden)}: give as many "
            "layers, each at least as wide"
        )
    torch.manual_seed(seed)
    wide = ActorCritic(
        model.obs_dim,
        model.num_actions,
        hidden,
        fate_head=model.fate_net is not None,
        shared_first_layer=model.shared_first_layer,
    )
    old_state, new_state = model.state_dict(), wide.state_dict()
    for key, old in old_state.items():
        new = new_state[key]
        if old.dim() == 1:  # a bias: old units keep theirs, new ones start at 0
            new.zero_()
            new[: old.shape[0]] = old
            continue
        rows, cols = old.shape
        new[:rows, cols:] = 0.0  # nothing flows from a new unit into an old one
        new[:rows, :cols] = old
    wide.load_state_dict(new_state)
    return wide.train(model.training)


def rename(state: dict, names: dict[str, str]) -> dict:
    """``state`` with each key's prefix replaced by ``names`` (keys without one kept)."""
    out = {}
    for key, value in state.items():
        old = next((p for p in names if key.startswith(p)), None)
        out[names[old] + key[len(old) :] if old else key] = value
    return out


def _sb3_policy(obs_dim: int, num_actions: int, hidden: tuple[int, ...]):
    import gymnasium as gym
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    return MaskableActorCriticPolicy(
        gym.spaces.Box(-np.inf, np.inf, (obs_dim,), np.float32),
        gym.spaces.Discrete(num_actions),
        lambda _: 0.0,
        net_arch={"pi": list(hidden), "vf": list(hidden)},
        activation_fn=nn.Tanh,
    )


def export_sb3(model: ActorCritic, path: str | Path) -> None:
    """Save ``model`` as an SB3 ``MaskableActorCriticPolicy`` file (``policy.save``),
    which ``shipwreck_agents.learned.sb3.load_policy`` plays (the kept-fate head is left out)."""
    policy = _sb3_policy(model.obs_dim, model.num_actions, model.hidden)
    state = {k: v for k, v in model.state_dict().items() if not k.startswith("fate_net")}
    missing, unexpected = policy.load_state_dict(state, strict=False)
    if unexpected or any(not k.startswith(("features_extractor", "pi_", "vf_")) for k in missing):
        raise RuntimeError(f"SB3 layout mismatch: missing {missing}, unexpected {unexpected}")
    policy.save(str(path))


def load_sb3(path: str | Path) -> ActorCritic:
    """The network of an SB3 ``MaskableActorCriticPolicy`` file (``.pth``) with separate
    tanh policy and value MLPs of equal widths (what :func:`export_sb3` and the SB3
    trainer's exports write), in eval mode.

    Raises:
        ValueError: the file does not exist or holds another architecture.
    """
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    if not Path(path).exists():
        raise ValueError(f"model file {str(path)!r} does not exist")
    sb3 = MaskableActorCriticPolicy.load(str(path), device="cpu")
    state = {k: v for k, v in sb3.state_dict().items() if not k.startswith(("features_extractor",))}
    widths = tuple(
        state[f"mlp_extractor.policy_net.{i}.weight"].shape[0]
        for i in range(0, 2 * len(state), 2)
        if f"mlp_extractor.policy_net.{i}.weight" in state
    )
    model = ActorCritic(sb3.observation_space.shape[0], int(sb3.action_space.n), widths)
    try:
        model.load_state_dict(state)
    except RuntimeError as exc:
        raise ValueError(
            f"model file {str(path)!r} is not the masked actor-critic's layout "
            f"(separate tanh policy and value MLPs of equal widths): {exc}"
        ) from None
    return model.eval()
