"""The trainers' configs speak one vocabulary: the shared lists and sections are defined
once in ``training/common/config.py``, every section class is named ``*Settings``, no two
trainers' classes share a name unless they extend the common one, and one loader reads
every trainer's config."""

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


SHARED = {"eval": "EvalSettings", "imitation": "ImitationSettings", "ppo": "PPOSettings"}
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


def _own_sections(trainer: str) -> dict[str, type]:
    """Name -> class of every config section a trainer's config module defines."""
    module = _module(trainer)
    return {
        name: value
        for name, value in vars(module).items()
        if inspect.isclass(value)
        and issubclass(value, Section)
        and value.__module__ == module.__name__
    }


def test_no_two_trainers_name_two_things_alike():
    """One meaning per word: a section class name two trainers both define is a section
    every trainer shares, extending the common class of that name (``EvalSettings``);
    three unrelated classes were once all called ``PPOSettings``."""
    from shipwreck_training.common import config as common

    seen: dict[str, list[type]] = {}
    for trainer in CONFIGS:
        for name, cls in _own_sections(trainer).items():
            seen.setdefault(name, []).append(cls)
    alike = {name: classes for name, classes in seen.items() if len(classes) > 1}
    unrelated = {
        name
        for name, classes in alike.items()
        if not all(issubclass(c, getattr(common, name, ())) for c in classes)
    }
    assert unrelated == set()


def test_the_common_ppo_section_holds_exactly_the_keys_every_trainer_shares():
    """The PPO keys all three trainers write alike are defined once, in the common
    section; the rest each trainer names as its library does."""
    from shipwreck_training.common.config import PPOSettings

    fields = [
        set(_module(trainer).__dict__[name].model_fields)
        for trainer in CONFIGS
        for name in _own_sections(trainer)
        if issubclass(_module(trainer).__dict__[name], PPOSettings)
    ]
    assert len(fields) == len(CONFIGS)
    assert set.intersection(*fields) == set(PPOSettings.model_fields)


@pytest.mark.parametrize("trainer", CONFIGS)
def test_the_old_ppo_section_name_gives_the_new_class_with_a_warning(trainer):
    module = _module(trainer)
    with pytest.warns(DeprecationWarning, match=r"was renamed .*PPOSettings"):
        old = module.PPOSettings
    from shipwreck_training.common.config import PPOSettings

    assert issubclass(old, PPOSettings) and old.__name__ != "PPOSettings"


@pytest.mark.parametrize("trainer", CONFIGS)
def test_every_trainer_reads_its_config_with_the_common_loader(trainer):
    """``load_config`` and ``from_dict`` of every trainer are the common loader bound to
    its config class: the reading, overrides and errors are written once."""
    from shipwreck_training.common.config import RunConfig

    module = _module(trainer)
    for name, common_method in (
        ("load_config", RunConfig.load),
        ("from_dict", RunConfig.from_dict),
    ):
        bound = getattr(module, name)
        assert bound.__func__ is common_method.__func__, (trainer, name)
        assert issubclass(bound.__self__, RunConfig)


@pytest.mark.parametrize("trainer", CONFIGS)
def test_a_bad_key_is_refused_in_one_line_naming_it_and_the_allowed(trainer, tmp_path):
    path = tmp_path / "bad.yaml"
    regime = "regime: selfplay\n" if trainer == "sb3" else ""  # the one required key
    path.write_text(f"name: x\n{regime}ppo:\n  gama: 0.9\n")
    with pytest.raises(ValueError) as caught:
        _module(trainer).load_config(path)
    message = str(caught.value)
    assert "\n" not in message and message.startswith("ppo.gama is not a known key; allowed: [")
    assert "'gamma'" in message
