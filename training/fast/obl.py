"""Off-Belief Learning (OBL) for the fast trainer: the group's targets from fictitious
transitions (config section ``obl``).

In plain self-play the group learns what a play means from the real kept fates behind the
team's own plays, so the team can agree on any convention, and a stranger who does not
share it is misread. OBL (Hu et al., 2021) grounds a play's meaning in a fixed *grounding
policy* ``pi_0`` instead: the group's value targets are computed as if the active player
had played by ``pi_0``, so the only thing a play can tell the group is what it would tell
about ``pi_0``'s hand.

What is fictitious. At every decision of a group member (not the active player) in a turn
with exactly one play and one fate kept (the decisions the policy-conditioned belief
covers: reveals, group powers, predictions, votes, costs), the stored target of that
decision is not the real transition's but

    Q(s, a) = sum_k w(k) [ r(s_k, a) + gamma * (1 - done_k) * V(o'_k) ]

where ``s_k`` is the real state with the active seat's kept fate replaced by ``k``,
``r(s_k, a)`` and ``o'_k`` are the team reward and the next decider's observation after the
batched engine steps the decision ``a`` in ``s_k`` (the same random stream as the real
game: later chance draws are shared), ``done_k`` says that step ended the game, ``V`` is the
collecting network's value, and

    w(k) ∝ B_{pi_0}(k | public history) · [a copy of k can be swapped in]

with ``B_{pi_0}`` the exact posterior over the kept fate given the turn's first play under
``pi_0`` (``training/common/policy_belief_batched.py``: ``line_now(k) · Σ_h prior(h) · pi_0(play | h)``,
the prior over hands from the public pool of unseen copies). The decision's advantage is
``Q - V(o)``; the active player's decisions keep their real GAE targets (it sees its own
hand: it has nothing to be fictitious about), as do group decisions outside those turns.

The swap keeps the fates consistent: the real kept fate ``r`` goes where a copy of ``k``
was, taken from the bag's copies nobody knows of, else from the held fate of a seat that
is neither the active one nor the decider's; if there is none (the decider's own fate is
the last unseen ``k``, which the decider knows) that ``k`` has weight 0. Whether such a
copy exists depends only on the public pool and the decider's own fate, so the weights leak
nothing the decider does not know. Where the kept fate is the carried one (``old_fate``),
the engine's value-of-kept fields (``old_fate``, ``kept_eff``, ``fall_kept``) follow ``k``.

Grounding policies (``obl.grounding``):

- ``uniform`` (level 1): every legal action at the play decision equally likely, so a
  hand's likelihood is ``1 / (number of legal actions with that hand)`` when the play is
  legal with it. We ground in uniform random play rather than the bare literal reading
  (likelihood 1 for every hand that allows the play) because it is a policy the team can
  be measured against and because it is the grounding of the OBL paper; the two differ
  only in the ``1 / n`` factor: a play that a hand allows among few options says more
  about that hand than one it allows among many.
- a path to an exported network (level 2 and above): its play policy, frozen; the
  belief is the policy-conditioned belief of that network (what ``env.belief: policy``
  computes for the network being trained, here for the frozen one).

What is approximate, knowingly:

- ``B_{pi_0}`` conditions on the turn's first play only (not on pre-play powers or the
  after-play choice, which the network reads in its observation anyway), its prior over a
  carried fate is the number line at the turn start (not ``pi_0``'s posterior from the turn
  it was kept), and its pool is the public one: the decider's own held fate enters only
  through the swap rule above (which drops a ``k`` the decider holds the last copy of) and
  not by reweighting the prior.
- Only the active player's kept fate is fictitious; the other seats' held fates and the
  bag are real (up to the one swapped copy).
- In the fictitious world the kept fate's carried-or-fresh status and the seat that
  gave up its copy (if it came from a seat) are the real ones: the swapped seat's number
  line may not allow the fate it now holds for the one step simulated.
- The target is one step, bootstrapped from ``V``; the real trajectory after a group
  decision belongs to the real kept fate, so it cannot carry the λ-return.

The network's inputs are unchanged (``env.belief: literal`` or ``none``), so an exported
OBL team plays through the usual ``ppo:`` spec; OBL changes only what it learns.
This module never changes the run's games: the fictitious steps run on copies.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import torch

from shipwreck_agents.learned.actor_critic import MASKED, ActorCritic, load_sb3
from shipwreck_env.vector.arrays import Arrays
from shipwreck_env.vector.game import VectorGame
from shipwreck_training.common.config import Section
from shipwreck_training.common.policy_belief_batched import PolicyBelief

__all__ = [
    "OBL",
    "OBLSettings",
    "UniformPlay",
    "apply_targets",
    "check_grounding",
    "fictitious_arrays",
    "grounding_policy",
    "make_obl",
]


class OBLSettings(Section):
    """Off-Belief Learning (``grounding`` empty: off, plain self-play targets)."""

    grounding: str = ""
    """The grounding policy ``pi_0``: ``uniform`` (level 1: uniformly random legal
    action), or the path of an exported network ``.pth`` whose frozen play policy
    grounds the next level (level 2: the level-1 team)."""

    @property
    def on(self) -> bool:
        """OBL targets are used."""
        return self.grounding != ""


class UniformPlay:
    """The level-1 grounding policy: every legal action equally likely."""

    def logits(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Zero logits on legal actions, :data:`MASKED` elsewhere."""
        mask = torch.as_tensor(mask, dtype=torch.bool)
        return torch.zeros(mask.shape).masked_fill(~mask, MASKED)


