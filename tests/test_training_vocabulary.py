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
