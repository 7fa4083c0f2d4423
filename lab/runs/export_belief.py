"""A fast-trained team's network, read with another policy-conditioned belief.

    python lab/runs/export_belief.py results/models/fast_selfplay_imitation.pth \
        results/models/fast_selfplay_imitation_carry.pth --belief-kind policy_carry

The weights are copied unchanged; the new ``.meta.json`` is the old one with
``belief_kind`` replaced, its ``spec`` pointing at the new file and ``derived_from``
naming the source and the command. A network trained with the first-play belief
(``policy``) can be read with the carried one (``policy_carry``): both blocks are a
posterior over the active seat's kept fate under the team's own play policy, the carried
one with the memory of the turn that fate was kept (``training/common/policy_belief_batched.py``).
``lab/studies/belief_kinds_eval.py --paired`` measures what that changes on the same deals.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import sys
from pathlib import Path

__all__ = ["export", "main"]


def export(source: Path, out: Path, belief_kind: str, command: str) -> dict:
    """Copy ``source`` (``.pth`` and ``.meta.json``) to ``out`` with ``belief_kind``.

    Raises:
        ValueError: ``source`` is not a policy-belief team, ``belief_kind`` is not a policy
            kind, or ``out`` exists.
    """
    # torch comes with the learned team's module, so it is loaded only when a copy is made
    from shipwreck_agents.learned.fast_team import POLICY_KINDS
    from shipwreck_agents.learned.sb3 import read_meta

    if belief_kind not in POLICY_KINDS:
        raise ValueError(
            f"--belief-kind {belief_kind!r} is not allowed; allowed: {', '.join(POLICY_KINDS)}"
        )
    if not source.is_file():
        raise ValueError(f"model {str(source)!r} does not exist")
    meta = read_meta(str(source))
    if meta.get("belief_kind") not in POLICY_KINDS:
        raise ValueError(
            f"{str(source)!r} reads belief {meta.get('belief_kind')!r}; only a network trained "
            f"with a policy-conditioned belief ({', '.join(POLICY_KINDS)}) can switch kinds"
        )
    if out.exists() or out.with_suffix(".meta.json").exists():
        raise ValueError(f"{str(out)!r} exists; choose a new name")
    meta = dict(meta)
    meta["derived_from"] = {
        "model": str(source),
        "belief_kind": meta["belief_kind"],
        "command": command,
    }
    meta["belief_kind"] = belief_kind
    meta["spec"] = f"fast:{out}"
    shutil.copyfile(source, out)
    out.with_suffix(".meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    return meta


PROGRAM = "lab/runs/export_belief.py"


def build_parser() -> argparse.ArgumentParser:
    """The program's options."""
    parser = argparse.ArgumentParser(
        prog=PROGRAM,
        description="Copy a fast-trained team's network (its .pth, unchanged) to OUT with a "
        ".meta.json that reads another policy-conditioned belief kind; the new file plays "
        "as fast:OUT.",
    )
    parser.add_argument("model", type=Path, help="a fast-trained team's .pth")
    parser.add_argument("out", type=Path, help="the new .pth (its .meta.json is written beside)")
    parser.add_argument(
        "--belief-kind",
        required=True,
        metavar="KIND",
        help="the policy-conditioned belief the copy reads: policy (first play) or "
        "policy_carry (carried memory)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Write the copy; 2 (one line, nothing written) on bad input."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    try:
        export(args.model, args.out, args.belief_kind, shlex.join(["python", PROGRAM, *argv]))
    except ModuleNotFoundError as exc:
        print(
            f"{PROGRAM}: error: reading a learned team needs {exc.name}, "
            "from the 'train' extra: pip install 'shipwreck-arcana-env[train]'",
            file=sys.stderr,
        )
        return 2
    except (OSError, ValueError) as exc:  # bad input: unreadable, not a policy team, exists
        print(f"{PROGRAM}: error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {args.out} and {args.out.with_suffix('.meta.json')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
