"""The ad-hoc benchmark (agents/evaluation/adhoc.py, ``shipwreck-arcana adhoc``), its partner pool
and the strangers of the pool: the natural team (agents/scripted/natural.py) and noisy policies
(agents/scripted/noisy.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from shipwreck_agents.evaluation.adhoc import (
    ADHOC_SEED,
    HELD_OUT_PARTNERS,
    TRAINING_PARTNERS,
    adhoc,
    model_files,
)
from shipwreck_agents.registry import make_policy, make_team
from shipwreck_agents.scripted.heuristic import HeuristicPlayer
from shipwreck_agents.scripted.natural import NaturalPlayer
from shipwreck_agents.scripted.noisy import NoisyPolicy
from shipwreck_apps.cli import main
from shipwreck_env.rules.actions import ACTIONS, HOURS_TARGET
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
from shipwreck_env.rules.view import make_view

ROOT = Path(__file__).resolve().parents[2]
SCRIPTED_PARTNERS = ["literal", "natural"]  # quick partners for the benchmark's own tests


def _states(n: int, seed: int, players: int = 3):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        s = new_game(GameConfig(num_players=players), rng)
        while not s.over and len(out) < n:
            out.append(s.copy())
            legal = legal_actions(s)
            step_inplace(s, legal[int(rng.integers(len(legal)))], rng)
    return out


def _mask(s) -> np.ndarray:
    mask = np.zeros(len(ACTIONS), dtype=np.int8)
    mask[list(legal_actions(s))] = 1
    return mask


# --- the pool -------------------------------------------------------------------------


def test_training_and_held_out_partners_share_no_team_and_no_model_file():
    training = {p.spec for p in TRAINING_PARTNERS}
    held_out = {p.spec for p in HELD_OUT_PARTNERS}
    assert not training & held_out
    training_files = {f for spec in training for f in model_files(spec)}
    held_out_files = {f for spec in held_out for f in model_files(spec)}
    assert held_out_files and not training_files & held_out_files


def test_every_partner_of_the_pool_is_a_fair_team_that_builds():
    pytest.importorskip("torch")
    for partner in TRAINING_PARTNERS + HELD_OUT_PARTNERS:
        assert not make_team(partner.spec).cheating, partner.spec


def test_the_pool_spans_the_kinds_the_issue_names():
    kinds = {p.kind for p in TRAINING_PARTNERS + HELD_OUT_PARTNERS}
    assert {"literal", "noisy", "scripted", "convention", "learned", "natural"} <= kinds
    assert {"natural", "convention", "noisy", "learned"} <= {p.kind for p in HELD_OUT_PARTNERS}


def _config_files() -> list[Path]:
    files = [p for p in (ROOT / "configs").rglob("*") if p.is_file()]
    assert len(files) > 10
    return files


def test_no_training_config_names_a_held_out_partner_or_the_benchmark_seed():
    """A held-out partner is never trained with: no config names its spec or its model
    file, and no config uses the benchmark's deals."""
    for path in _config_files():
        text = path.read_text()
        for partner in HELD_OUT_PARTNERS:
            assert partner.spec not in text, (path, partner.spec)
            for model in model_files(partner.spec):
                assert Path(model).name not in text, (path, model)
        assert str(ADHOC_SEED) not in text, path


def test_model_files_reads_files_inside_noisy_and_two_sided_specs():
    assert model_files("noisy:0.1:fast:a/b.pth+ppo:c.zip") == ["a/b.pth", "c.zip"]
    assert model_files("search:x/y.pth,samples=4") == ["x/y.pth"]
    assert model_files("convention:0.9,noplan") == []


# --- the benchmark ----------------------------------------------------------------------


def test_adhoc_pools_both_seatings_over_every_partner_and_is_the_same_for_any_jobs():
    one = adhoc("heuristic+bayes", partners=SCRIPTED_PARTNERS, games=6, difficulties=["normal"])
    two = adhoc(
        "heuristic+bayes", partners=SCRIPTED_PARTNERS, games=6, difficulties=["normal"], jobs=2
    )
    assert one == two
    result = one["results"]["normal"]
    cells = result["cells"]
    assert set(cells) == set(SCRIPTED_PARTNERS)
    wins = sum(c[pos]["wins"] for c in cells.values() for pos in cells["literal"])
    assert result["adhoc"]["wins"] == wins
    assert result["adhoc"]["games"] == 2 * 6 * len(SCRIPTED_PARTNERS)
    assert one["seed"] == ADHOC_SEED


