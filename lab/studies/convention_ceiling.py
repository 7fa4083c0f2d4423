"""Where is the convention's ceiling on forced turns? Two measurements on tuning seeds.

A *forced turn* is one on which every first play of the real hand fades a card at a doom
cost (a play on The Feast counts as fading, as in ``lab/studies/convention_losses.py``). The
shipped team (``ConventionPolicy(**options)``) plays ``--games`` games; on each forced
turn the script recomputes the turn's code from the same public inputs in other ways
and asks whether the real hand would be read right under each:

- ``shipped``: the code the team plays;
- ``restarts``: the same search with ``--restarts`` random restarts (at any doom), the
  best of them kept: how far the shipped search is from a much better searched code;
- ``told carried``: the code if the seat's carried fate were known to everyone (its
  memory a certainty): the most an earlier turn could have prepared this one.

"Read right" is the public code's own reading: the real hand's line gets the value of a
right guess from the group's best reply to its observation (the group the code models,
on the public prior; the real group reads with its own pool, so it can differ). The
real group's reading of the turn (did the score rise) is counted beside it.

``--tell-carried`` instead plays whole games in which, after every turn, both sides'
memory of the seat's kept fate is replaced by the real value: the win rate if quiet turns
told the kept fate perfectly. It reads hidden fates, so it is an upper bound, not a
team; the default mode reads them only to classify.

    python lab/studies/convention_ceiling.py --difficulty doomed --seed 1 --games 300
    python lab/studies/convention_ceiling.py --difficulty doomed --seed 1 --games 1000 \\
        --tell-carried
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import os
import time

import numpy as np
from convention_losses import play_fades  # a sibling script
from scipy.optimize import Bounds, LinearConstraint, milp

from shipwreck_agents.convention.codebook import code_problem
from shipwreck_agents.convention.lines import public_hands
from shipwreck_agents.convention.team import Convention, ConventionPolicy
from shipwreck_agents.evaluation.evaluate import game_seed
from shipwreck_env.envs.policy import Team, decide, observation_layouts
from shipwreck_env.rules.actions import ACTIONS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
from shipwreck_env.rules.public_record import onlooker_pool
from shipwreck_env.rules.state import Phase, State
from shipwreck_env.rules.view import AgentView, make_view


def forced(s: State) -> bool:
    """Does every first play of the real hand fade a card at a doom cost?"""
    plays = [a for a in legal_actions(s) if ACTIONS[a].kind == "play"]
    return not any(play_fades(s, a) == 0 for a in plays)


def hand_key(view: AgentView) -> tuple[int, int]:
    """The active player's hand as the code lists it (carried fate first)."""
    hand = view.my_hands[view.my_seats.index(view.active_seat)]
    if view.carried_into_turn:
        c = view.my_carried or hand[0]
        return (c, hand[1] if hand[0] == c else hand[0])
    return (min(hand), max(hand))


def _problem(policy: ConventionPolicy, view: AgentView, likelihood=None) -> tuple:
    """The shipped code's search problem on this turn (as ``ConventionPolicy._compute``),
    with the player's memory of the carried fate or ``likelihood``."""
    start = view.turn_start
    carried = view.carried_into_turn
    if carried and likelihood is None:
        likelihood = policy._memory(view)
    return code_problem(view.config, start, view.active_seat, carried, likelihood, policy.settings)


