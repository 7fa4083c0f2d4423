"""An action scorer (:mod:`shipwreck_agents.learned.action_scorer`) as a reference-engine
team: both roles, greedy, the group reading the literal belief block or, for a network
trained with it (``"belief_kind": "policy"`` in its ``.meta.json``), the belief under
the team's own play policy.

At each decision it encodes the decider's observation (the belief layout with the
literal block, as the scorer's batched trainer shows it), computes the per-action
features of every legal action with the reference engine's
:func:`shipwreck_env.rules.action_features.action_features`, and plays the legal action
the network scores highest. The registry's ``fast:PATH`` loads it when the model's
``.meta.json`` says ``"network": "action_scorer"``.

The feature function takes a state: the policy declares ``needs_state`` and is handed
the game's state by :func:`shipwreck_env.envs.policy.decide`, and reads nothing of it
but through that function, which reads public facts and the decider's own hand only
(its twin-game test, and this team's in ``tests/agents/test_action_scorer.py``). Since a
table with a person seats no policy that declares ``needs_state``, this team plays in
the evaluators, cross-play and the envs' partner seats, not at the play table.

**The policy-conditioned belief** (:func:`play_likelihood`). At the turn's first play
the group can ask what this network would have played with each hand the active seat
might hold: the active player's observation and features with the hand ``(x, y)``
(``x`` the carried fate if one was carried) are those of the real state with that hand
put in (nothing else of the state is read: the observation is the active player's own,
and the features read public facts and its hand). The likelihood of the play made, per
kept value ``k``, is ``Σ prior(x, y) · π(a | x, y)`` over the hands holding the played
``v`` and ``k``, the prior of
:func:`shipwreck_agents.learned.policy_belief.prior_weights` (the flat network's
team uses the same one). At the group's decisions of that turn (one play made, the seat
holding one fate), the belief block is the likelihood times the seat's number line,
normalised (:func:`~shipwreck_agents.learned.policy_belief.group_belief`, which the flat
team writes too). The object that made the play keeps it, so a team whose players are
one object (``shared_scorer``: every ``fast:PATH`` seat of a process)
reads its own plays; a turn it did not play keeps the literal block. The trainer
(``training/fast/scorer.py``) computes the same on the reference states of its batched
games.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from shipwreck_agents.base import Policy
from shipwreck_agents.learned.action_scorer import ActionScorer, compact, load_scorer
from shipwreck_agents.learned.policy_belief import PLAY_VALUE, group_belief, prior_weights
from shipwreck_agents.learned.sb3 import GameCheck, read_meta
from shipwreck_env.rules.action_features import action_features
from shipwreck_env.rules.actions import ACTIONS, NUM_ACTIONS
from shipwreck_env.rules.engine import legal_actions
from shipwreck_env.rules.observation import ObservationLayout, encode
from shipwreck_env.rules.state import Phase, State
from shipwreck_env.rules.view import AgentView

__all__ = [
    "ScorerTeamPolicy",
    "is_first_play",
    "play_likelihood",
    "reads_own_play",
    "shared_scorer",
]


def is_first_play(s: State, action: int) -> bool:
    """``action``, taken in ``s``, is the turn's first play (not a power used before it)."""
    return (
        s.phase == Phase.PLAY
        and not s.plays
        and s.decider == s.active_player
        and ACTIONS[action].kind == "play"
    )


def reads_own_play(s: State, turn: int) -> bool:
    """A group member decides in ``s`` on turn ``turn``, after one play, and the active
    seat holds one fate: the decision whose belief block the first play's likelihood
    fills."""
    return (
        not s.over
        and s.decider != s.active_player
        and s.turn == turn
        and len(s.plays) == 1
        and len(s.hands[s.active]) == 1
    )


def _hypothetical(s: State, x: int, y: int) -> State:
    """``s`` with the active seat holding ``(x, y)`` (``x`` carried, if a fate was)."""
    t = s.copy()
    t.hands[t.active] = [x, y]
    if t.old_fate:
        t.old_fate = x
    return t


