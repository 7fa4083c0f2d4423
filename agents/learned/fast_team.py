"""A team trained by ``shipwreck_training.fast`` as a reference-engine policy, with its belief.

``FastTeamPolicy(path)`` plays the exported network (``model.pth`` of a run, or a
shipped ``results/models/*.pth``) greedily in both roles. A network trained with the
policy-conditioned belief (``"belief_kind": "policy"`` in its ``.meta.json``) needs, at
each group decision, the likelihood of the turn's first play under its own play policy:
this object records it when it makes that play
(:func:`shipwreck_agents.learned.policy_belief.likelihood`), and writes the posterior into the
group's observation. The legal plays of every hypothetical hand are the engine's play
rule on the table as it is at the play, asked of the public record
(:func:`shipwreck_env.rules.public_record.hand_plays_at_play`): a power used before the play
(Sparrows' new card, in the base set) is part of it, as on the batched engine in
``training/common/policy_belief_batched.py`` and in the search's rollouts (``RolloutBelief`` in
``agents/search/sparta.py``, which asks :func:`shipwreck_env.vector.public_record.hand_play_masks`),
so the three compute the same block on every turn (the choice of the power itself is
not multiplied into the likelihood, on any side). Since the player records what the
group reads, one object must take both roles: :func:`shared_policy` returns one instance
per file and process, and the registry spec ``fast:PATH`` uses it (a team ``fast:X`` +
``fast:X`` is then one object, as the evaluator plays one game at a time per process).
Turns where it did not make the play (a partner in a Gymnasium env) keep the literal
block.

With ``after_play`` (by default as the model was trained: ``belief_after_play`` in its
``.meta.json``) the player's own ``AFTER_PLAY`` choice under each hand is multiplied in
too (:meth:`FastTeamPolicy.remember_after_play`), as the trainer's
``PolicyBelief(after_play=True)`` does, and the search's rollouts
(``RolloutBelief(after_play=True)``); the two batched sides share
:class:`~shipwreck_agents.learned.policy_belief.AfterPlayTerms`.

A network of kind ``policy_carry`` also keeps, per seat, the memory of the fate it kept
(:func:`shipwreck_agents.learned.policy_belief.carry_weights`) and passes it to the likelihood of
that seat's next turn, exactly as ``training/common/policy_belief_batched.py`` does on the batched
engine (the seat's next turn is ``turn`` plus the number of seats; memory of any other
turn is ignored). :meth:`FastTeamPolicy.reset` forgets it: the evaluators call it
before every game.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from shipwreck_agents.base import Policy
from shipwreck_agents.learned.actor_critic import load_sb3
from shipwreck_agents.learned.policy_belief import (
    carry_weights,
    group_belief,
    kept_is_carried,
    kept_masks,
    kept_probabilities,
    likelihood,
)
from shipwreck_agents.learned.sb3 import GameCheck, read_meta
from shipwreck_env.rules.actions import ACTIONS
from shipwreck_env.rules.observation import ObservationLayout
from shipwreck_env.rules.public_record import hand_plays_at_play, rows_at_play
from shipwreck_env.rules.view import AgentView

__all__ = ["POLICY_KINDS", "FastTeamPolicy", "after_play_masks", "shared_policy"]

POLICY_KINDS = ("policy", "policy_carry")
"""Belief kinds whose group reads the posterior under the team's own play policy."""

_NUM_PLAYS = sum(a.kind == "play" for a in ACTIONS)
_SHARED: dict[str, FastTeamPolicy] = {}


def after_play_masks(legal: np.ndarray, view: AgentView) -> np.ndarray:
    """bool[14, actions]: the active player's legal ``AFTER_PLAY`` actions ``legal`` had
    it kept the value ``h % 7 + 1`` (hands of ``policy_belief.likelihood(per_hand=True)``):
    :func:`shipwreck_agents.learned.policy_belief.kept_masks` on the view's public table."""
    sinners = not view.power_used and "sinners" in view.faded_powers
    return kept_masks(legal[None], [view.table], [view.shadows], [sinners])[0]


def shared_policy(path: str) -> FastTeamPolicy:
    """The one :class:`FastTeamPolicy` of ``path`` in this process."""
    key = str(Path(path).resolve())
    if key not in _SHARED:
        _SHARED[key] = FastTeamPolicy(path)
    return _SHARED[key]


