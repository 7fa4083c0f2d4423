"""What recording the belief on turns with a power before the play changes, paired by deal.

    .venv/bin/python lab/studies/sparrows_belief_eval.py \\
        results/models/fast_selfplay_imitation_carry.pth [--games 1000] [--seed 20261201]

Plays the reference evaluator's games (``agents/evaluation/evaluate.py``: game ``i`` of difficulty
``d`` seeded by ``game_seed(seed, d, i)``, the deals of ``shipwreck-arcana evaluate``)
twice with the model in both roles: once as :class:`~shipwreck_agents.learned.fast_team.FastTeamPolicy`
plays it now, once with the rule it had before (no policy belief on a turn where an
action came before the play; the plays of each hypothetical hand from the public turn
start), kept here as :class:`TurnStartTeam` to measure the change. Along the first pass
a shadow of the old rule sees every decision and the group decisions where its block
differs from the one read are counted (on turns with Sparrows before the play, and on
later turns through a seat's carried memory). Prints one JSON line per difficulty: win
rates of both, the deals won by one only with the exact two-sided sign test, group
decisions per game and those touched, seconds and the load average.

``--change after_play`` measures an experiment the same way: the team with
``FastTeamPolicy(after_play=True)`` (its own after-play choice, Shells, Sinners or pass,
multiplied into the likelihood under each hand) against the team as it plays now.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
from search_settings_table import sign_test  # a sibling in research/

from shipwreck_agents.evaluation.evaluate import game_seed, play_game
from shipwreck_agents.learned.fast_team import POLICY_KINDS, FastTeamPolicy
from shipwreck_agents.learned.policy_belief import carry_weights, likelihood
from shipwreck_env.envs.policy import Policy, Team
from shipwreck_env.rules.actions import ACTIONS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.public_record import hand_plays

_NUM_PLAYS = sum(a.kind == "play" for a in ACTIONS)


class TurnStartTeam(FastTeamPolicy):
    """The rule before the change: the belief is recorded only at a first play with no
    action before it this turn, each hand's plays read off the public turn start."""

    def remember_play(self, obs, legal, view, action) -> None:
        if view.turn_actions:
            return
        if self.belief_kind not in POLICY_KINDS or view.phase != "play":
            return
        if ACTIONS[action].kind != "play":
            return
        start = view.turn_start

        def masks_of(rows, x, y):
            out = np.repeat(legal[None], len(x), axis=0)
            out[:, :_NUM_PLAYS] = False
            for i, hand in enumerate(zip(x.tolist(), y.tolist(), strict=True)):
                out[i, hand_plays(start, hand)] = True
            return out

        self._record(obs, view, action, masks_of)

    def _record(self, obs, view, action, masks_of) -> None:
        layout = self._layout(view)
        actions, carry, seat = np.array([action]), None, view.active_seat
        if self.belief_kind == "policy_carry":
            kept_on, weights = self._memory.get(seat, (None, np.ones(7)))
            carry = (weights if kept_on == view.turn - view.config.num_seats else np.ones(7))[None]
        self._likelihood = likelihood(obs[None], layout, actions, self.model, masks_of, carry)[0]
        self._turn = view.turn
        if carry is not None:
            memory = carry_weights(obs[None], layout, actions, self._likelihood[None])[0]
            self._memory[seat] = (view.turn, memory)


class Shadowed(Policy):
    """Plays ``new``; ``old`` sees every decision too, and the group decisions where the
    two write different blocks are counted (``touched``, out of ``group``)."""

    needs_observation = True
    belief = True

    def __init__(self, new: FastTeamPolicy, old: FastTeamPolicy) -> None:
        self.new, self.old, self.name = new, old, new.name
        self.group = self.touched = self.after_sparrows = 0

    def reset(self) -> None:
        self.new.reset()
        self.old.reset()

    def act(self, observation, mask, view, rng, state=None) -> int:
        action = self.new.act(observation, mask, view, rng)
        self.old.act(observation, mask, view, rng)
        if view.decider != view.active_player:
            self.group += 1
            a, b = self.new.last_belief, self.old.last_belief
            same = (a is None and b is None) or (
                a is not None and b is not None and np.allclose(a, b, rtol=1e-5, atol=1e-7)
            )
            self.touched += not same
            self.after_sparrows += not same and _sparrows(view)
        return action  # the old rule recorded its own (the same, greedy) play in act


def _sparrows(view) -> bool:
    return any(
        ACTIONS[a].kind == "power" and ACTIONS[a].power == "sparrows" for a in view.turn_actions
    )


def _pair(model: str, change: str) -> tuple[FastTeamPolicy, FastTeamPolicy]:
    """(the team with the change, the team without it)."""
    if change == "sparrows":
        return FastTeamPolicy(model), TurnStartTeam(model)
    return FastTeamPolicy(model, after_play=True), FastTeamPolicy(model)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--difficulty", default="normal,hard,doomed")
    parser.add_argument(
        "--change",
        choices=("sparrows", "after_play"),
        default="sparrows",
        help="sparrows: the team now against TurnStartTeam; after_play: the team with "
        "after_play=True (its after-play choice multiplied in) against the team now",
    )
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    for difficulty in args.difficulty.split(","):
        start = time.time()
        config = GameConfig(num_players=3, difficulty=difficulty)
        shadow = Shadowed(*_pair(args.model, args.change))
        new_team = Team(shadow, shadow)
        old = _pair(args.model, args.change)[1]
        old_team = Team(old, old)
        new_won, old_won = [], []
        for i in range(args.games):
            new_won.append(play_game(config, new_team, game_seed(args.seed, difficulty, i)).won)
            old_won.append(play_game(config, old_team, game_seed(args.seed, difficulty, i)).won)
        new_only = sum(n and not o for n, o in zip(new_won, old_won, strict=True))
        old_only = sum(o and not n for n, o in zip(new_won, old_won, strict=True))
        print(
            json.dumps(
                {
                    "change": args.change,
                    "difficulty": difficulty,
                    "games": args.games,
                    "seed": args.seed,
                    "win_rate_now": sum(new_won) / args.games,
                    "win_rate_before": sum(old_won) / args.games,
                    "won_now_only": new_only,
                    "won_before_only": old_only,
                    "sign_test_p": round(sign_test(new_only, old_only), 4),
                    "group_decisions_per_game": shadow.group / args.games,
                    "touched_per_game": shadow.touched / args.games,
                    "touched_after_sparrows_per_game": shadow.after_sparrows / args.games,
                    "seconds": round(time.time() - start, 1),
                    "load": os.getloadavg(),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
