"""``lab/runs/export_belief.py`` (once ``shipwreck-arcana export-belief``): the same weights
shipped with another policy belief."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ROOT, load_script

PROGRAM = "lab/runs/export_belief.py"


def main(argv: list[str]) -> int:
    """The lab program, run as from its command line (its first word dropped)."""
    assert argv[0] == "export-belief"
    return load_script("export_belief").main(argv[1:])


MODEL = ROOT / "results" / "models" / "fast_selfplay_imitation.pth"


def test_export_copies_the_weights_and_changes_only_the_kind(tmp_path: Path, capsys) -> None:
    out = tmp_path / "team.pth"
    argv = ["export-belief", str(MODEL), str(out), "--belief-kind", "policy_carry"]
    assert main(argv) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    assert out.read_bytes() == MODEL.read_bytes()
    old = json.loads(MODEL.with_suffix(".meta.json").read_text())
    new = json.loads(out.with_suffix(".meta.json").read_text())
    assert new["belief_kind"] == "policy_carry" and new["spec"] == f"fast:{out}"
    assert new["derived_from"]["belief_kind"] == "policy"
    assert new["derived_from"]["command"] == f"python {PROGRAM} " + " ".join(argv[1:])
    changed = {k for k in new if new.get(k) != old.get(k)}
    assert changed == {"belief_kind", "spec", "derived_from"}

    from shipwreck_agents.learned.fast_team import FastTeamPolicy

    assert FastTeamPolicy(str(out)).belief_kind == "policy_carry"


def test_a_kind_that_is_not_a_policy_belief_is_refused_with_the_allowed_ones(
    tmp_path: Path, capsys
) -> None:
    argv = ["export-belief", str(MODEL), str(tmp_path / "t.pth"), "--belief-kind", "literal"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == (
        "lab/runs/export_belief.py: error: --belief-kind 'literal' is not allowed; "
        "allowed: policy, policy_carry\n"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("nothing.pth", "does not exist"),
        (None, "only a network trained with a policy-conditioned belief"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(
    tmp_path: Path, capsys, source: str | None, message: str
) -> None:
    models = tmp_path / "models"
    models.mkdir()
    if source is None:  # a team that reads the literal belief cannot switch kinds
        literal = models / "literal.pth"
        literal.write_bytes(MODEL.read_bytes())
        meta = json.loads(MODEL.with_suffix(".meta.json").read_text())
        literal.with_suffix(".meta.json").write_text(json.dumps(meta | {"belief_kind": "literal"}))
        path = literal
    else:
        path = models / source
    out = tmp_path / "team.pth"
    assert main(["export-belief", str(path), str(out), "--belief-kind", "policy_carry"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("lab/runs/export_belief.py: error: ") and message in err
    assert "\n" not in err and not out.exists() and not out.with_suffix(".meta.json").exists()


def test_an_existing_output_is_refused(tmp_path: Path, capsys) -> None:
    out = tmp_path / "team.pth"
    out.write_bytes(b"keep")
    assert main(["export-belief", str(MODEL), str(out), "--belief-kind", "policy_carry"]) == 2
    assert "exists" in capsys.readouterr().err and out.read_bytes() == b"keep"


def test_help_says_what_is_copied(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["export-belief", "--help"])
    text = capsys.readouterr().out
    assert text.startswith("usage: lab/runs/export_belief.py")
    assert "--belief-kind" in text and "policy_carry" in text


def test_without_torch_it_is_one_line_naming_the_extra(tmp_path: Path) -> None:
    """The parser loads without torch; the copy says what to install."""
    import subprocess
    import sys
    import textwrap

    out = tmp_path / "team.pth"
    code = textwrap.dedent(
        f"""
        import runpy, sys
        sys.modules["torch"] = None  # import torch now fails, as if not installed
        sys.argv = [{PROGRAM!r}, {str(MODEL)!r}, {str(out)!r}, "--belief-kind", "policy"]
        runpy.run_path({PROGRAM!r}, run_name="__main__")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and "shipwreck-arcana-env[train]" in done.stderr
    assert not out.exists()
