"""The text of a spec: quoting it in an error, and reading the numbers it carries.

The registry (:mod:`shipwreck_agents.registry`) reads every policy spec with these, and
the modules it builds (a type library's ``T@E`` names, say) read their own parts of a
spec with the same rules, so every number is refused in the same words wherever it is
written. Nothing here imports a policy.
"""

from __future__ import annotations

__all__ = ["shown", "spec_number"]


def shown(text: str, limit: int = 60) -> str:
    """``text`` quoted for an error message, cut to ``limit`` characters (a refusal must
    not echo a megabyte of input back)."""
    return (
        repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text)} characters)"
    )


def spec_number(
    spec: str, text: str, low: float, high: float, integer: bool = False, what: str = "policy"
) -> float:
    """The number ``text`` inside ``spec``, if it is finite and in ``[low, high]``.

    Every number a spec carries passes here, so ``convention:nan``, ``random:inf`` or a
    5,000-digit integer is refused with one sentence rather than accepted or answered
    with a Python internal. ``what`` names what ``spec`` is in that sentence (a policy
    spec, or a library type's name).

    Raises:
        ValueError: naming ``spec``, the bad text and the allowed range.
    """
    kind = "an integer" if integer else "a number"
    allowed = f"allowed: {kind} from {low:g} to {high:g}"
    if len(text) > 20:
        raise ValueError(f"{what} {shown(spec)}: {shown(text, 20)} is too long; {allowed}")
    try:
        value = int(text) if integer else float(text)
    except ValueError:
        raise ValueError(f"{what} {shown(spec)}: {shown(text)} is not {kind}; {allowed}") from None
    if not low <= value <= high:  # also refuses NaN and the infinities
        raise ValueError(f"{what} {shown(spec)}: {shown(text)} is out of range; {allowed}")
    return value