def test_adhoc_seats_the_stranger_and_the_team_as_the_crossplay_cells_do():
    """The two seatings are the cross-play cells (partner as newcomer; team as newcomer)
    on the same deals."""
    from shipwreck_agents.evaluation.crossplay import crossplay

    report = adhoc("heuristic+bayes", partners=["natural"], games=5, difficulties=["normal"])
    cross = crossplay(["heuristic+bayes", "natural"], games=5, seed=ADHOC_SEED)
    cell = report["results"]["normal"]["cells"]["natural"]
    assert cell["stranger_joins"] == cross["cells"]["natural"]["heuristic+bayes"]
    assert cell["joins_strangers"] == cross["cells"]["heuristic+bayes"]["natural"]
    assert report["results"]["normal"]["self"] == cross["summary"]["heuristic+bayes"]["self"]


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        ({"partners": ["heuristic+bayes"]}, "other than the team"),
        ({"partners": ["literal", "literal"]}, "distinct"),
        ({"partners": ["oracle"]}, "cheats"),
        ({"partners": ["nobody"]}, "not known"),
        ({"difficulties": ["nightmare"]}, "difficulty 'nightmare'"),
        ({"games": 0}, "games"),
    ],
)
def test_adhoc_refuses_bad_arguments_with_a_sentence(kwargs, says):
    with pytest.raises(ValueError, match=says):
        adhoc("heuristic+bayes", **{"partners": ["literal"], "games": 2, **kwargs})


def test_the_command_writes_each_team_and_rebuilds_the_report(tmp_path, capsys):
    for team in ("heuristic+bayes", "literal"):
        code = main(
            [
                *("adhoc", team, "--partners", "natural", "--games", "3"),
                *("--difficulty", "normal", "--out-dir", str(tmp_path)),
            ]
        )
        assert code == 0
    files = sorted(p.name for p in (tmp_path / "adhoc").glob("*.json"))
    assert files == ["heuristic_bayes.json", "literal.json"]
    saved = json.loads((tmp_path / "adhoc" / "literal.json").read_text())
    assert saved["command"].startswith("shipwreck-arcana ") and saved["partners"] == ["natural"]
    text = (tmp_path / "adhoc" / "README.md").read_text()
    assert "| heuristic+bayes | normal |" in text and "| literal | normal |" in text
    assert (tmp_path / "adhoc" / "adhoc.png").stat().st_size > 1000


@pytest.mark.parametrize(
    ("extra", "folder"), [(("--players", "4"), "4p"), (("--study", "ablation"), "ablation")]
)
def test_other_studies_get_a_folder_and_report_of_their_own(tmp_path, extra, folder):
    """4 or 5 players, or a named study, write beside the main report, not into it: the
    main table (and the tables' default, which reads it) stays the 3-player one."""
    code = main(
        [
            *("adhoc", "literal", "--partners", "natural", "--games", "2", *extra),
            *("--difficulty", "normal", "--out-dir", str(tmp_path)),
        ]
    )
    assert code == 0
    assert not list((tmp_path / "adhoc").glob("*.json"))
    saved = json.loads((tmp_path / "adhoc" / folder / "literal.json").read_text())
    assert saved["config"]["num_players"] == (4 if folder == "4p" else 3)
    assert "| literal | normal |" in (tmp_path / "adhoc" / folder / "README.md").read_text()


