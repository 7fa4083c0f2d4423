"""Two teams on the same deals: the paired difference of their win rates.

    python lab/studies/paired_eval.py fast:A.pth fast:B.pth [--group-a SPEC] [--group-b SPEC] \\
        [--games 1000] [--seed 7] [--difficulty normal,hard,doomed] [--jobs 2] [--out F.json]

Team A is ``PLAY_A`` + (``--group-a`` or ``PLAY_A``), team B likewise; both play game ``i``
of each difficulty from the reference evaluator's seed
(``shipwreck_agents.evaluation.evaluate.game_seed``), so each difference is measured on the same
deals and its interval is narrower than that of two separate evaluations. Prints, per
difficulty, both win rates, B - A with a 95% interval (normal approximation over the
paired games), the deals only one team won and the exact two-sided sign test over those
deals. Results do not depend on ``--jobs``. For tuning seeds; a held-out seed is measured
once, with ``shipwreck-arcana evaluate``.

A side may also be ``recorded:FILE.json[#search|#blueprint]``: the per-game wins that
``lab/studies/search_eval.py`` wrote (its ``games`` lists; ``#search``, the default, takes the
team with search, ``#blueprint`` the same network alone). That file's games are the same
deals (``game_seed``) when its seed is ``--seed``, so a search run already paid for is
paired with any team without playing it again. The file must hold that seed, every
difficulty asked for and games ``0 .. --games - 1``; ``--group-*`` does not apply to it.
search_eval plays 3 players with the base cards only, so a recorded side is refused with
any other ``--players`` or ``--card-sets`` (those would be other deals).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from shipwreck_agents.evaluation.paired import paired_difference, sign_test

__all__ = ["main", "paired", "recorded_wins", "sign_test"]

ROOT = Path(__file__).resolve().parents[2]


paired = paired_difference
"""B - A over the paired games: :func:`shipwreck_agents.evaluation.paired.paired_difference`."""


RECORDED = "recorded:"
RECORDED_KEYS = ("search", "blueprint")


def recorded_wins(spec: str, seed: int, games: int, difficulties: list[str]) -> dict:
    """Per-game wins read from a ``lab/studies/search_eval.py`` file named by ``spec``
    (``recorded:FILE.json[#search|#blueprint]``), checked to be the deals asked for.

    Raises ``ValueError`` naming what does not match.
    """
    path, _, key = spec[len(RECORDED) :].partition("#")
    key = key or "search"
    if key not in RECORDED_KEYS:
        raise ValueError(f"recorded team {key!r} is not allowed; allowed: {list(RECORDED_KEYS)}")
    try:
        data = json.loads(Path(path).read_text())
        recorded_seed, by_difficulty = data["seed"], data["games"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path!r} is not a lab/studies/search_eval.py output: {exc}") from None
    if recorded_seed != seed:
        raise ValueError(f"{path!r} holds seed {recorded_seed}, not --seed {seed}")
    wins = {}
    for d in difficulties:
        rows = {r["game"]: r[f"{key}_won"] for r in by_difficulty.get(d, [])}
        missing = [i for i in range(games) if i not in rows]
        if missing:
            raise ValueError(
                f"{path!r} lacks {len(missing)} of games 0..{games - 1} at {d} "
                f"(first missing: {missing[0]}); it holds {len(rows)} there"
            )
        wins[d] = [bool(rows[i]) for i in range(games)]
    return wins


def main(argv: list[str] | None = None) -> int:
    """Play both teams and print the paired figures; 0 on success, 2 on bad input."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("play_a", help="team A's play spec (its group too unless --group-a)")
    parser.add_argument("play_b", help="team B's play spec (its group too unless --group-b)")
    parser.add_argument("--group-a", default=None)
    parser.add_argument("--group-b", default=None)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--difficulty", default="normal,hard,doomed")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--card-sets", default="base")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", default=None, help="also write the figures as JSON here")
    args = parser.parse_args(argv)
    from shipwreck_agents.evaluation.evaluate import wins_by_game
    from shipwreck_agents.registry import make_policy
    from shipwreck_env.rules.config import DIFFICULTIES

    teams = {
        "a": (args.play_a, args.group_a or args.play_a),
        "b": (args.play_b, args.group_b or args.play_b),
    }
    difficulties = args.difficulty.split(",")
    won = {}
    try:
        bad = [d for d in difficulties if d not in DIFFICULTIES]
        if bad:
            raise ValueError(f"difficulty {bad[0]!r} is not allowed; allowed: {list(DIFFICULTIES)}")
        for side, (play, group) in teams.items():  # both sides before any game is played
            if play.startswith(RECORDED):
                if getattr(args, f"group_{side}") is not None:
                    raise ValueError(f"--group-{side} does not apply to a recorded team ({play})")
                if (args.players, args.card_sets) != (3, "base"):
                    raise ValueError(
                        f"a recorded team ({play}) was played with 3 players and the base "
                        f"cards; got --players {args.players} --card-sets {args.card_sets}"
                    )
                won[side] = recorded_wins(play, args.seed, args.games, difficulties)
                teams[side] = (play, None)
            else:
                make_policy(play), make_policy(group)
        for side, (play, group) in teams.items():
            if side in won:
                continue
            won[side] = wins_by_game(
                play,
                group,
                players=args.players,
                difficulties=difficulties,
                games=args.games,
                seed=args.seed,
                jobs=args.jobs,
                card_sets=args.card_sets,
            )
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    report = {"a": teams["a"], "b": teams["b"], "seed": args.seed, "results": {}}
    for d in difficulties:
        row = paired(won["a"][d], won["b"][d])
        report["results"][d] = row
        print(
            f"{d}: {row['games']} deals, A {row['a']:.3f}, B {row['b']:.3f}, B - A "
            f"{row['b_minus_a']:+.3f} +- {row['half_width95']:.3f}; only A won "
            f"{row['only_a']}, only B {row['only_b']} (sign test p = {row['sign_test_p']:.3f})",
            flush=True,
        )
    if args.out:
        given = sys.argv[1:] if argv is None else argv
        report["command"] = shlex.join(["python", "lab/studies/paired_eval.py", *given])
        Path(args.out).write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
