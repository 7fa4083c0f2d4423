"""scripts/export_belief_kind.py: the same weights shipped with another policy belief."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import load_script

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "results" / "models" / "fast_selfplay_imitation.pth"
export_belief_kind = load_script("export_belief_kind")


def test_export_copies_the_weights_and_changes_only_the_kind(tmp_path: Path) -> None:
    out = tmp_path / "team.pth"
    assert export_belief_kind.main([str(MODEL), str(out), "--belief-kind", "policy_carry"]) == 0
    assert out.read_bytes() == MODEL.read_bytes()
    old = json.loads(MODEL.with_suffix(".meta.json").read_text())
    new = json.loads(out.with_suffix(".meta.json").read_text())
    assert new["belief_kind"] == "policy_carry" and new["spec"] == f"fast:{out}"
    assert new["derived_from"]["belief_kind"] == "policy"
    assert "--belief-kind policy_carry" in new["derived_from"]["command"]
    changed = {k for k in new if new.get(k) != old.get(k)}
    assert changed == {"belief_kind", "spec", "derived_from"}

    from shipwreck_agents.learned.fast_team import FastTeamPolicy

    assert FastTeamPolicy(str(out)).belief_kind == "policy_carry"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--belief-kind", "literal"], "belief kind 'literal' is not allowed"),
        (["--belief-kind", "policy_carry", "--from", "nothing.pth"], "does not exist"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(tmp_path: Path, capsys, args, message) -> None:
    out = tmp_path / "team.pth"
    source = str(MODEL)
    if "--from" in args:
        i = args.index("--from")
        source, args = str(tmp_path / args[i + 1]), args[:i]
    assert export_belief_kind.main([source, str(out), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err
    assert list(tmp_path.iterdir()) == []


def test_an_existing_output_is_refused(tmp_path: Path, capsys) -> None:
    out = tmp_path / "team.pth"
    out.write_bytes(b"keep")
    assert export_belief_kind.main([str(MODEL), str(out), "--belief-kind", "policy_carry"]) == 2
    assert "exists" in capsys.readouterr().err and out.read_bytes() == b"keep"