def check_grounding(spec: str, exists: bool = False) -> None:
    """``ValueError`` unless ``spec`` is ``uniform`` or names a ``.pth`` file (an existing
    one if ``exists``)."""
    path = Path(spec)
    if spec != "uniform" and (path.suffix != ".pth" or (exists and not path.is_file())):
        raise ValueError(
            f"obl.grounding {spec!r} is not allowed; allowed: 'uniform', or the path of an "
            f"{'existing ' if exists else ''}exported network (.pth)"
        )


def grounding_policy(spec: str) -> UniformPlay | ActorCritic:
    """The policy named by ``obl.grounding``: ``uniform`` or an exported network (frozen).

    Raises:
        ValueError: ``spec`` is neither ``uniform`` nor an existing ``.pth`` file.
    """
    check_grounding(spec, exists=True)
    if spec == "uniform":
        return UniformPlay()
    model = load_sb3(spec)
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model


def fictitious_arrays(
    arrays: Arrays, games: np.ndarray, kept: np.ndarray, num_players: int
) -> tuple[Arrays, np.ndarray]:
    """Copies of the games ``games`` (rows of ``arrays``, at a group member's decision
    with one fate kept) with the active seat's kept fate replaced by ``kept[i]`` (1..7).

    Returns:
        (the copies, bool[n] whether each swap was possible: a copy of ``kept[i]`` lay in
        the bag unknown to anyone, or in the held fate of a seat neither active nor the
        decider's). Rows that were not possible are left as the real game.
    """
    a = arrays.subset(games)
    n = len(games)
    rows = np.arange(n)
    seat = a.active.astype(np.int64)
    real = a.hands[rows, seat, 0].astype(np.int64)
    k = np.asarray(kept, np.int64)
    ok = k == real
    swap = ~ok
    # from the bag first: a copy nobody knows is there
    bag_free = (a.bag[rows, k - 1] - a.bag_known[rows, k - 1]) > 0
    from_bag = swap & bag_free
    b = np.flatnonzero(from_bag)
    a.bag[b, k[b] - 1] -= 1
    a.bag[b, real[b] - 1] += 1
    ok |= from_bag
    # else from another seat's held fate (not the active seat, not the decider's)
    seats = a.hands.shape[1]
    decider = a.decider.astype(np.int64)
    for i in np.flatnonzero(swap & ~from_bag):
        for q in range(seats):
            if q == seat[i] or q % num_players == decider[i]:
                continue
            held = a.hands[i, q, : a.hand_len[i, q]]
            where = np.flatnonzero(held == k[i])
            if len(where):
                a.hands[i, q, where[0]] = real[i]
                ok[i] = True
                break
    g = np.flatnonzero(ok & swap)
    a.hands[g, seat[g], 0] = k[g]
    shadow = a.shadows[g].astype(np.int64)
    carried = a.old_fate[g] != 0  # the kept fate is the one carried into the turn
    a.old_fate[g] = np.where(carried, k[g], 0)
    a.kept_eff[g] = np.where(a.kept_eff[g] != 0, k[g] + shadow, 0)
    a.fall_kept[g] = np.where(a.fall_kept[g] != 0, k[g] + shadow, 0)
    return a, ok


