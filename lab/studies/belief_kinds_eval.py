"""Evidence for the carried belief: a fast-trained model under each belief kind, and how
often the active player decides again before the group.

    .venv/bin/python lab/studies/belief_kinds_eval.py results/models/fast_selfplay_imitation.pth \\
        [--games 1000] [--seed 20261201] [--paired | --after-play]

By default plays the network greedily in both roles (``training/common/greedy_eval.py``) on
the same games twice: its group reading the first-play belief (kind ``policy``) and the
carried one (kind ``policy_carry``, ``training/common/policy_belief_batched.py``), without retraining.
The games are the same deals in both passes, so the difference is the belief's alone.
Prints one JSON line per kind: win rate and 95% interval per difficulty, seconds, load.

``--paired`` plays the same deals with both kinds and prints, per difficulty, the deals
won with one kind only and the exact two-sided sign test on them.

``--after-play`` instead counts what neither kind conditions on: in the base game the
active player may decide once more before the group does, in the ``AFTER_PLAY`` phase
(use Shells or Sinners, or pass) once one of those powers is faded. Over the turns whose
group read the policy-conditioned block (the belief the model was trained with), it
counts those with such a decision before the group's and those where it was not a pass.
"""

from __future__ import annotations

import argparse
import json
import os
import time


def _after_play(cfg, model, args) -> dict:
    import numpy as np
    import torch

    from shipwreck_agents.learned.sb3 import read_meta
    from shipwreck_env.rules.actions import ACTIONS
    from shipwreck_env.rules.state import Phase
    from shipwreck_training.common.games import Games
    from shipwreck_training.common.policy_belief_batched import PolicyBelief

    carry = read_meta(args.model).get("belief_kind") == "policy_carry"
    diffs = ("normal", "hard", "doomed")
    g = Games(cfg.env, args.games * len(diffs), args.seed, autoreset=False, difficulties=diffs)
    belief = PolicyBelief(g, carry=carry)
    after_turn = np.full(g.num_games, -1)
    after_action = np.zeros(g.num_games, np.int64)
    seen: set[tuple[int, int]] = set()
    turns = before_group = not_pass = 0
    chosen: dict[str, int] = {}
    while not g.field("over").all():
        obs, mask = g.observe(), g.legal_mask()
        turn = g.field("turn")
        for game in belief.posterior(g)[0]:
            if (int(game), int(turn[game])) in seen:
                continue
            seen.add((int(game), int(turn[game])))
            turns += 1
            if after_turn[game] == turn[game]:
                before_group += 1
                not_pass += ACTIONS[after_action[game]].kind != "pass"
        belief.fill(obs, g)
        actions = model.greedy(torch.from_numpy(obs), torch.from_numpy(mask)).numpy().copy()
        after = np.flatnonzero((g.field("phase") == Phase.AFTER_PLAY) & ~g.field("over"))
        after_turn[after], after_action[after] = turn[after], actions[after]
        for a in actions[after]:
            name = ACTIONS[a].power or ACTIONS[a].kind
            chosen[name] = chosen.get(name, 0) + 1
        belief.record(g, obs, mask, actions, model)
        g.step(actions)
    out = {
        "turns_with_policy_block": turns,
        "after_play_decision_before_group": before_group,
        "of_which_not_pass": not_pass,
        "after_play_actions": chosen,
    }
    return out


def _kinds(cfg, model, args) -> None:
    from shipwreck_training.common.greedy_eval import evaluate_greedy

    for kind, carry in (("policy", False), ("policy_carry", True)):
        start = time.perf_counter()
        results = evaluate_greedy(
            model,
            cfg.env,
            games=args.games,
            seed=args.seed,
            difficulties=("normal", "hard", "doomed"),
            carry=carry,
        )
        row = {"model": args.model, "belief_kind": kind}
        for difficulty, r in results.items():
            row[difficulty] = [r["win_rate"], [round(x, 3) for x in r["win_rate_ci95"]]]
        row["seconds"] = round(time.perf_counter() - start, 1)
        row["load1"] = round(os.getloadavg()[0], 2)
        print(json.dumps(row), flush=True)


def _wins(cfg, model, args, carry: bool):
    """bool[games x 3]: which of the evaluation deals the team won with that belief."""
    import torch

    from shipwreck_training.common.games import Games
    from shipwreck_training.common.policy_belief_batched import PolicyBelief

    diffs = ("normal", "hard", "doomed")
    g = Games(cfg.env, args.games * len(diffs), args.seed, autoreset=False, difficulties=diffs)
    belief = PolicyBelief(g, carry=carry)
    while not g.field("over").all():
        obs, mask = g.observe(), g.legal_mask()
        belief.fill(obs, g)
        actions = model.greedy(torch.from_numpy(obs), torch.from_numpy(mask)).numpy().copy()
        belief.record(g, obs, mask, actions, model)
        g.step(actions)
    return g.field("won").astype(bool)


def _paired(cfg, model, args) -> None:
    """Per difficulty: deals won with one belief only, and the exact two-sided sign test
    on those (the deals both kinds won or both lost say nothing about the difference)."""
    from math import comb

    first, carried = _wins(cfg, model, args, False), _wins(cfg, model, args, True)
    for k, difficulty in enumerate(("normal", "hard", "doomed")):
        part = slice(k * args.games, (k + 1) * args.games)
        new = int((carried[part] & ~first[part]).sum())
        old = int((first[part] & ~carried[part]).sum())
        m = new + old
        tail = sum(comb(m, i) for i in range(min(new, old) + 1)) / 2**m if m else 0.5
        row = {"model": args.model, "difficulty": difficulty, "won_only_carried": new}
        row |= {"won_only_first_play": old, "sign_test_p": round(min(1.0, 2 * tail), 4)}
        print(json.dumps(row), flush=True)


def main(argv: list[str] | None = None) -> int:
    """Evaluate (or count) and print; 0 on success."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="an exported network (.pth) trained with env.belief policy")
    parser.add_argument("--config", default="configs/fast/selfplay.yaml", help="its game")
    parser.add_argument("--games", type=int, default=1000, help="games per difficulty")
    parser.add_argument("--seed", type=int, default=20261201, help="evaluation seed")
    parser.add_argument("--after-play", action="store_true", help="count AFTER_PLAY decisions")
    parser.add_argument("--paired", action="store_true", help="deals won with one kind only")
    args = parser.parse_args(argv)
    import torch

    from shipwreck_agents.learned.actor_critic import load_sb3
    from shipwreck_training.fast.config import load_config

    torch.set_num_threads(1)
    cfg, model = load_config(args.config), load_sb3(args.model)
    if args.after_play:
        print(json.dumps({"model": args.model, **_after_play(cfg, model, args)}))
    elif args.paired:
        _paired(cfg, model, args)
    else:
        _kinds(cfg, model, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
