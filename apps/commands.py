"""The ``play``, ``replay`` and ``serve`` subcommands of ``shipwreck-arcana``.

:func:`add_commands` adds their parsers to the command's subparsers; :func:`run` runs
one. They live here so that the command line module only wires them in.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from shipwreck_apps.arguments import at_least, between, positive_float
from shipwreck_apps.play import DEFAULT_TEAMMATES

__all__ = ["COMMANDS", "add_commands", "run"]

COMMANDS = ("play", "replay", "serve")


def add_commands(sub: argparse._SubParsersAction, formatter: type) -> None:
    """Add the ``play``, ``replay`` and ``serve`` parsers."""
    play = sub.add_parser(
        "play",
        help="play a game in the terminal with AI teammates",
        description="Play a game in the terminal: you take one seat, AI teammates the "
        "others. Teammates: a policy spec (convention, bayes, heuristic, ppo:PATH, ...) "
        "or PLAY+GROUP.",
        formatter_class=formatter,
    )
    play.add_argument("--players", type=between(2, 5), default=3, help="players, 2 to 5")
    play.add_argument("--seat", type=at_least(0), default=0, help="your player number")
    play.add_argument(
        "--teammates",
        default=DEFAULT_TEAMMATES,
        help="AI teammates' policy spec (default: the best team with strangers, results/adhoc/README.md)",
    )
    play.add_argument("--difficulty", default="normal", help="easy, normal, hard or doomed")
    play.add_argument("--card-sets", default="base", help="card sets, e.g. base or all")
    play.add_argument("--group-decision", default="leader", help="leader or vote")
    play.add_argument(
        "--challenge", action="store_true", help="2-player challenge mode (two seats each)"
    )
    play.add_argument(
        "--seed", type=at_least(0), default=None, help="game seed (random if omitted)"
    )
    play.add_argument("--save", default=None, help="save here on s and on quitting")
    play.add_argument("--resume", default=None, help="continue a game saved with s or --save")
    replay = sub.add_parser(
        "replay",
        help="step through a recorded game in the terminal",
        description="Step through a recorded game (evaluate --record DIR, or a saved "
        "game): Enter steps, a number jumps to that step, q quits.",
        formatter_class=formatter,
    )
    replay.add_argument("file", help="a replay record (.json) or a saved game")
    replay.add_argument(
        "--viewer", default="all", help="a player number (their view only) or all (omniscient)"
    )
    replay.add_argument("--all", action="store_true", help="print every step without waiting")
    serve = sub.add_parser(
        "serve",
        help="the browser table: a local web app to play and watch replays",
        description="Start the local web app: create games, share each seat's secret "
        "link, play in the browser, watch replays.",
        formatter_class=formatter,
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=between(1, 65535), default=8000, help="port to listen on")
    serve.add_argument(
        "--replays",
        default=None,
        metavar="DIR",
        help="folder of replay records to show (finished games only) to anyone who can "
        "reach the server",
    )
    serve.add_argument(
        "--public-replays",
        action="store_true",
        help="allow --replays on an address other than this machine's (the records are "
        "then open to anyone on the network)",
    )
    serve.add_argument(
        "--record",
        default=None,
        metavar="DIR",
        help="write every finished game to DIR (checked writable at start; without it "
        "finished games go to a private temporary folder)",
    )
    serve.add_argument(
        "--games",
        default=None,
        metavar="DIR",
        help="the server's own folder where games in progress are journaled (a restart on "
        "the same folder resumes them at the same links); default "
        "~/.local/state/shipwreck-arcana/games",
    )
    for flag, kind, default, metavar, words in (  # defaults as in web.games.Limits
        ("--idle-timeout", positive_float, 3600.0, "SECONDS", "a game in progress expires "
         "after this long without a request"),
        ("--games-per-minute", at_least(1), 30, "N", "games one client address may create "
         "in any 60 seconds"),
        ("--finished-games", at_least(1), 10_000, "N", "finished games kept reachable (on "
         "disk); past it the oldest expires"),
    ):  # fmt: skip
        serve.add_argument(flag, type=kind, default=default, metavar=metavar, help=words)
    serve.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name the server answers to besides --host (repeatable; needed with "
        "--host 0.0.0.0)",
    )


def run(args: argparse.Namespace) -> int:
    """Run the subcommand ``args.command``."""
    try:
        if args.command == "play":
            return _play(args)
        if args.command == "replay":
            return _replay(args)
        return _serve(args)
    except BrokenPipeError:  # output piped into head or a closed pager: stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _play(args: argparse.Namespace) -> int:
    from shipwreck_apps.play.table import PlayError, Table
    from shipwreck_apps.play.terminal import play_terminal
    from shipwreck_env.rules.config import GameConfig

    try:
        if args.resume:
            table = Table.loads(Path(args.resume).read_text())
            player = table.humans[0]
            save = args.save or args.resume
        else:
            config = GameConfig(
                num_players=args.players,
                difficulty=args.difficulty,
                card_sets=args.card_sets,
                group_decision=args.group_decision,
                challenge_mode=args.challenge,
            )
            table = Table(config, [args.seat], args.teammates, args.seed)
            player, save = args.seat, args.save
    except (OSError, PlayError, ValueError) as exc:
        raise SystemExit(f"shipwreck-arcana play: {exc}") from None
    return play_terminal(table, player, sys.stdin, sys.stdout, save)


def _replay(args: argparse.Namespace) -> int:
    from shipwreck_apps.play.replay_view import replay_terminal

    try:
        return replay_terminal(args.file, args.viewer, sys.stdin, sys.stdout, wait=not args.all)
    except ValueError as exc:
        raise SystemExit(f"shipwreck-arcana replay: {exc}") from None


def _serve(args: argparse.Namespace) -> int:
    try:
        from shipwreck_apps.web.server import serve
    except ImportError as exc:
        raise SystemExit(
            f"shipwreck-arcana serve needs the play extra ({exc}); install it with "
            'pip install -e ".[play]"'
        ) from None
    from shipwreck_apps.web.games import Limits
    from shipwreck_apps.web.guard import LOOPBACK

    local = args.host in LOOPBACK
    if args.idle_timeout <= 0:
        raise SystemExit(f"--idle-timeout {args.idle_timeout:g} must be a positive number")
    if args.replays and not local and not args.public_replays:
        raise SystemExit(
            f"--replays on {args.host} would show every record in {args.replays} to anyone "
            "on the network; add --public-replays to mean it"
        )
    if args.host in ("0.0.0.0", "::") and not args.allowed_host:
        raise SystemExit(
            f"--host {args.host} listens on every address: name the host names browsers "
            "will use with --allowed-host NAME (requests for other names are refused)"
        )
    if not local:
        print(
            f"warning: listening on {args.host}: anyone who can reach it can create games; "
            "seat links are the only protection of each seat",
            file=sys.stderr,
        )
    serve(
        args.host,
        args.port,
        args.replays,
        args.record,
        allowed_hosts=args.allowed_host,
        limits=Limits(
            per_minute=args.games_per_minute,
            max_finished=args.finished_games,
            idle_timeout=args.idle_timeout,
        ),
        games_folder=args.games,
    )
    return 0
