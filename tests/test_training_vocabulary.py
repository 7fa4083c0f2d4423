"""The trainers' configs speak one vocabulary: the shared lists are defined once in
``training/common/config.py``, and every section class is named ``*Settings``."""

from __future__ import annotations

import importlib
import inspect
import typing

import pytest

pytest.importorskip("pydantic")

from shipwreck_training.common.config import REGIMES, RunConfig, Section

CONFIGS = ("fast", "sb3", "rllib")


def _module(trainer: str):
    return importlib.import_module(f"shipwreck_training.{trainer}.config")


def test_the_regimes_are_the_common_list_in_every_trainer_that_has_them():
    from shipwreck_training.fast.config import FastConfig
    from shipwreck_training.sb3.config import SB3Config

    assert _module("fast").REGIMES is REGIMES
    assert (*REGIMES, "alternating") == _module("sb3").REGIMES
    fast, sb3 = (
        typing.get_args(c.model_fields["regime"].annotation) for c in (FastConfig, SB3Config)
    )
    assert set(fast) == set(REGIMES) and set(sb3) == set(_module("sb3").REGIMES)


@pytest.mark.parametrize("trainer", CONFIGS)
def test_every_section_class_is_named_settings(trainer):
    module = _module(trainer)
    sections = [
        name
        for name, value in vars(module).items()
        if inspect.isclass(value)
        and issubclass(value, Section)
        and value.__module__ == module.__name__
        and not issubclass(value, RunConfig)
    ]
    assert sections and all(name.endswith("Settings") for name in sections), sections


SHARED = {"eval": "EvalSettings", "imitation": "ImitationSettings"}
"""The sections every trainer with them shares: one class in ``common/config.py`` each,
which the trainer's own section subclasses."""


@pytest.mark.parametrize("trainer", CONFIGS)
@pytest.mark.parametrize("section", sorted(SHARED))
def test_shared_sections_extend_the_common_one_with_its_words(trainer, section):
    from shipwreck_training.common import config as common

    root = next(
        value
        for value in vars(_module(trainer)).values()
        if inspect.isclass(value)
        and issubclass(value, RunConfig)
        and value.__module__ == _module(trainer).__name__
    )
    if section not in root.model_fields:
        pytest.skip(f"the {trainer} trainer has no {section} section")
    shared = getattr(common, SHARED[section])
    own = root.model_fields[section].annotation
    assert issubclass(own, shared), f"{trainer}: {own.__name__} does not extend {shared}"
    assert set(shared.model_fields) <= set(own.model_fields)


@pytest.mark.parametrize(
    ("old", "new"), [("team", "'play' and 'group'"), ("batch_size", "'minibatch_size'")]
)
def test_an_old_imitation_key_is_refused_with_its_new_name(old, new):
    from shipwreck_training.common.config import ImitationSettings, validate

    with pytest.raises(ValueError, match=f"'{old}' is an old key name; allowed: {new}"):
        validate(ImitationSettings, {old: 1})
