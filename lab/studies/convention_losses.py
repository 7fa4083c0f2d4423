"""Why the convention team loses: the losing turn of every lost game, by cause.

Plays ``--games`` games of the convention team (options as JSON) and, for each lost
game, classifies its last turn: did a card fade or did a wrong guess alone cost the
game; could the active hand have played somewhere that fades nothing (``free play``)
or did every play fade (``forced``); did the group's posterior give the real kept fate
no chance, some chance, or certainty; was a power used before the play, and which
such powers (Sparrows, Skies, Shadows) were available. ``--oracle`` gives the group the
kept fate (an upper bound for the same player). This script reads hidden fates to
classify; the team it runs does not.

    python lab/studies/convention_losses.py --card-sets base --difficulty doomed --seed 1 \\
        --games 2000
"""

from __future__ import annotations

import argparse
import collections
import json
import time

import numpy as np

from shipwreck_agents.base import Team
from shipwreck_agents.convention.team import ConventionPolicy
from shipwreck_agents.evaluation.evaluate import game_seed
from shipwreck_agents.scripted.knowledge import doom_of_fades, fading_slots
from shipwreck_env.envs.policy import decide, observation_layouts
from shipwreck_env.rules.actions import ACTIONS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
from shipwreck_env.rules.public_record import DrawNeeded, step_without_draws
from shipwreck_env.rules.state import Phase, State
from shipwreck_env.rules.view import AgentView, make_view

PRE_PLAY = ("sparrows", "skies", "shadows")
_NOW: dict = {}  # the game state and the group's first posterior of the current turn


class _Recording(ConventionPolicy):
    """The convention group, noting its first posterior of each turn."""

    def posterior(self, view: AgentView) -> np.ndarray:
        p = super().posterior(view)
        _NOW.setdefault("posterior", p.copy())
        return p


class _Oracle(ConventionPolicy):
    """A group told the kept fate (it still keeps the convention's memory)."""

    def posterior(self, view: AgentView) -> np.ndarray:
        super().posterior(view)
        s = _NOW["state"]
        p = np.zeros(7)
        p[s.hands[s.active][0] - 1] = 1.0
        return p


def play_fades(s: State, action: int) -> int | None:
    """Doom the fades would cost after the play ``action`` (None: a play on The Feast)."""
    try:
        t = step_without_draws(s, action)
    except DrawNeeded:
        return None
    view = make_view(t, t.decider)
    return doom_of_fades(view, fading_slots(view))


def _cause(turn: dict) -> str:
    events = turn["events"]
    guessed = any(e[0] == "predict" for e in events)
    if any(e[0] == "fade" for e in events):
        cause = "fade, " + ("wrong guess" if guessed else "pass")
        cause += ", free play existed" if turn["free"] else ", forced"
    else:
        cause = "wrong guess, no fade"
    p = turn.get("posterior")
    if p is not None:
        truth = float(p[turn["kept"] - 1])
        cause += ", p(truth) " + ("0" if truth == 0 else "1" if truth > 0.999 else "in (0, 1)")
    if any(e[0] == "power" and e[1] in PRE_PLAY for e in events):
        cause += ", power before the play"
    elif turn["pre"]:
        cause += ", unused: " + "+".join(turn["pre"])
    if any(e[0] == "feast_draw" for e in events):
        cause += ", The Feast"
    return cause


def classify(config: GameConfig, seed: int, games: int, options: dict, oracle: bool) -> dict:
    """Win rate, CPU ms per game and the count of each losing-turn cause."""
    team = Team(ConventionPolicy(**options), (_Oracle if oracle else _Recording)(**options))
    layouts = observation_layouts(config)
    causes: collections.Counter = collections.Counter()
    wins = 0
    start = time.process_time()
    for game in range(games):
        game_rng, policy_rng = (
            np.random.default_rng(x) for x in game_seed(seed, config.difficulty, game).spawn(2)
        )
        team.reset()
        s = new_game(config, game_rng)
        turn: dict = {"number": -1}
        while not s.over:
            if s.turn != turn["number"]:
                turn = {"number": s.turn}
                _NOW.clear()
            _NOW["state"] = s
            if s.phase == Phase.PLAY and not s.plays and not s.power_used and "free" not in turn:
                plays = [a for a in legal_actions(s) if ACTIONS[a].kind == "play"]
                turn["free"] = any(play_fades(s, a) == 0 for a in plays)
                powers = {ACTIONS[a].power for a in legal_actions(s)}
                turn["pre"] = sorted(powers & set(PRE_PLAY))
            action = decide(team, s, layouts, policy_rng).action
            if "posterior" in _NOW and "posterior" not in turn:
                turn["posterior"] = _NOW["posterior"]
                turn["kept"] = s.hands[s.active][0] if s.hands[s.active] else 0
            step_inplace(s, action, game_rng, check=False)
            if s.over or s.turn != turn["number"]:
                turn["events"] = s.events if s.over else s.last_events
        wins += s.won
        if not s.won:
            causes["truncated" if s.truncated else _cause(turn)] += 1
    return {
        "win_rate": wins / games,
        "ms_per_game": (time.process_time() - start) / games * 1000,
        "causes": dict(causes.most_common()),
    }


def main() -> None:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--card-sets", default="base")
    parser.add_argument("--difficulty", default="doomed")
    parser.add_argument("--seed", type=int, default=1, help="a tuning seed")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--options", default="{}", help="ConventionPolicy options, JSON")
    parser.add_argument("--oracle", action="store_true", help="the group knows the kept fate")
    args = parser.parse_args()
    config = GameConfig(num_players=3, difficulty=args.difficulty, card_sets=args.card_sets)
    report = classify(config, args.seed, args.games, json.loads(args.options), args.oracle)
    print(json.dumps({**vars(args), **report}, indent=1))


if __name__ == "__main__":
    main()
