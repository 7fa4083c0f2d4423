"""The ``shipwreck-arcana`` command (:mod:`shipwreck_apps.cli`): help without docstring markup,
every option's help and default shown, ``--version``, ``bench --help`` showing the
benchmark's own options, unknown arguments refused.

Authority: the module docstring of ``apps/cli.py`` and issues 13, 22 and 23 (every
numeric option checked while it is read: one line naming the value and what is allowed,
exit 2, no traceback; the spec list made from the registry; files written announced).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import shipwreck_env
from shipwreck_apps.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]

COMMANDS = ["main", "random", "evaluate", "play", "replay", "serve", "warm"]


def help_text(capsys: pytest.CaptureFixture, *argv: str) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--help"])
    assert exit_info.value.code == 0
    return capsys.readouterr().out


def test_top_help_lists_every_command_without_markup(capsys: pytest.CaptureFixture) -> None:
    text = help_text(capsys)
    assert "``" not in text and ":func:" not in text
    for command in [*COMMANDS, "bench"]:
        assert re.search(rf"^\s+{command}\s+\S", text, re.MULTILINE), command
    assert "--version" in text


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_has_help_and_shows_its_default(
    capsys: pytest.CaptureFixture, command: str
) -> None:
    text = help_text(capsys, command)
    assert "``" not in text
    assert "%%" not in text  # a description is not %-formatted: "%%" would show as is
    sub = build_parser()._subparsers._group_actions[0].choices[command]
    for action in sub._actions:
        if action.dest == "help":
            continue
        assert action.help, f"{command} {action.option_strings} has no help"
        if action.default not in (None, False):
            assert f"(default: {action.default})" in " ".join(text.split()), action.dest


def test_version(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"shipwreck-arcana {shipwreck_env.__version__}"


def test_bench_help_shows_the_benchmarks_options(capsys: pytest.CaptureFixture) -> None:
    text = help_text(capsys, "bench")
    assert text.startswith("usage: shipwreck-arcana bench")
    assert "--seconds" in text and "--repeats" in text


def test_unknown_arguments_are_refused(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["random", "--games", "1", "--bogus"])
    assert exit_info.value.code == 2
    assert "--bogus" in capsys.readouterr().err


def test_random_prints_a_table(capsys: pytest.CaptureFixture) -> None:
    assert main(["random", "--games", "2", "--players", "2"]) == 0
    out = capsys.readouterr().out
    assert "| difficulty | win rate |" in out and "| doomed |" in out


def test_the_main_job_plays_the_shipped_learned_team(capsys: pytest.CaptureFixture) -> None:
    """Issue 12: the shipped fast-trainer team loads in the main job (``./run.sh --play
    fast:PATH --group fast:PATH``), the spec its ``.meta.json`` names."""
    pytest.importorskip("torch")
    model = ROOT / "results" / "models" / "fast_selfplay.pth"
    meta = json.loads(model.with_suffix(".meta.json").read_text())
    spec = meta["spec"]
    assert spec == "fast:results/models/fast_selfplay.pth"
    argv = ["main", "--play", spec, "--group", spec, "--games", "2", "--jobs", "1"]
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        assert main(argv) == 0
    out = capsys.readouterr().out
    assert (
        out.startswith("fast:fast_selfplay+fast:fast_selfplay: 3 players") and "| doomed |" in out
    )


def test_the_apps_import_one_way() -> None:
    """Inside ``shipwreck_apps`` imports point one way, cli -> commands -> web -> play:
    the table and terminal never import the web app or the command line (issue 22,
    finding 11: ``play.commands`` imported ``web``, which imported ``play``)."""
    from helpers import imported_modules

    apps = ROOT / "apps"
    rank = {
        **{"arguments": 0, "play": 0, "web": 1, "commands": 2, "adhoc_command": 2, "bench": 2},
        **{"warm": 2, "_moved": 0},
        **{"cli": 3, "__main__": 4},
    }
    offenders = []
    for path in sorted(apps.rglob("*.py")):
        part = path.relative_to(apps).parts[0].removesuffix(".py")
        if part == "__init__":
            continue
        for name in imported_modules(path):
            parts = name.split(".")
            if parts[0] == "shipwreck_apps" and len(parts) > 1 and rank[parts[1]] > rank[part]:
                offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offenders == []


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (
            ["evaluate", "--games", "0"],
            "argument --games: 0 is not allowed; allowed: an integer >= 1",
        ),
        (["evaluate", "--games", "-5"], "argument --games: -5 is not allowed"),
        (["main", "--games", "-3"], "argument --games: -3 is not allowed"),
        (["main", "--jobs", "0"], "argument --jobs: 0 is not allowed"),
        (["evaluate", "--players", "7"], "allowed: an integer from 2 to 5"),
        (["evaluate", "--seed", "x"], "argument --seed: 'x' is not an integer"),
        (["random", "--games", "0"], "argument --games: 0 is not allowed"),
        (["play", "--seat", "-1"], "argument --seat: -1 is not allowed"),
        (["serve", "--port", "70000"], "allowed: an integer from 1 to 65535"),
        (["serve", "--idle-timeout", "0"], "argument --idle-timeout: 0 is not allowed"),
    ],
)
def test_a_bad_number_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture, argv: list[str], named: str
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert named in err and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith(f"shipwreck-arcana {argv[0]}: error:")


def test_an_unknown_spec_lists_every_spec_of_the_registry(capsys: pytest.CaptureFixture) -> None:
    from shipwreck_agents.registry import SPECS

    assert main(["evaluate", "--play", "bogus", "--games", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "policy 'bogus' is not known" in err
    for form, _ in SPECS:
        assert form in err
    assert "convention" in help_text(capsys)  # the command's own help lists them too


def test_the_main_job_writes_and_announces_its_results(
    capsys: pytest.CaptureFixture, tmp_path: Path
) -> None:
    out = tmp_path / "runs" / "main.json"
    assert main(["main", "--games", "1", "--jobs", "1", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert f"wrote {out}" in text and f"wrote {out.with_suffix('.csv')}" in text
    report = json.loads(out.read_text())
    assert report["team"] == "convention+convention" and report["games"] == 1


def test_commands_that_play_give_torch_one_thread(tmp_path: Path) -> None:
    """A trained team decides one game at a time; torch's thread pool only slows that,
    many times over on a busy machine (issue 21's search evaluation: 25 min against 70 s)."""
    import subprocess
    import sys

    code = (
        "import os, sys\n"
        "os.environ.pop('OMP_NUM_THREADS', None)\n"
        "from shipwreck_apps.cli import main\n"
        "main(['evaluate', '--play', 'fast:results/models/fast_selfplay.pth', '--group',"
        " 'fast:results/models/fast_selfplay.pth', '--games', '1', '--difficulty', 'easy',"
        " '--no-progress'])\n"
        "import torch\n"
        "print('threads', torch.get_num_threads())\n"
    )
    env = {k: v for k, v in __import__("os").environ.items() if k != "OMP_NUM_THREADS"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "threads 1"


@pytest.mark.parametrize("command", ["evaluate", "crossplay"])
def test_a_learned_team_without_torch_is_one_line_naming_the_extra(command: str) -> None:
    """Without torch (the ``train`` extra) a learned team's spec is refused in one line that
    says what to install, as a bad spec is, not at the end of a traceback."""
    import subprocess
    import sys
    import textwrap

    if command == "evaluate":
        teams = ["--play", "fast:best", "--group", "fast:best", "--no-progress"]
    else:
        teams = ["convention", "fast:best"]
    code = textwrap.dedent(
        f"""
        import sys
        sys.modules["torch"] = None  # import torch now fails, as if not installed
        from shipwreck_apps.cli import main
        sys.exit(main([{command!r}, *{teams!r}, "--games", "1"]))
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and "shipwreck-arcana-env[train]" in done.stderr


@pytest.mark.parametrize(
    ("command", "program"),
    [
        ("learning-curve", "lab/reports/learning_curve.py"),
        ("export-belief", "lab/runs/export_belief.py"),
    ],
)
def test_a_subcommand_moved_to_the_lab_is_refused_naming_its_program(
    command: str, program: str, capsys
) -> None:
    """Measuring tools left the product's command line for the lab (issue 48): using one
    says in one line where it went, and exits 2."""
    assert main([command, "x.jsonl"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"python {program}" in err