def test_the_command_refuses_an_unknown_team_in_one_line(capsys):
    assert main(["adhoc", "nobody", "--games", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not known" in err[0]


def test_a_study_folder_holding_another_study_s_files_is_refused_before_any_game(
    tmp_path, capsys, monkeypatch
):
    """--study into a folder with a JSON file that is not an ad-hoc report: refused in one
    line naming the file, before a single game is played, and nothing is written."""
    import shipwreck_agents.evaluation.adhoc as adhoc_module

    folder = tmp_path / "adhoc" / "self"
    folder.mkdir(parents=True)
    (folder / "paired.json").write_text(json.dumps({"a": [], "b": [], "results": {}}))
    monkeypatch.setattr(adhoc_module, "adhoc", lambda *a, **k: pytest.fail("games were played"))
    args = ["adhoc", "random", "--games", "1", "--study", "self", "--out-dir", str(tmp_path)]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "paired.json is not an ad-hoc report" in err[0], err
    assert sorted(p.name for p in folder.iterdir()) == ["paired.json"]


# --- the strangers ----------------------------------------------------------------------


def test_the_natural_player_breaks_ties_at_random_and_never_uses_a_power():
    player = NaturalPlayer()
    varied = 0
    for s in _states(400, seed=5):
        if s.over:
            continue
        view = make_view(s, s.decider)
        if view.decider != view.active_player:
            continue
        picks = {player.act(None, _mask(s), view, np.random.default_rng(k)) for k in range(12)}
        assert all(a in legal_actions(s) for a in picks)
        assert all(ACTIONS[a].kind != "power" for a in picks)
        varied += len(picks) > 1
        if view.phase != "play":
            assert len(picks) == 1  # random only among tied plays
    assert varied > 5


def test_the_natural_player_makes_a_play_that_leaves_the_fewest_values():
    """Each play it makes scores best on its count of the values left (less the doom
    term); the heuristic player, weighing by unseen copies, disagrees somewhere."""
    player, heuristic = NaturalPlayer(), HeuristicPlayer()
    differs = 0
    for s in _states(300, seed=9):
        if s.over:
            continue
        view = make_view(s, s.decider)
        if view.phase != "play" or view.decider != view.active_player:
            continue
        hand = view.my_hands[view.my_seats.index(view.active_seat)]
        chosen = player.act(None, _mask(s), view, np.random.default_rng(0))
        spec = ACTIONS[chosen]
        scores = {
            a: player._play_score(view, hand, ACTIONS[a].value, ACTIONS[a].slot)
            for a in legal_actions(s)
            if ACTIONS[a].kind == "play"
            and (ACTIONS[a].slot == HOURS_TARGET or view.slots[ACTIONS[a].slot] != "feast")
        }
        if chosen in scores:
            assert scores[chosen] >= max(scores.values()) - 1e-12, spec
        differs += chosen != heuristic.act(None, _mask(s), view, np.random.default_rng(0))
    assert differs > 0


def test_a_noisy_policy_with_no_noise_is_its_inner_policy_and_with_full_noise_plays_uniformly():
    inner = HeuristicPlayer()
    quiet, loud = NoisyPolicy(inner, 0.0), NoisyPolicy(inner, 1.0)
    seen_other = 0
    for s in _states(200, seed=11):
        if s.over:
            continue
        view, mask = make_view(s, s.decider), _mask(s)
        want = inner.act(None, mask, view, np.random.default_rng(1))
        assert quiet.act(None, mask, view, np.random.default_rng(1)) == want
        picks = {loud.act(None, mask, view, np.random.default_rng(k)) for k in range(20)}
        if view.decider != view.active_player:
            assert picks == {want}  # the group's decisions are never noisy
        elif len(view.legal) > 2:
            seen_other += len(picks) > 1
    assert seen_other > 5


def test_noisy_refuses_an_epsilon_outside_zero_to_one():
    with pytest.raises(ValueError, match="allowed: 0 to 1"):
        NoisyPolicy(HeuristicPlayer(), float("nan"))
    with pytest.raises(ValueError, match="from 0 to 1"):
        make_policy("noisy:1.5:heuristic")
    with pytest.raises(ValueError, match="noisy:E:SPEC"):
        make_policy("noisy:0.5")


def test_a_noisy_team_wraps_both_roles_and_keeps_one_object_for_a_one_object_team():
    team = make_team("noisy:0.2:convention")
    assert team.play is team.group and isinstance(team.play, NoisyPolicy)
    split = make_team("noisy:0.2:heuristic+bayes")
    assert split.play is not split.group
    assert split.play.inner.name == "heuristic" and split.group.inner.name == "bayes"


def test_the_docs_table_of_the_pool_matches_the_split():
    text = (ROOT / "docs" / "adhoc.md").read_text()
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 4 and cells[0] in ("training", "held out"):
            rows[cells[1].strip("`")] = cells[0]
    want = {p.spec: "training" for p in TRAINING_PARTNERS}
    want.update({p.spec: "held out" for p in HELD_OUT_PARTNERS})
    assert rows == want


def test_the_types_spec_builds_one_policy_for_both_roles_and_refuses_unknown_types():
    from shipwreck_agents.search.type_inference import TypeGroup

    team = make_team("types")
    assert team.play is team.group and isinstance(team.play, TypeGroup)
    assert make_policy("types:uniform,heuristic").types == ("uniform", "heuristic")
    quiet = make_policy("types:nosignal,m=0.2")
    assert not quiet.signal and quiet.margin == 0.2
    with pytest.raises(ValueError, match="out of range"):
        make_policy("types:m=2")
    with pytest.raises(ValueError, match="'nobody' is not known"):
        make_policy("types:nobody")


def test_the_tables_seat_the_measured_best_team_with_strangers_by_default():
    """The default AI teammates of the terminal and browser tables are the team with the
    best pooled ad-hoc win rate at normal among those measured in results/adhoc/, and the
    lobby's form starts with it."""
    from shipwreck_apps.commands import add_commands
    from shipwreck_apps.play import DEFAULT_TEAMMATES

    reports = [json.loads(p.read_text()) for p in (ROOT / "results" / "adhoc").glob("*.json")]
    assert len(reports) >= 3
    best = max(reports, key=lambda r: r["results"]["normal"]["adhoc"]["win_rate"])
    assert best["team"] == DEFAULT_TEAMMATES
    lobby = (ROOT / "apps" / "web" / "static" / "index.html").read_text()
    assert f'name="teammates" value="{DEFAULT_TEAMMATES}"' in lobby
    import argparse

    parser = argparse.ArgumentParser()
    add_commands(parser.add_subparsers(dest="command"), argparse.HelpFormatter)
    assert parser.parse_args(["play"]).teammates == DEFAULT_TEAMMATES
