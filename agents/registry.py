"""Build policies from short specs, as the command line names them.

| spec | policy | roles |
|---|---|---|
| ``random`` / ``random:P`` | uniform legal, pass with probability P (0.5) | both |
| ``literal`` / ``literal:T`` | random plays; predict when certain (or posterior >= T) | both |
| ``heuristic`` | the heuristic player | play |
| ``bayes`` | the Bayesian group (models the heuristic player) | group |
| ``convention`` / ``convention:A[,noplan][,noown][,kN][,legible=L]`` | the convention team: one public code per turn (agents/convention/team.py) | both |
| ``oracle`` | CHEATS: the group sees the hidden fate | group |
| ``types`` / ``types:T,...[,nosignal][,nowatch][,listen][,m=M][,prior=W/...][,quiet=T/...][,race=A/F][,racetable[=PATH]][,playrace]`` | reads and signals under a posterior over partner types T (``agents/search/type_inference.py``) | both |
| ``ally`` / ``ally:[pool][,nolisten][,nowatch][,doubt=D][,hedge=Q][,read=R][,legible=L][,lib=T/...]`` | the convention with partners who play it, type inference with the rest (``agents/search/ally.py``) | both |
| ``natural`` | plays and reads as the rulebook suggests a newcomer would (``agents/scripted/natural.py``) | both |
| ``noisy:E:SPEC`` | ``SPEC`` (a policy, or a team with ``+``), its plays random with probability E (``agents/scripted/noisy.py``) | as ``SPEC`` |
| ``ppo:PATH`` | a trained Stable-Baselines3 model | as trained |
| ``rllib:PATH`` | an RLlib checkpoint of ``shipwreck_training.rllib`` (``agents/learned/rllib.py``) | as trained |
| ``fast:PATH`` | a ``shipwreck_training.fast`` team, one object for both roles (``agents/learned/fast_team.py``; an action scorer, ``"network": "action_scorer"`` in its ``.meta.json``: ``agents/learned/scorer_team.py``) | both |
| ``search:PATH[,samples=N,margin=M,uncertain=U,confirm=C,phases=P+Q]`` | that team with test-time search (``agents/search/sparta.py``) | both |
| ``search:SPEC``, ``search[samples=N,margin=M,uncertain=U,doom=D,phases=P+Q]:SPEC`` | the scripted team ``SPEC`` (``convention``, ``heuristic+bayes``, ...) with test-time search over it (``agents/search/blueprint.py``) | both |
| ``fast:best``, ``search:best[,...]`` | the best learned team, shipped in the package (``shipwreck_agents.models``) | both |

Specs are strings so that worker processes can rebuild the same policies.

In ``fast:`` and ``search:`` specs a shipped name (``best``, or the shipped file's stem;
:func:`shipwreck_agents.models.shipped_names`) comes before a path: it names the network
inside the installed package, so it plays wherever the package is installed, outside the
repository too. ``search:best`` searches at the shipped setting
(:data:`shipwreck_agents.models.SHIPPED`); options after it replace that setting's. Any
other argument is a path, as before. The learned teams need torch and
``sb3_contrib``: without them the spec fails with an error naming the ``train`` extra.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from shipwreck_agents.base import Policy, Team
from shipwreck_agents.models import model_path, shipped_names, shipped_team
from shipwreck_agents.spec_text import shown, spec_number

__all__ = ["GROUP_SPECS", "PLAY_SPECS", "SPECS", "make_policy", "make_team", "shown", "spec_number"]

SPECS: tuple[tuple[str, str], ...] = (
    ("random[:P]", "uniform legal actions, passes with probability P (0.5)"),
    ("literal[:T]", "random plays; predicts when certain (or posterior >= T)"),
    ("heuristic", "the heuristic player (play only)"),
    ("bayes", "the Bayesian group (group only)"),
    ("convention[:A,...]", "the convention team, both roles (the best scripted one)"),
    ("oracle", "CHEATS: the group reads the hidden fate (never at a person's table)"),
    (
        "types[:T,...]",
        "infers its partners' types (uniform, heuristic, convention, fast) from their plays",
    ),
    (
        "ally[:pool,nolisten,nowatch,doubt=D,hedge=Q,read=R,legible=L]",
        "the convention with partners who play it, type inference with the rest",
    ),
    ("natural", "plays and reads as the rulebook suggests a newcomer would (both roles)"),
    ("noisy:E:SPEC", "SPEC (a policy or PLAY+GROUP team) whose plays are random with chance E"),
    ("ppo:PATH", "a trained Stable-Baselines3 model"),
    ("rllib:PATH", "an RLlib checkpoint of shipwreck_training.rllib"),
    ("fast:PATH", "a fast-trainer team, both roles (fast:results/models/fast_selfplay.pth)"),
    (
        "search:PATH[,samples=N,...]",
        "a fast-trainer team with test-time search (agents/search/sparta.py)",
    ),
    (
        "search[OPTIONS]:SPEC",
        "the scripted team SPEC (search:convention) with test-time search over it "
        "(agents/search/blueprint.py)",
    ),
    ("fast:best", "the best learned team, shipped in the package"),
    ("search:best[,samples=N,...]", "the best learned team with its shipped test-time search"),
)
"""Every spec form with what it names: the command line's help and the error for an
unknown spec are made from it."""

PLAY_SPECS = ("random", "literal", "heuristic", "convention")
"""Scripted play policies, weakest first."""
GROUP_SPECS = ("random", "literal", "bayes", "convention", "oracle")
"""Scripted group policies, weakest first (the oracle cheats)."""


def _convention_options(spec: str, arg: str) -> dict:
    """``convention:A`` sets the accuracy of its race value; ``noplan`` (after a comma)
    stops it planning the group's powers into its code, ``noown`` stops the player using
    Shells and Sinners, ``kN`` makes a failed turn of its race value cost N doom,
    ``legible=L`` leans the code toward lines a reader without it reads right."""
    options: dict = {}
    for part in filter(None, arg.split(",")):
        if part == "noplan":
            options["plan"] = False
        elif part == "noown":
            options["player_powers"] = False
        elif part.startswith("k"):
            options["fail_doom"] = int(spec_number(spec, part[1:], 0, 7, integer=True))
        elif part.startswith("legible="):
            options["legible"] = spec_number(spec, part[8:], 0.0, 1.0)
        else:
            options["accuracy"] = spec_number(spec, part, 0.0, 1.0)
    return options


_LEARNED = {
    "ppo": ("torch", "sb3_contrib"),
    "fast": ("torch", "sb3_contrib"),
    "search": ("torch", "sb3_contrib"),
    "rllib": ("torch",),
}
"""The modules each learned kind loads (the ``fast:`` loader reads SB3's file format)."""


def _require(spec: str, modules: tuple[str, ...]) -> None:
    """Refuse ``spec`` with an error naming the extra to install if one of ``modules`` is
    missing (rather than a bare ``No module named 'torch'`` from deep in a loader)."""
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise ModuleNotFoundError(
                f"policy {spec!r} needs {module}, which is not installed here; install the "
                "'train' extra: pip install 'shipwreck-arcana-env[train]' (the scripted "
                "teams need no extra)",
                name=module,
            ) from exc


def _network(arg: str) -> str:
    """The file of a ``fast:``/``search:`` network: the shipped one named ``arg``, else the
    path ``arg`` itself.

    Raises:
        ValueError: ``arg`` is neither a shipped name nor an existing file.
    """
    if shipped_team(arg) is not None:
        return str(model_path(arg))
    if not Path(arg).exists():  # e.g. a results/models/ path, outside the repository
        raise ValueError(
            f"model file {arg!r} does not exist; allowed: a path to a network's .pth or a "
            f"network shipped in the package: {', '.join(shipped_names())}"
        )
    return arg


def make_policy(spec: str) -> Policy:
    """The policy named by ``spec`` (see the module table).

    Raises:
        ValueError: an unknown spec or a bad argument.
        ModuleNotFoundError: a learned team's spec without the ``train`` extra installed.
    """
    name, _, arg = spec.partition(":")
    if name.startswith("search[") or (name == "search" and _scripted_blueprint(arg)):
        return _blueprint_search(spec, name, arg)
    if name == "random":
        from shipwreck_agents.scripted.simple import RandomPolicy

        return RandomPolicy(spec_number(spec, arg, 0.0, 1.0)) if arg else RandomPolicy()
    if name == "literal":
        from shipwreck_agents.scripted.simple import LiteralPolicy

        return LiteralPolicy(spec_number(spec, arg, 0.0, 1.0)) if arg else LiteralPolicy()
    if name == "heuristic" and not arg:
        from shipwreck_agents.scripted.heuristic import HeuristicPlayer

        return HeuristicPlayer()
    if name == "bayes" and not arg:
        from shipwreck_agents.scripted.bayes import BayesGroup

        return BayesGroup()
    if name == "convention":
        from shipwreck_agents.convention.team import ConventionPolicy

        return ConventionPolicy(**_convention_options(spec, arg))
    if name == "types":
        from shipwreck_agents.search.type_inference import TypeGroup

        return TypeGroup(**_types_options(spec, arg))
    if name == "ally":
        from shipwreck_agents.search.ally import AllyTeam

        return AllyTeam(**_ally_options(spec, arg))
    if name == "natural" and not arg:
        from shipwreck_agents.scripted.natural import natural_team

        return natural_team()
    if name == "noisy":
        epsilon, inner = _noisy_parts(spec, arg)
        return _noisy(make_policy(inner), epsilon)
    if name == "oracle" and not arg:
        from shipwreck_agents.scripted.simple import OracleGroup

        return OracleGroup()
    if name in _LEARNED and arg:
        _require(spec, _LEARNED[name])
    if name == "ppo" and arg:
        from shipwreck_agents.learned.sb3 import load_policy

        return load_policy(arg)
    if name == "fast" and arg:
        from shipwreck_agents.learned.action_scorer import is_scorer
        from shipwreck_agents.learned.fast_team import shared_policy
        from shipwreck_agents.learned.sb3 import read_meta

        path = _network(arg)
        if is_scorer(read_meta(path)):
            from shipwreck_agents.learned.scorer_team import shared_scorer

            return shared_scorer(path)
        return shared_policy(path)
    if name == "search" and arg:
        from shipwreck_agents.search.options import parse_search_spec
        from shipwreck_agents.search.sparta import shared_search_policy

        path, options = parse_search_spec(arg)
        team = shipped_team(path)
        if team is not None:  # the shipped setting, then the spec's own options
            options = {**parse_search_spec(f"{path},{team.search}")[1], **options}
        return shared_search_policy(_network(path), **options)
    if name == "rllib" and arg:
        from shipwreck_agents.learned.rllib import load_rllib_policy

        return load_rllib_policy(arg)
    raise ValueError(
        f"policy {shown(spec)} is not known; allowed: {', '.join(form for form, _ in SPECS)}"
    )


_BLUEPRINTS = (*PLAY_SPECS, *GROUP_SPECS, "natural", "types", "ally", "noisy")
"""Names a ``search:`` argument may start with to be a scripted blueprint, not a network."""


def _scripted_blueprint(arg: str) -> bool:
    """Is ``search:arg`` a search over a scripted team (not a network's path or name)?"""
    first = arg.split("+")[0].split(":")[0]
    return first in _BLUEPRINTS and shipped_team(arg) is None and not Path(arg).exists()


def _blueprint_search(spec: str, name: str, arg: str) -> Policy:
    """``search:SPEC`` or ``search[OPTIONS]:SPEC``: a search over the scripted team SPEC."""
    from shipwreck_agents.search.blueprint import BlueprintSearch, parse_blueprint_spec

    if name != "search" and not name.endswith("]"):
        raise ValueError(
            f"policy {shown(spec)}: the options are not closed by ']'; allowed: "
            "search[samples=N,...]:SPEC"
        )
    if not arg:
        raise ValueError(
            f"policy {shown(spec)} names no team to search over; allowed: search[OPTIONS]:SPEC"
        )
    options = parse_blueprint_spec(name[len("search[") : -1]) if name != "search" else {}
    return BlueprintSearch(make_team(arg), **options, name=f"search:{arg}")


def _types_options(spec: str, arg: str) -> dict:
    """``types:T,...,nosignal,nowatch,listen,m=M,prior=W/W/...,quiet=T/...,race=A/F,playrace``:
    library type names
    (``T@E``: a careless version of ``T``, mixed with ``E`` of uniform play),
    ``nosignal`` (play like the heuristic player), ``nowatch`` (no evidence from turns it
    only watches), ``listen`` (evidence from how its leader ended its turns), ``prior``
    (a weight per library type, in its order), ``quiet`` (types left out of the weights
    it signals to), ``m=M`` (the margin a signalling play must beat the heuristic's play
    by), ``playrace`` (a signalling play valued by the race after each reader's reply, not
    by the mass on the kept fate) and ``race=A/F`` (the group values the race as one in
    which a later turn scores with chance ``A`` and otherwise costs ``F`` doom, as the
    convention does, instead of the rough race) or ``racetable`` (the race's value
    measured from each score and doom in ``types``' own games, shipped in the package;
    ``racetable=PATH``: another file of ``lab/runs/fit_race.py``)."""
    options: dict = {}
    names = []
    for part in filter(None, arg.split(",")):
        if part == "nosignal":
            options["signal"] = False
        elif part == "nowatch":
            options["watch"] = False
        elif part == "listen":
            options["listen"] = True
        elif part.startswith("m="):
            options["margin"] = spec_number(spec, part[2:], 0.0, 1.0)
        elif part.startswith("prior="):
            options["prior"] = [spec_number(spec, w, 0.0, 1e6) for w in part[6:].split("/")]
        elif part.startswith("quiet="):
            options["quiet"] = part[6:].split("/")
        elif part == "playrace":
            options["play_value"] = "race"
        elif part == "racetable" or part.startswith("racetable="):
            from shipwreck_agents.scripted.bayes import RaceTable

            options["race_table"] = RaceTable.load(part[len("racetable=") :] or None)
        elif part.startswith("race="):
            accuracy, _, fail_doom = part[5:].partition("/")
            options["accuracy"] = spec_number(spec, accuracy, 0.0, 1.0)
            options["fail_doom"] = int(spec_number(spec, fail_doom or "1", 0, 7, integer=True))
        else:
            names.append(part)
    if names:
        options["types"] = names
    return options


def _ally_options(spec: str, arg: str) -> dict:
    """``ally:pool,nolisten,nowatch,doubt=D,hedge=Q,read=R,legible=L,lib=T/T...``: plays by
    type inference once any watched partner is refuted (``pool``), no reading of how
    readers read its plays (``nolisten``), no test of the turns it only watches
    (``nowatch``), group decisions by type inference on a doubtful partner's turn
    (``read``), the convention's ``legible`` setting for the code it shares with its own
    kind, and type inference's library (``lib=``, names joined by ``/``)."""
    options: dict = {}
    for part in filter(None, arg.split(",")):
        if part == "pool":
            options["pooled"] = True
        elif part == "nolisten":
            options["listen"] = False
        elif part == "nowatch":
            options["watch"] = False
        elif part.startswith("doubt="):
            options["doubt"] = spec_number(spec, part[6:], 0.0, 1.0)
        elif part.startswith("hedge="):
            options["hedge"] = spec_number(spec, part[6:], 0.0, 1.0)
        elif part.startswith("read="):
            options["read"] = spec_number(spec, part[5:], 0.0, 1.0)
        elif part.startswith("legible="):
            options["legible"] = spec_number(spec, part[8:], 0.0, 1.0)
        elif part.startswith("lib="):
            options["types"] = part[4:].split("/")
        else:
            raise ValueError(
                f"policy {shown(spec)}: option {part!r} is not known; allowed: pool, "
                "nolisten, nowatch, doubt=D, hedge=Q, read=R, legible=L, lib=T/T/... (type "
                "inference's library)"
            )
    return options


def _noisy_parts(spec: str, arg: str) -> tuple[float, str]:
    """``E:SPEC`` -> (E, SPEC)."""
    text, _, inner = arg.partition(":")
    if not inner:
        raise ValueError(f"policy {shown(spec)} needs a spec to make noisy; allowed: noisy:E:SPEC")
    return spec_number(spec, text, 0.0, 1.0), inner


def _noisy(policy: Policy, epsilon: float) -> Policy:
    from shipwreck_agents.scripted.noisy import NoisyPolicy

    return NoisyPolicy(policy, epsilon)


_PLAY_ONLY = ("heuristic",)
_GROUP_ONLY = ("oracle",)


def _role(policy: Policy, spec: str) -> str:
    name = spec.partition(":")[0]
    if name in _PLAY_ONLY:
        return "play"
    if name in _GROUP_ONLY:
        return "group"
    role = getattr(policy, "meta", {}).get("role")
    return {"play": "play", "predict": "group"}.get(role, "both")


def make_team(spec: str) -> Team:
    """The team named by ``spec``: ``PLAY+GROUP`` (two specs), or one spec for both
    roles -- a play-only policy (``heuristic``, a model trained to play) gets ``bayes``
    as its group, a group-only one (``oracle``, a model trained to predict) gets
    ``heuristic`` as its player.

    Raises:
        ValueError: an unknown spec.
    """
    if spec.startswith("noisy:"):  # before "+": the noise wraps the whole team
        epsilon, inner = _noisy_parts(spec, spec.partition(":")[2])
        team = make_team(inner)
        play = _noisy(team.play, epsilon)
        group = play if team.group is team.play else _noisy(team.group, epsilon)
        return Team(play, group)
    if spec.startswith("search[") or (
        spec.startswith("search:") and _scripted_blueprint(spec[len("search:") :])
    ):  # before "+" too: the search wraps the whole team it names
        policy = make_policy(spec)
        return Team(policy, policy)
    if "+" in spec:
        play, _, group = spec.partition("+")
        return Team(make_policy(play), make_policy(group))
    policy = make_policy(spec)
    role = _role(policy, spec)
    if role == "play":
        return Team(policy, make_policy("bayes"))
    if role == "group":
        return Team(make_policy("heuristic"), policy)
    return Team(policy, policy)