def best_reading(weights: list[float], options: list, outcomes: list, forced: list[bool]) -> float:
    """An upper bound of the prior mass of forced hands any code reads right: an integer
    program where the group names, at each observation, at most one kept value (two
    where it may ask a question power or take Sorrows' second guess, which split the
    observation in two or name two), a forced hand is read right when one of its lines
    shows an observation where its kept value is named, and the other hands are left
    out (they disturb no reading: that only raises the bound)."""
    pairs: dict[tuple[int, int], int] = {}
    rows = []
    for w, opts, f in zip(weights, options, forced, strict=True):
        if f and w > 0:
            rows.append((w, sorted({pairs.setdefault((o, k), len(pairs)) for _, o, k in opts})))
    if not rows:
        return 0.0
    n_y, n_x = len(pairs), len(rows)
    c = np.concatenate([np.zeros(n_y), -np.array([w for w, _ in rows])])
    cons = []
    for i, (_, ys) in enumerate(rows):  # x_i <= sum of its pairs' y
        a = np.zeros(n_y + n_x)
        a[ys] = -1
        a[n_y + i] = 1
        cons.append((a, -np.inf, 0))
    by_obs = collections.defaultdict(list)
    for (o, _), j in pairs.items():
        by_obs[o].append(j)
    for o, ys in by_obs.items():
        out = outcomes[o]
        cap = 2 if (out.questions or out.sorrows) and not out.spent else 1
        if len(ys) > cap:
            a = np.zeros(n_y + n_x)
            a[ys] = 1
            cons.append((a, -np.inf, cap))
    a = np.array([x[0] for x in cons])
    res = milp(
        c,
        constraints=LinearConstraint(a, [x[1] for x in cons], [x[2] for x in cons]),
        integrality=np.concatenate([np.ones(n_y), np.zeros(n_x)]),
        bounds=Bounds(0, 1),
    )
    return float(-res.fun)


def named_right(code: Convention, problem: tuple) -> list[bool]:
    """Per hand of ``code``: does the group the code models (its best reply to the
    observation the hand's line shows, on the public prior) name the hand's kept fate?
    The reply is worked out as the search values it (``_Outcomes``): pass or name the
    likeliest value, or split by a question power, or name two with Sorrows."""
    hands, weights, options, outcomes, _ = problem
    assert tuple(hands) == code.hands
    shown = []
    lines = zip(code.before, code.choice, code.power, code.steal, strict=True)
    for opts, line in zip(options, lines, strict=True):
        shown.append(next((o, k) for (shows, o, k) in opts if shows == line))
    mass: dict[int, list[float]] = collections.defaultdict(lambda: [0.0] * 7)
    for w, (o, k) in zip(weights, shown, strict=True):
        mass[o][k - 1] += w
    out = []
    for o, k in shown:
        m, res = mass[o], outcomes[o]
        how = None if res.spent else res.best(m)[1]
        guesses = 2 if how == "sorrows" else 1
        if how not in (None, "sorrows"):
            side = set(how) if k - 1 in how else set(range(7)) - set(how)
            m = [m[i] if i in side else 0.0 for i in range(7)]
        named = (
            sorted(range(7), key=lambda i: -m[i])[:guesses] if guesses > 1 else [m.index(max(m))]
        )
        top = sum(m[i] for i in named)
        predict = top * (res.right - res.wrong) + sum(m) * res.wrong > sum(m) * res.pass_
        out.append(predict and k - 1 in named)
    return out


def _play(config: GameConfig, seed: int, games: int, team: Team, before, after) -> float:
    """Win rate of ``team`` on games ``0 .. games - 1``; ``before(s)`` is called before
    each decision and ``after(s, turn, seat)`` after each step (with the turn and active
    seat the step was taken in)."""
    layouts = observation_layouts(config)
    wins = 0
    for game in range(games):
        game_rng, policy_rng = (
            np.random.default_rng(x) for x in game_seed(seed, config.difficulty, game).spawn(2)
        )
        team.reset()
        s = new_game(config, game_rng)
        while not s.over:
            before(s)
            turn, seat = s.turn, s.active
            step_inplace(s, decide(team, s, layouts, policy_rng).action, game_rng, check=False)
            after(s, turn, seat)
        wins += s.won
    return wins / games


