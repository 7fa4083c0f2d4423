"""The render modes of both environments, over the pictures of the table.

Render modes (:data:`RENDER_MODES`, read by both environments): ``"ansi"`` returns the
table as text (:func:`shipwreck_env.envs.render_text.render`, which shows what everybody
can see and, only for a given ``viewer``, that player's own held fates), ``"human"``
prints it and returns ``None``, ``"rgb_array"`` returns the same picture as an image
(:func:`shipwreck_env.envs.render_image.render_image`), a ``uint8`` array of one fixed
shape. Like Gymnasium, an environment given another string as its mode warns (naming
the mode and the allowed ones) and carries on; its ``render()`` then warns again and
returns ``None``, as it does with no mode at all. A mode that is not a string (nor
``None``) is refused with ``ValueError``. Warnings go through Gymnasium's logger when
Gymnasium is installed, else through :mod:`warnings`: this module must not need
Gymnasium. The text pictures are re-exported here (:func:`render`,
:func:`describe_event`, :func:`turn_line`), as before the text moved to its own module.
"""

from __future__ import annotations

import warnings

import numpy as np

from shipwreck_env.envs.render_image import render_image
from shipwreck_env.envs.render_text import describe_event, render, turn_line
from shipwreck_env.rules.state import State

__all__ = [
    "RENDER_MODES",
    "check_render_mode",
    "describe_event",
    "render",
    "render_mode_output",
    "turn_line",
]


RENDER_MODES = ("ansi", "human", "rgb_array")
"""The render modes both environments accept (their ``metadata["render_modes"]``)."""


def _warn(message: str) -> None:
    """Warn as Gymnasium does (through its logger, so its log level silences it), or
    with :mod:`warnings` where Gymnasium is not installed (the core does not need it)."""
    try:
        from gymnasium import logger
    except ImportError:
        warnings.warn(message, UserWarning, stacklevel=3)
        return
    logger.warn(message.replace("%", "%%"), stacklevel=3)


def check_render_mode(mode: object) -> object:
    """``mode`` as given. ``None`` and :data:`RENDER_MODES` pass silently; another string
    is kept with a warning naming it and the allowed modes (Gymnasium's ``make`` warns
    and carries on, and Stable-Baselines3 relies on that); anything else is a
    ``ValueError``."""
    if mode is None or mode in RENDER_MODES:
        return mode
    allowed = "None, " + ", ".join(repr(m) for m in RENDER_MODES)
    if not isinstance(mode, str):
        raise ValueError(f"render_mode {mode!r} is not allowed; allowed: {allowed}")
    _warn(
        f"render_mode {mode!r} is not supported; allowed: {allowed}. "
        "The environment runs, and render() returns None."
    )
    return mode


def render_mode_output(
    s: State, mode: str | None, viewer: int | None = None
) -> str | np.ndarray | None:
    """What an environment's ``render()`` gives in ``mode``, public or as player
    ``viewer`` sees it: the table as text for ``"ansi"``; printed (returning ``None``)
    for ``"human"``; an RGB image (:func:`shipwreck_env.envs.render_image.render_image`) for
    ``"rgb_array"``. With no mode, or a mode not in :data:`RENDER_MODES`, it warns and
    returns ``None`` (Gymnasium's habit)."""
    if mode is None or mode not in RENDER_MODES:
        chosen = "without a render_mode" if mode is None else f"with render_mode {mode!r}"
        _warn(f"render() called {chosen}; use " + " or ".join(map(repr, RENDER_MODES)))
        return None
    if mode == "rgb_array":
        return render_image(s, viewer)
    text = render(s, viewer)
    if mode == "human":
        print(text)
        return None
    return text
