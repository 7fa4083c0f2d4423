"""Which AI teams a browser may ask for, and which the lobby offers.

A browser names its teammates by spec; :func:`check_teammates` lets through only fair
scripted specs and the shipped trained models (a model file is a pickle: a browser must
never make the server load a file of its choosing; the oracle cheats). The lobby offers
:func:`offered_teams`: the teams of :data:`TEAMS` that can be created on this machine (a
trained model needs the ``train`` extra), checked once per process.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Sequence
from pathlib import Path

from shipwreck_agents.registry import make_team, shown
from shipwreck_apps.web.guard import HTTPError, described

__all__ = ["MODELS", "TEAMS", "check_teammates", "offered_teams"]

_log = logging.getLogger(__name__)

TEAMS = (
    "types:racetable",
    "types",
    "ally",
    "convention",
    "natural",
    "bayes",
    "heuristic",
    "heuristic+bayes",
    "literal",
    "random",
    "ppo:results/models/selfplay.pth",
)
"""The teams the lobby suggests, if they can be created here (:func:`offered_teams`)."""
MODELS = Path(__file__).resolve().parents[2] / "results" / "models"
"""The shipped trained models: the only model files a browser may name."""
_SCRIPTED = re.compile(
    r"^(random|literal|heuristic|bayes|convention|natural|types|ally)(:[0-9.,=a-z]{1,40})?$"
)


def check_teammates(spec: object, teams: Sequence[str] = TEAMS) -> str:
    """``spec`` with shipped models named by absolute path, if a browser may ask for it
    (``teams``: those offered, named in the refusal). (The table checks the team itself
    too: :class:`~shipwreck_apps.play.table.Table`.)

    Raises:
        HTTPError: 400 anything but fair scripted specs and shipped models.
    """
    if not isinstance(spec, str) or not spec:
        raise HTTPError(400, f"teammates must be a team's name (a spec), got {described(spec)}")
    if len(spec) > 200:
        raise HTTPError(400, f"teammates {shown(spec)} is too long; at most 200 characters")
    parts = []
    for part in spec.split("+", 1):
        if _SCRIPTED.match(part):
            parts.append(part)
            continue
        model = _model(part)
        if model is not None:
            parts.append(f"ppo:{model}")
            continue
        raise HTTPError(
            400,
            f"teammates {shown(spec)} is not allowed here; allowed: random, literal, heuristic, "
            f"bayes, convention, PLAY+GROUP, or a shipped model; offered here: {', '.join(teams)}",
        )
    return "+".join(parts)


def _model(part: str) -> Path | None:
    """The shipped model file that ``ppo:results/models/NAME.pth`` names, or ``None``."""
    name, _, path = part.partition(":")
    if name != "ppo" or not path:
        return None
    file = (MODELS.parent.parent / path).resolve()
    if file.parent == MODELS and file.suffix in (".pth", ".zip") and file.is_file():
        return file
    return None


@functools.cache
def _can_create(spec: str) -> str:
    """``""`` if the team ``spec`` can be created here, else why not (once per process)."""
    try:
        make_team(check_teammates(spec))
    except (ImportError, ValueError, HTTPError) as exc:
        return str(getattr(exc, "message", exc))
    return ""


def offered_teams(candidates: Sequence[str] = TEAMS) -> list[str]:
    """The teams of ``candidates`` that can be created on this server (a learned team
    needs the ``train`` extra); the others are logged with the reason."""
    offered = []
    for spec in candidates:
        reason = _can_create(spec)
        if reason:
            _log.info("team %s is not offered: %s", spec, reason)
        else:
            offered.append(spec)
    return offered