def apply_targets(
    on: torch.Tensor, q: torch.Tensor, values: torch.Tensor, adv: torch.Tensor, target: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """(advantages, value targets) with the OBL decisions (``on``) replaced by their
    fictitious ``Q - V`` and ``Q``; the others as given."""
    return torch.where(on, q - values, adv), torch.where(on, q, target)


class OBL:
    """Per run: the grounding belief of every game, and the fictitious targets.

    Args:
        games: the run's :class:`~shipwreck_training.common.games.Games`.
        grounding: the grounding policy (:func:`grounding_policy`).
        gamma: the discount of the one-step target.
    """

    def __init__(self, games, grounding, gamma: float) -> None:
        self.belief = PolicyBelief(games)
        self.grounding = grounding
        self.gamma = gamma

    def restart(self, games: np.ndarray) -> None:
        """Those games restarted: forget their turn."""
        self.belief.restart(games)

    def record(self, games, obs: np.ndarray, mask: np.ndarray, actions: np.ndarray) -> None:
        """Before the step: the grounding likelihood of every turn's first play made now
        (``obs``: the observations the players decide with)."""
        with torch.no_grad():
            self.belief.record(games, obs, mask, actions, self.grounding)

    def weights(self, games) -> tuple[np.ndarray, np.ndarray]:
        """(games at a covered group decision, float64[n, 7] ``B_{pi_0}``)."""
        rows, belief = self.belief.posterior(games)
        return rows, belief.astype(np.float64)

    def targets(self, games, actions: np.ndarray, model) -> tuple[np.ndarray, np.ndarray]:
        """Before the step: (games whose decision gets a fictitious target, its ``Q``),
        for the actions ``actions`` about to be taken; ``model`` gives ``V``."""
        rows, belief = self.weights(games)
        if not len(rows):
            return rows, np.zeros(0)
        q = np.zeros(len(rows))
        good = np.zeros(len(rows), bool)
        for k, pos, local in games.locate(rows):
            part = games.parts[k]
            q[pos], good[pos] = self._expected(
                part, local, belief[pos], actions[rows[pos]], model, games.num_players
            )
        return rows[good], q[good]

    def _expected(
        self, part: VectorGame, local: np.ndarray, belief: np.ndarray, actions, model, players
    ) -> tuple[np.ndarray, np.ndarray]:
        """(Q, bool: some fictitious world was possible) of the games ``local`` of one
        part, every kept fate with positive belief stepped at once."""
        n = len(local)
        which, value = np.nonzero(belief > 0)
        arrays, ok = fictitious_arrays(part.arrays, local[which], value + 1, players)
        reward, done, next_value = self.step(part, arrays, actions[which], model)
        w = np.where(ok, belief[which, value], 0.0)
        total = np.bincount(which, w, minlength=n)
        ret = reward + self.gamma * np.where(done, 0.0, next_value)
        q = np.bincount(which, w * ret, minlength=n)
        good = total > 0
        return np.divide(q, total, out=np.zeros(n), where=good), good

    @staticmethod
    def step(
        part: VectorGame, arrays: Arrays, actions: np.ndarray, model
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(reward, done, V of the next decider's observation) of one decision in copies
        ``arrays`` of games of ``part`` (a scratch batch; ``part`` is not changed)."""
        scratch = VectorGame(
            arrays.num_games,
            0,
            reward=part.reward_kind,
            belief="belief" in part.layout.offsets,
            autoreset=False,
            **dataclasses.asdict(part.config),
        )
        scratch.arrays = arrays
        reward, terminated, truncated = scratch.step(np.asarray(actions, np.int64))
        with torch.no_grad():
            value = model.value(torch.from_numpy(scratch.observe()))
        return reward.astype(np.float64), terminated | truncated, value.double().numpy()

    def state_dict(self) -> dict:
        """The belief's per-game memory (for checkpoints)."""
        return self.belief.state_dict()

    def load_state_dict(self, state: dict) -> None:
        """Put back :meth:`state_dict`."""
        self.belief.load_state_dict(state)


def make_obl(settings: OBLSettings, games, gamma: float) -> OBL | None:
    """The run's OBL (``None`` when ``settings.grounding`` is empty)."""
    if not settings.on:
        return None
    return OBL(games, grounding_policy(settings.grounding), gamma)
