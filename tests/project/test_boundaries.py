"""Package boundaries: the core (``shipwreck_env``) imports nothing from the agents or the
training; imports point down (apps -> training -> agents -> shipwreck_env). The folders
``agents/`` and ``training/`` are installed as ``shipwreck_agents`` and
``shipwreck_training``, names no other distribution uses.

Authority: the project's style guide, ``docs/development.md`` ("Floors"), and issue 13.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

import pytest
from helpers import imported_modules, imported_packages

from shipwreck_env.rules.cards import CARDS

ROOT = Path(__file__).resolve().parents[2]
FOLDER = {
    "shipwreck_env": "shipwreck_env",
    "shipwreck_agents": "agents",
    "shipwreck_training": "training",
    "shipwreck_apps": "apps",
}
"""Import name -> folder of each package."""
_APPS = ("shipwreck_apps", "apps")
ABOVE = {
    "shipwreck_env": ("shipwreck_agents", "shipwreck_training", "agents", "training", *_APPS),
    "shipwreck_agents": ("shipwreck_training", "agents", "training", *_APPS),
    "shipwreck_training": ("agents", "training", *_APPS),
    "shipwreck_apps": ("agents", "training", "apps"),
}
"""Names a package must not import: those above it, and the folders' bare names."""
BLOCK_RL_LIBRARIES = (
    "import sys\n"
    "class _Blocker:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name.split('.')[0] in ('gymnasium', 'pettingzoo'):\n"
    "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
    "sys.meta_path.insert(0, _Blocker())\n"
)
"""Code that makes gymnasium and pettingzoo unimportable, as if not installed."""


def run_python(code: str, *, without_rl_libraries: bool = False) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter from the repository root; with
    ``without_rl_libraries``, gymnasium and pettingzoo cannot be found there."""
    prefix = BLOCK_RL_LIBRARIES if without_rl_libraries else ""
    return subprocess.run(
        [sys.executable, "-c", prefix + code], cwd=ROOT, capture_output=True, text=True
    )


@pytest.mark.parametrize("package", list(ABOVE))
def test_no_module_imports_a_package_above_it(package: str) -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(imported_packages(path) & set(ABOVE[package]))
        for path in sorted((ROOT / FOLDER[package]).rglob("*.py"))
    }
    assert {k: v for k, v in offenders.items() if v} == {}


AGENT_ROOMS = {
    "base": set(),
    "models": set(),
    "spec_text": set(),
    "scripted": {"base"},
    "convention": {"base", "scripted"},
    "learned": {"base"},
    "search": {"base", "scripted", "convention", "learned", "models", "spec_text"},
    "registry": {"base", "scripted", "convention", "learned", "search", "models", "spec_text"},
    "evaluation": {
        "base",
        "scripted",
        "convention",
        "learned",
        "search",
        "models",
        "registry",
        "spec_text",
    },
}
"""Each room of ``shipwreck_agents`` (a subpackage, or a top-level module) and the rooms it
may import besides itself: the agents' floors, lowest first (``docs/development.md``)."""
PACKAGE_TOP = {"__init__", "_moved"}
"""Top-level modules of a package that are no room: its face and its old import paths."""


def agent_room(path: Path) -> str:
    """The room of ``agents/`` a file is in: its subfolder, or its module's stem."""
    parts = path.relative_to(ROOT / "agents").parts
    return parts[0] if len(parts) > 1 else Path(parts[0]).stem


def test_every_agent_module_sits_in_a_known_room() -> None:
    rooms = {agent_room(path) for path in (ROOT / "agents").rglob("*.py")}
    assert rooms - PACKAGE_TOP == set(AGENT_ROOMS)


def test_the_agent_rooms_import_only_the_rooms_below_them() -> None:
    """Scripted teams and learned loaders stand alone; search builds on them; the registry
    names them all; evaluation builds teams through the registry. A planted import of the
    registry in a scripted team fails this."""
    offenders = {}
    for path in sorted((ROOT / "agents").rglob("*.py")):
        room = agent_room(path)
        if room in PACKAGE_TOP:
            continue
        reached = {
            name.split(".")[1]
            for name in imported_modules(path)
            if name.startswith("shipwreck_agents.")
        }
        bad = reached - AGENT_ROOMS[room] - {room}
        if bad:
            offenders[str(path.relative_to(ROOT))] = sorted(bad)
    assert offenders == {}


