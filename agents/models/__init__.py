"""The learned teams that ship inside the package, so that an installed wheel plays them.

Every other trained network lives in the repository's ``results/models/``, which a wheel
does not carry. The few files here are package data (``pyproject.toml``,
``[tool.setuptools.package-data]``): the network of the best learned team measured in
this repository, the fast-trained 150M-step network with carried belief
(``fast_selfplay_imitation_150M_carry.pth`` and its ``.meta.json``). It is kept here
only, not also in ``results/models/``: the figures quoted for it were measured on this
file (``tests/project/test_wheel.py`` checks it). Its figures are in
``docs/agents.md`` (Test-time search, Shipped teams) and the README's Baselines table.
Beside it, not a network: ``race_types.json``, the value of the race measured from
``types``' own games (``lab/runs/fit_race.py``), which ``types:racetable`` reads
(:meth:`shipwreck_agents.scripted.bayes.RaceTable.load`).

The registry names them (``shipwreck_agents.registry``): ``fast:best`` is the network
alone and ``search:best`` the same network with the test-time search at the setting
shipped in ``docs/agents.md`` (:data:`SHIPPED`). The file's stem names it too
(``fast:fast_selfplay_imitation_150M_carry``).

This module imports neither torch nor the network code: it only finds the files, through
:mod:`importlib.resources`, so it works wherever the package is installed (a wheel in
site-packages, an editable checkout, a zip).
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

__all__ = ["SHIPPED", "ShippedTeam", "model_path", "shipped_names", "shipped_team"]


@dataclass(frozen=True)
class ShippedTeam:
    """One learned team shipped in this package."""

    file: str
    """The network's file in this package (its ``.meta.json`` lies beside it)."""
    search: str
    """The options of ``search:NAME``, spelled as a ``search:`` spec spells them (options
    given in the spec after the name replace these)."""


SHIPPED: dict[str, ShippedTeam] = {
    "best": ShippedTeam(
        file="fast_selfplay_imitation_150M_carry.pth",
        # the setting docs/agents.md (Test-time search) measured and ships
        search="samples=32,margin=0.1,uncertain=0.99,phases=play+group+steal+after_play",
    ),
}
"""Shipped name -> team. The registry also accepts each file's stem as its name."""

_BY_NAME: dict[str, ShippedTeam] = {
    **SHIPPED,
    **{Path(team.file).stem: team for team in SHIPPED.values()},
}
_FOLDER: list[Path] = []  # the folder holding the files, once found


def shipped_names() -> tuple[str, ...]:
    """Every name a shipped team answers to, in :data:`SHIPPED` order, then the stems."""
    return tuple(_BY_NAME)


def shipped_team(name: str) -> ShippedTeam | None:
    """The team shipped as ``name`` (a :data:`SHIPPED` key or a file's stem), else None."""
    return _BY_NAME.get(name)


def model_path(name: str) -> Path:
    """The file on disk of the network shipped as ``name``, its ``.meta.json`` beside it.

    Raises:
        ValueError: ``name`` is not shipped, naming those that are.
    """
    team = shipped_team(name)
    if team is None:
        raise ValueError(
            f"no learned team is shipped as {name!r}; allowed: {', '.join(shipped_names())}"
        )
    return _folder() / team.file


def _meta_file(file: str) -> str:
    """The name of the ``.meta.json`` of ``file``, as ``trained.read_meta`` finds it."""
    return Path(file).with_suffix(".meta.json").name


def _folder() -> Path:
    """This package's folder on disk: itself for an ordinary install, else a temporary copy
    of the shipped files (the network loader and :func:`shipwreck_agents.learned.sb3.read_meta`
    read paths, and ``importlib.resources.as_file`` copies out a folder only from Python
    3.12)."""
    if not _FOLDER:
        here = resources.files(__name__)
        if isinstance(here, Path):
            _FOLDER.append(here)
        else:  # a zipped install: copy the files out, for the life of the process
            folder = Path(tempfile.mkdtemp(prefix="shipwreck_models_"))
            atexit.register(shutil.rmtree, folder, True)
            for team in SHIPPED.values():
                for name in (team.file, _meta_file(team.file)):
                    (folder / name).write_bytes((here / name).read_bytes())
            _FOLDER.append(folder)
    return _FOLDER[0]