class FastTeamPolicy(Policy):
    """Both roles of a fast-trained team (see the module docstring).

    Args:
        path: an SB3 ``.pth`` written by ``shipwreck_training.fast`` (its ``.meta.json`` beside it).
        after_play: also multiply into the likelihood the player's own ``AFTER_PLAY``
            choice (Shells, Sinners or pass) under each hand, before the group reads it,
            as the trainer's ``PolicyBelief(after_play=True)`` does (``None``: as the
            model was trained, its ``.meta.json`` key ``belief_after_play``, default off).
    """

    needs_observation = True
    belief = True

    def __init__(self, path: str, after_play: bool | None = None) -> None:
        self.model = load_sb3(path)  # ValueError naming a missing file
        self.meta = read_meta(path)
        trained = bool(self.meta.get("belief_after_play", False))
        self.after_play = trained if after_play is None else after_play
        self.belief_kind = self.meta.get("belief_kind", "literal")
        self.name = f"fast:{Path(path).stem}"
        self._check_game = GameCheck(self.meta, self.name)
        self.last_belief: np.ndarray | None = None
        self._layouts: dict[tuple[int, bool], ObservationLayout] = {}
        self.reset()

    def reset(self) -> None:
        """Forget the last game: its turn's likelihood and every seat's memory."""
        self._likelihood: np.ndarray | None = None
        self._turn = -1
        self._memory: dict[int, tuple[int, np.ndarray]] = {}  # seat -> (turn, weights)
        self._play: tuple | None = None  # (obs, action, per-hand terms, kept carried)

    def act(
        self,
        observation: np.ndarray | None,
        mask: np.ndarray,
        view: AgentView,
        rng: np.random.Generator,
        state=None,
    ) -> int:
        self._check_game(view.config)
        obs = np.asarray(observation, np.float32)[None].copy()
        legal = np.asarray(mask, bool)[None]
        self._check_game.observation_size(obs.shape[1], self.model.obs_dim)
        self.last_belief = None
        policy_belief = self.belief_kind in POLICY_KINDS
        layout = self._layout(view)
        if view.decider != view.active_player:
            if policy_belief:
                self._write_belief(obs, view, layout)
            return self._greedy(obs, legal)
        action = self._greedy(obs, legal)
        self.remember_play(obs[0], legal[0], view, action)
        self.remember_after_play(obs[0], legal[0], view, action)
        return action

    def remember_play(
        self, obs: np.ndarray, legal: np.ndarray, view: AgentView, action: int
    ) -> None:
        """If ``action`` is the turn's first play, made by this team's player: keep its
        likelihood under the play network for the group's belief (a search that plays
        another action than the greedy one calls this with the action it plays)."""
        first_play = view.phase == "play" and not view.plays
        if self.belief_kind not in POLICY_KINDS or not first_play or ACTIONS[action].kind != "play":
            return
        table = rows_at_play(view)
        obs, legal = obs[None], legal[None]

        def masks_of(rows: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
            out = np.repeat(legal, len(x), axis=0)
            out[:, :_NUM_PLAYS] = False
            for i, hand in enumerate(zip(x.tolist(), y.tolist(), strict=True)):
                out[i, hand_plays_at_play(view, hand, table)] = True
            return out

        layout = self._layout(view)
        actions, carry = np.array([action]), None
        if self.belief_kind == "policy_carry":
            seat = view.active_seat
            kept_on, weights = self._memory.get(seat, (None, np.ones(7)))
            last = kept_on == view.turn - view.config.num_seats
            carry = (weights if last else np.ones(7))[None]
        hands = likelihood(obs, layout, actions, self.model, masks_of, carry, per_hand=True)[0]
        self._likelihood = hands.reshape(2, 7).sum(0)
        self._turn = view.turn
        self._play = (obs, actions, hands, kept_is_carried(obs, layout, actions)[0])
        if carry is not None:
            memory = carry_weights(obs, layout, actions, self._likelihood[None])[0]
            self._memory[seat] = (view.turn, memory)

    def remember_after_play(
        self, obs: np.ndarray, legal: np.ndarray, view: AgentView, action: int
    ) -> None:
        """With ``after_play``, at this team's player's ``AFTER_PLAY`` decision of a turn
        whose first play it recorded: multiply the probability of its choice ``action``
        under each hand into this turn's likelihood (and the seat's memory)."""
        seat = view.active_seat
        if not self.after_play or view.phase != "after_play" or self._turn != view.turn:
            return
        if view.decider != view.active_player or len(view.plays) != 1:
            return
        if view.holding[seat] != 1:
            return
        play_obs, play_action, hands, carried = self._play
        masks = after_play_masks(legal, view)[None]
        layout = self._layout(view)
        factor = kept_probabilities(
            obs[None], layout, carried[None], masks, np.array([action]), self.model
        )[0]
        hands = hands * factor
        self._play = (play_obs, play_action, hands, carried)
        self._likelihood = hands.reshape(2, 7).sum(0)
        if self.belief_kind == "policy_carry":
            memory = carry_weights(play_obs, layout, play_action, self._likelihood[None])[0]
            self._memory[seat] = (view.turn, memory)

    def _layout(self, view: AgentView) -> ObservationLayout:
        key = (view.config.num_players, view.config.challenge_mode)
        if key not in self._layouts:  # building a layout compiles its encoder: keep it
            self._layouts[key] = ObservationLayout.for_config(view.config, belief=True)
        return self._layouts[key]

    def _greedy(self, obs: np.ndarray, legal: np.ndarray) -> int:
        return int(self.model.greedy(torch.from_numpy(obs), torch.from_numpy(legal))[0])

    def _write_belief(self, obs: np.ndarray, view: AgentView, layout: ObservationLayout) -> None:
        seat = view.active_seat
        if self._turn != view.turn or len(view.plays) != 1 or view.holding[seat] != 1:
            return
        belief = group_belief(self._likelihood, view.lines[seat])
        if belief is not None:
            self.last_belief = belief
            offset = layout.offsets["belief"]
            obs[0, offset : offset + 7] = self.last_belief