@torch.no_grad()
def play_likelihood(
    model: ActionScorer, s: State, action: int, layout: ObservationLayout
) -> np.ndarray:
    """float64[7]: per kept value ``k``, ``Σ prior(x, y) · π(action | x, y)`` over the
    ordered hands ``(v, k)`` and ``(k, v)`` of the first play ``action`` (value ``v``)
    the active player makes in ``s`` (see the module docstring). Reads of ``s`` only
    the active player's observation and features with each hand put in.

    Raises:
        ValueError: ``action`` is not the turn's first play in ``s``.
    """
    if not is_first_play(s, action):
        raise ValueError(
            f"action {action!r} is not the turn's first play here; allowed: a play action "
            "of the active player before any play of the turn"
        )
    player = s.active_player
    obs = encode(s, player, layout)[None]
    v = int(PLAY_VALUE[action])
    hands = [(v, k) for k in range(1, 8)] + [(k, v) for k in range(1, 8) if k != v]
    x = np.array([h[0] for h in hands])
    y = np.array([h[1] for h in hands])
    weight = prior_weights(np.repeat(obs, len(hands), 0), layout, x, y)
    out = np.zeros(7)
    rows, masks, blocks, kept = [], [], [], []
    for (hx, hy), w in zip(hands, weight, strict=True):
        if w <= 0:
            continue
        t = _hypothetical(s, hx, hy)
        legal = legal_actions(t)
        if action not in legal:
            continue
        mask = np.zeros(NUM_ACTIONS, bool)
        mask[legal] = True
        rows.append(encode(t, player, layout))
        masks.append(mask)
        blocks.append(action_features(t, player))
        kept.append((hy if hx == v else hx, w))
    if not rows:
        return out
    ids, feats, valid = compact(np.stack(masks), np.stack(blocks))
    logits = model.logits_rows(
        torch.from_numpy(np.stack(rows)),
        *(torch.from_numpy(a) for a in (ids, feats, valid)),
    )
    chosen = torch.from_numpy(np.argmax(ids == action, axis=1))
    probs = torch.softmax(logits.double(), -1).gather(1, chosen[:, None]).squeeze(1).numpy()
    for (k, w), p in zip(kept, probs, strict=True):
        out[k - 1] += w * p
    return out


_SHARED: dict[str, ScorerTeamPolicy] = {}


class ScorerTeamPolicy(Policy):
    """Both roles of an action-scorer team (see the module docstring).

    Args:
        path: a file written by :func:`~shipwreck_agents.learned.action_scorer.save_scorer`
            (its ``.meta.json`` beside it).
    """

    needs_observation = True
    needs_state = True  # for the feature function only, which reads no hidden fact
    belief = True

    def __init__(self, path: str) -> None:
        self.model = load_scorer(path)  # ValueError naming a missing or wrong file
        self.meta = read_meta(path)
        self.name = f"fast:{Path(path).stem}"
        self.belief_kind = self.meta.get("belief_kind", "literal")
        self._check_game = GameCheck(self.meta, self.name)
        self._layouts: dict[object, ObservationLayout] = {}
        self.reset()

    def reset(self) -> None:
        """Forget the last game's first play."""
        self._turn = -1
        self._likelihood = np.zeros(7)

    def _layout(self, config) -> ObservationLayout:
        if config not in self._layouts:  # building a layout compiles its encoder: keep it
            self._layouts[config] = ObservationLayout.for_config(config, belief=True)
        return self._layouts[config]

    def logits(self, observation: np.ndarray, mask: np.ndarray, state: State) -> np.ndarray:
        """float32[A]: the network's masked logits for the decider of ``state`` (the
        observation as given: :meth:`act` writes the policy-conditioned block first)."""
        block = action_features(state, state.decider)
        ids, rows, valid = compact(np.asarray(mask, bool)[None], block[None])
        obs = torch.from_numpy(np.asarray(observation, np.float32)[None])
        with torch.no_grad():
            scores = self.model.logits_rows(
                obs, torch.from_numpy(ids), torch.from_numpy(rows), torch.from_numpy(valid)
            )[0].numpy()
        out = np.full(self.model.num_actions, np.float32(-1e9), np.float32)
        out[ids[0][valid[0]]] = scores[valid[0]]
        return out

    def act(
        self,
        observation: np.ndarray | None,
        mask: np.ndarray,
        view: AgentView,
        rng: np.random.Generator,
        state: State | None = None,
    ) -> int:
        self._check_game(view.config)
        if state is None or observation is None:
            raise ValueError(
                f"{self.name} needs the observation and the state (for its per-action "
                "features); allowed: ask it through shipwreck_env.envs.policy.decide"
            )
        self._check_game.observation_size(len(observation), self.model.obs_dim)
        observation = np.array(observation, np.float32)
        policy = self.belief_kind == "policy"
        layout = self._layout(view.config)
        if policy and reads_own_play(state, self._turn):
            belief = group_belief(self._likelihood, state.lines[state.active])
            if belief is not None:
                at = layout.offsets["belief"]
                observation[at : at + 7] = belief
        action = int(np.argmax(self.logits(observation, mask, state)))
        if policy and is_first_play(state, action):
            self._likelihood = play_likelihood(self.model, state, action, layout)
            self._turn = state.turn
        return action


def shared_scorer(path: str) -> ScorerTeamPolicy:
    """The one :class:`ScorerTeamPolicy` of ``path`` in this process (it keeps no memory
    between decisions, so every seat and game may share it)."""
    key = str(Path(path).resolve())
    if key not in _SHARED:
        _SHARED[key] = ScorerTeamPolicy(path)
    return _SHARED[key]