def test_importing_every_core_module_loads_no_agents_or_training() -> None:
    """At run time too: a fresh interpreter importing every ``shipwreck_env`` module has
    no ``agents`` or ``training`` module loaded."""
    code = (
        "import importlib, pkgutil, sys\n"
        "import shipwreck_env\n"
        "for m in pkgutil.walk_packages(shipwreck_env.__path__, 'shipwreck_env.'):\n"
        "    importlib.import_module(m.name)\n"
        "top = ('agents', 'training', 'shipwreck_agents', 'shipwreck_training', 'apps', 'shipwreck_apps')\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in top)\n"
        "print(bad)\n"
    )
    out = run_python(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_the_apps_import_the_game_and_the_agents_but_not_the_trainers() -> None:
    """As ``apps/__init__.py`` says: the applications reach the game and the teams, not
    the trainers (checked on every import, lazy ones included)."""
    floors = set()
    for path in sorted((ROOT / "apps").rglob("*.py")):
        floors |= imported_packages(path) & set(FOLDER)
    assert floors == {"shipwreck_env", "shipwreck_agents", "shipwreck_apps"}


@pytest.mark.parametrize("package", ["shipwreck_agents", "shipwreck_training"])
def test_import_names_resolve_to_the_folders(package: str) -> None:
    module = __import__(package)
    assert Path(module.__file__).resolve().parent == ROOT / FOLDER[package], module.__file__


def test_the_install_lists_every_package_folder_under_its_import_name() -> None:
    """``pyproject.toml`` lists the packages by hand (the folders are renamed on install):
    every folder with an ``__init__.py`` is there, under its import name, and so is every
    data folder shipped as package data (setuptools warns at install about a folder that
    Python could import but the list leaves out)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert config["package-dir"] == {
        "shipwreck_agents": "agents",
        "shipwreck_training": "training",
        "shipwreck_apps": "apps",
    }
    found = set()
    for name, folder in FOLDER.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((name, *parts)))
    found |= set(config["package-data"])
    assert sorted(config["packages"]) == sorted(found)


def test_other_packages_named_agents_and_training_do_not_collide(tmp_path: Path) -> None:
    """Another distribution's ``agents`` and ``training`` (first on the path here) load
    beside ours: the command line still works and each name keeps its own package."""
    for name in ("agents", "training"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("OTHER = True\n")
    code = (
        "import agents, training, shipwreck_apps.cli, shipwreck_training.fast.config\n"
        "assert agents.OTHER and training.OTHER\n"
        "raise SystemExit(shipwreck_apps.cli.main(['--version']))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert "shipwreck-arcana" in out.stdout


def test_importing_a_folder_by_its_bare_name_says_what_to_import() -> None:
    """From the repository root the folders are visible as ``agents`` and ``training``;
    importing them so (which would load every module twice, under two names) is refused
    with the name to use."""
    for folder, name in (
        ("agents", "shipwreck_agents"),
        ("training", "shipwreck_training"),
        ("apps", "shipwreck_apps"),
    ):
        out = subprocess.run(
            [sys.executable, "-c", f"import {folder}"], cwd=ROOT, capture_output=True, text=True
        )
        assert out.returncode != 0
        assert f"import {name}" in out.stderr, out.stderr


# --- the rooms of shipwreck_env ---------------------------------------------------------


ENV_ROOMS = {"rules": set(), "vector": {"rules"}, "envs": {"rules", "vector"}}
"""Each room of ``shipwreck_env`` and the rooms it may import besides itself, lowest
first: the reference rules, the compiled rules, the environments (docs/development.md)."""
ENV_TOP = {"__init__", "_moved"}
"""The package's own top-level modules: the public face and the old paths' finder."""


def env_room(path: Path) -> str:
    """The room of ``shipwreck_env/`` a file is in: its subfolder, or its module's stem."""
    parts = path.relative_to(ROOT / "shipwreck_env").parts
    return parts[0] if len(parts) > 1 else Path(parts[0]).stem


def test_every_core_module_sits_in_one_of_the_three_rooms() -> None:
    rooms = {env_room(path) for path in (ROOT / "shipwreck_env").rglob("*.py")}
    assert rooms - ENV_TOP == set(ENV_ROOMS)


def test_the_core_rooms_import_only_the_rooms_below_them() -> None:
    """Envs -> compiled rules -> reference rules, lazy imports included: a planted import
    of ``shipwreck_env.vector`` in a reference-rules module fails this."""
    offenders = {}
    for path in sorted((ROOT / "shipwreck_env").rglob("*.py")):
        room = env_room(path)
        if room in ENV_TOP:
            continue
        reached = {
            name.split(".")[1]
            for name in imported_modules(path)
            if name.startswith("shipwreck_env.") and name.count(".") >= 1
        }
        bad = reached - ENV_ROOMS[room] - {room}
        if bad:
            offenders[str(path.relative_to(ROOT))] = sorted(bad)
    assert offenders == {}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def test_no_two_core_modules_import_each_other_in_a_circle() -> None:
    """The import graph of ``shipwreck_env``'s modules (lazy imports included) has no
        cycle: ``render`` and ``render_image`` once imported each other. ``from package
        import module`` counts as importing that module (not the package's ``__init__``,
    which Python has already started)."""
    modules = {_module_name(p): p for p in (ROOT / "shipwreck_env").rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                edges.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                subs = {f"{node.module}.{a.name}" for a in node.names} & set(modules)
                edges.update(subs or {node.module})
        graph[name] = {e for e in edges if e in modules and e != name and e != "shipwreck_env"}
    assert find_cycle(graph) == []


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of ``graph`` as the list of its nodes (first one repeated at the end),
    or ``[]`` when it has none (depth-first search)."""
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> list[str]:
        for nxt in sorted(graph[node]):
            if nxt in path:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in done:
                found = visit(nxt, [*path, nxt])
                if found:
                    return found
        done.add(node)
        return []

    for start in sorted(graph):
        if start not in done:
            found = visit(start, [start])
            if found:
                return found
    return []


def test_every_old_import_path_gives_the_moved_module_and_names_its_new_path() -> None:
    """Code written before the rooms keeps working: each old path of
    ``shipwreck_env._moved.MOVED`` imports as the very module at its new path, with a
    ``DeprecationWarning`` naming that path; the card conditions' old names under
    ``shipwreck_env.rules`` are found in ``conditions`` the same way."""
    code = textwrap.dedent(
        """
        import importlib, warnings
        from shipwreck_env._moved import MOVED
        bad = []
        for old, new in MOVED.items():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                module = importlib.import_module(old)
            said = [str(w.message) for w in caught if w.category is DeprecationWarning]
            if module is not importlib.import_module(new) or not any(new in s for s in said):
                bad.append(old)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            from shipwreck_env.rules import kept_mask
        from shipwreck_env.rules.conditions import kept_mask as moved
        said = [str(w.message) for w in caught]
        ok = kept_mask is moved and any("shipwreck_env.rules.conditions" in s for s in said)
        print(len(MOVED), bad, ok)
        """
    )
    out = run_python(code)
    assert out.returncode == 0, out.stderr
    count, rest = out.stdout.split(" ", 1)
    assert int(count) >= 28
    assert rest.split() == ["[]", "True"]


MOVED_ABOVE = ("shipwreck_agents", "shipwreck_training", "shipwreck_apps")
"""The packages above ``shipwreck_env`` that register old import paths of their own
(``<package>._moved``, through ``shipwreck_env._moved.register``)."""


@pytest.mark.parametrize("package", MOVED_ABOVE)
def test_every_old_import_path_of_a_package_gives_the_moved_module_and_names_its_new_path(
    package: str,
) -> None:
    """Code written before a rename keeps working: each old path of ``<package>._moved.MOVED``
    imports as the very module at its new path (its ``__spec__`` still its own), with a
    ``DeprecationWarning`` naming that path. A new module that needs a library this
    environment lacks (RLlib's, in ``.venv-rllib``) must fail on that library, not on its
    path."""
    code = textwrap.dedent(
        f"""
        import importlib, warnings
        from {package}._moved import MOVED
        bad, absent = [], []
        for old, new in MOVED.items():
            try:
                importlib.import_module(new)
            except ModuleNotFoundError as exc:
                if exc.name.split(".")[0].startswith("shipwreck"):
                    bad.append(old)
                absent.append(old)
                continue
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                module = importlib.import_module(old)
            said = [str(w.message) for w in caught if w.category is DeprecationWarning]
            if (
                module is not importlib.import_module(new)
                or module.__spec__.name != new
                or not any(new in s for s in said)
            ):
                bad.append(old)
        print(len(MOVED), len(absent), bad)
        """
    )
    out = run_python(code)
    assert out.returncode == 0, out.stderr
    count, absent, rest = out.stdout.split(" ", 2)
    assert int(count) >= 1 and int(absent) < int(count)
    assert rest.split() == ["[]"]


def removed_paths() -> list[tuple[str, str]]:
    """(old path, what replaces it) of every module a package above ``shipwreck_env``
    removed (``<package>._moved.REMOVED``), read from the files without importing them."""
    pairs = []
    for package in MOVED_ABOVE:
        tree = ast.parse((ROOT / FOLDER[package] / "_moved.py").read_text())
        for node in tree.body:
            if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "REMOVED":
                pairs += list(ast.literal_eval(node.value).items())
    return pairs


@pytest.mark.parametrize(("old", "instead"), removed_paths())
def test_a_removed_module_is_refused_in_one_line_naming_its_replacement(
    old: str, instead: str
) -> None:
    """The deprecated trainer commands are gone: ``python -m <old>`` exits with one line
    that names the command to run instead, and importing it raises an ``ImportError``
    saying the same."""
    ran = subprocess.run(
        [sys.executable, "-m", old, "--help"], cwd=ROOT, capture_output=True, text=True
    )
    said = f"{old} was removed; use {instead}"
    assert ran.returncode != 0 and ran.stdout == ""
    assert ran.stderr.count("\n") == 1 and said in ran.stderr, ran.stderr
    imported = run_python(f"import {old}")
    assert imported.returncode != 0
    assert imported.stderr.strip().splitlines()[-1] == f"ImportError: {said}"


def test_the_old_sb3_command_names_the_new_one() -> None:
    """``python -m shipwreck_training.train`` (the SB3 trainer before one package per
    trainer) says to run ``python -m shipwreck_training.sb3``."""
    assert "python -m shipwreck_training.sb3" in dict(removed_paths())["shipwreck_training.train"]


# --- the rules without the RL libraries ---------------------------------------------


RL_ADAPTERS = {
    "shipwreck_env.envs.aec_env",
    "shipwreck_env.envs.gym_env",
    "shipwreck_env.envs.gym_vector",
    "shipwreck_env.envs.gym_roles",
}
"""The only core modules that need gymnasium or pettingzoo: the RL adapters."""


def test_the_rules_play_without_gymnasium_or_pettingzoo() -> None:
    """A card table, the reference engine and the batched engine import and play where
    gymnasium and pettingzoo are not installed (docs/development.md, "Floors": the game
    itself needs no RL library)."""
    code = textwrap.dedent(
        """
        import numpy as np
        from shipwreck_env.rules.cards import CARDS
        from shipwreck_env.rules.config import GameConfig
        from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
        from shipwreck_env.vector import VectorGame
        rng = np.random.default_rng(0)
        s = new_game(GameConfig(num_players=3, card_sets='all'), rng)
        decisions = 0
        while not s.over:
            legal = legal_actions(s)
            step_inplace(s, legal[int(rng.integers(len(legal)))], rng)
            decisions += 1
        vg = VectorGame(4, seed=0, num_players=3)
        obs = vg.observe()
        mask = vg.legal_mask()
        reward, terminated, truncated = vg.step(mask.argmax(axis=1))
        loaded = sorted(n for n in sys.modules if n.split('.')[0] in ('gymnasium', 'pettingzoo'))
        print(len(CARDS), decisions > 0, obs.shape[0], reward.shape, loaded)
        """
    )
    out = run_python(code, without_rl_libraries=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [str(len(CARDS)), "True", "4", "(4,)", "[]"], out.stdout


def test_without_the_rl_libraries_only_the_adapters_fail_to_import() -> None:
    """Every module of ``shipwreck_env`` but the RL adapters imports without gymnasium and
    pettingzoo; the adapters fail naming the missing library; ``shipwreck_env.env`` says
    the same on first use."""
    code = textwrap.dedent(
        """
        import importlib, pkgutil
        import shipwreck_env
        failed = {}
        for m in pkgutil.walk_packages(shipwreck_env.__path__, 'shipwreck_env.'):
            try:
                importlib.import_module(m.name)
            except ModuleNotFoundError as error:
                failed[m.name] = error.name
        try:
            shipwreck_env.env
        except ModuleNotFoundError as error:
            failed['shipwreck_env.env'] = error.name
        print(sorted(failed.items()))
        """
    )
    out = run_python(code, without_rl_libraries=True)
    assert out.returncode == 0, out.stderr
    expected = sorted(
        {**dict.fromkeys(RL_ADAPTERS, "gymnasium"), "shipwreck_env.env": "gymnasium"}.items()
    )
    assert out.stdout.strip() == str(expected)


def test_import_shipwreck_env_registers_the_gym_ids_and_gives_the_aec_env() -> None:
    """With the RL libraries installed, ``import shipwreck_env`` alone is enough for
    ``gymnasium.make`` and ``shipwreck_env.env()``, as before the adapters became lazy."""
    code = textwrap.dedent(
        """
        import gymnasium, shipwreck_env
        from shipwreck_env import raw_env
        ids = sorted(i for i in gymnasium.registry if i.startswith('ShipwreckArcana'))
        gym_env = gymnasium.make('ShipwreckArcana-v0')
        aec = shipwreck_env.env(num_players=4)
        print(ids, type(gym_env.unwrapped).__name__, aec.unwrapped.possible_agents[-1],
              raw_env is shipwreck_env.raw_env, 'env' in dir(shipwreck_env))
        """
    )
    out = run_python(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [
        "['ShipwreckArcana-Play-v0',",
        "'ShipwreckArcana-Predict-v0',",
        "'ShipwreckArcana-v0']",
        "ShipwreckGymEnv",
        "player_3",
        "True",
        "True",
    ]


# --- the style guide these tests enforce -----------------------------------------------

STYLE_GUIDE = ROOT / "docs" / "development.md"
"""The project's style guide; its "Floors" section is what the tests above check."""


def test_the_style_guide_states_the_floors_these_tests_enforce() -> None:
    """The guide's "Floors" section lists the packages bottom up in the order ``ABOVE``
    enforces, names the RL adapters (the only core modules allowed the RL libraries)
    and points to this test file."""
    text = STYLE_GUIDE.read_text()
    assert "### Floors" in text, f"{STYLE_GUIDE} has no Floors section"
    section = text.split("### Floors", 1)[1].split("\n#", 1)[0]
    bottom_up = sorted(FOLDER, key=lambda name: -sum(other in ABOVE[name] for other in FOLDER))
    where = [section.find(f"`{name}`") for name in bottom_up]
    assert -1 not in where and where == sorted(where), dict(zip(bottom_up, where, strict=True))
    for module in sorted(RL_ADAPTERS):
        short = module.removeprefix("shipwreck_env.").replace(".", "/")
        assert f"`{short}`" in section, module
    assert "tests/project/test_boundaries.py" in section