def _measure_turn(player: ConventionPolicy, view: AgentView, restarts: int, count) -> str:
    """Add one forced turn's readings to ``count``; returns its kind (fresh, carried)."""
    key = hand_key(view)
    shipped = player.convention(view)
    saved = player.settings
    player.settings = saved.but(restarts=restarts, restart_doom=0)
    better = player.convention(view)
    player.settings = saved
    kind = "carried" if view.carried_into_turn else "fresh"
    count[f"{kind} turns"] += 1
    problem = _problem(player, view)
    weights, hand_forced = problem[1], problem[4]
    i = shipped.index(key)
    for name, code in (("shipped", shipped), ("restarts", better)):
        right = named_right(code, problem)
        count[f"{kind} {name} right"] += right[i]
        count[f"forced mass read, {name}"] += sum(
            w for w, f, r in zip(weights, hand_forced, right, strict=True) if f and r
        )
    count["forced mass"] += sum(w for w, f in zip(weights, hand_forced, strict=True) if f)
    count["forced mass read, bound"] += best_reading(*problem[1:4], hand_forced)
    if view.carried_into_turn:
        start = view.turn_start
        weighted = public_hands(
            start, view.active_seat, True, player._memory(view), onlooker_pool(start)
        )
        total = sum(w for _, w in weighted)
        count["carried truth prior"] += sum(w for h, w in weighted if h[0] == key[0]) / total
        told = tuple(float(v == key[0] - 1) for v in range(7))
        told_code = player._compute(view, start, True, told, False)
        right = named_right(told_code, _problem(player, view, told))
        count["carried told right"] += right[told_code.index(key)]
    return kind


def forced_turns(config: GameConfig, seed: int, games: int, options: dict, restarts: int) -> dict:
    """Per forced turn, the shipped code against a better searched one, the bound, and
    one told the carried fate (see the module docstring)."""
    player = ConventionPolicy(**options)
    count: collections.Counter = collections.Counter()
    pending: list = []  # (score before, kind, turn) of the forced turn under way

    def before(s: State) -> None:
        first = s.phase == Phase.PLAY and not s.plays and not s.power_used
        if first and not pending and forced(s):
            kind = _measure_turn(player, make_view(s, s.decider), restarts, count)
            pending.append((s.score, kind, s.turn))

    def after(s: State, turn: int, seat: int) -> None:
        if pending and (s.over or s.turn != pending[0][2]):
            score, kind, _ = pending.pop()
            count[f"{kind} real right"] += s.score > score

    win_rate = _play(config, seed, games, Team(player, ConventionPolicy(**options)), before, after)
    n = count["carried turns"] + count["fresh turns"]
    report = {k: (round(v, 3) if isinstance(v, float) else v) for k, v in sorted(count.items())}
    report.update(win_rate=win_rate, forced_per_game=n / games)
    for what in ("shipped", "restarts", "real"):
        right = count[f"carried {what} right"] + count[f"fresh {what} right"]
        report[f"{what} right share"] = right / n if n else 0.0
    return report


def tell_carried(config: GameConfig, seed: int, games: int, options: dict) -> dict:
    """Win rate when, after every turn, both sides remember the real kept fate."""
    player, group = ConventionPolicy(**options), ConventionPolicy(**options)

    def after(s: State, turn: int, seat: int) -> None:
        if s.turn != turn and len(s.hands[seat]) == 1:
            told = tuple(float(v == s.hands[seat][0] - 1) for v in range(7))
            for policy in (player, group):
                for k in [k for k in policy._carry if k[1] == seat and k[2] == turn]:
                    policy._carry[k] = told

    start = time.process_time()
    rate = _play(config, seed, games, Team(player, group), lambda s: None, after)
    return {
        "win_rate": rate,
        "interval95": 1.96 * math.sqrt(rate * (1 - rate) / games),
        "ms_per_game": (time.process_time() - start) / games * 1000,
    }


def main() -> None:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--card-sets", default="base")
    parser.add_argument("--difficulty", default="doomed")
    parser.add_argument("--seed", type=int, default=1, help="a tuning seed")
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--restarts", type=int, default=30)
    parser.add_argument("--options", default="{}", help="ConventionPolicy options, JSON")
    parser.add_argument("--tell-carried", action="store_true")
    args = parser.parse_args()
    config = GameConfig(num_players=3, difficulty=args.difficulty, card_sets=args.card_sets)
    options = json.loads(args.options)
    load = os.getloadavg()[0]
    if args.tell_carried:
        report = tell_carried(config, args.seed, args.games, options)
    else:
        report = forced_turns(config, args.seed, args.games, options, args.restarts)
    print(json.dumps({**vars(args), "load": load, **report}, indent=1))


if __name__ == "__main__":
    main()
