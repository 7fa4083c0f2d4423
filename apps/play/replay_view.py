"""Step through a recorded game: every state, the log up to it, and what a chosen viewer
(one player, or everybody: the omniscient view) sees at each step.

A :class:`Replay` is built from a replay record (``evaluate --record DIR``) or a saved
game (``play --save``). The terminal viewer is :func:`replay_terminal`; the web app
serves :meth:`Replay.step_data`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TextIO

from shipwreck_agents.evaluation.records import ReplayError, load_record, replay_states
from shipwreck_apps.play.seat_view import (
    end_reason,
    faded_cards,
    omniscient_data,
    screen_text,
    view_data,
)
from shipwreck_apps.play.table import SAVE_FORMAT, log_entry, slot_ids
from shipwreck_apps.play.wrap import WrappedOutput, terminal_width
from shipwreck_env.rules.state import PHASES
from shipwreck_env.rules.view import make_view

__all__ = ["Replay", "parse_viewer", "replay_terminal"]


def _record_of(source: str | Path | dict) -> dict:
    """The replay record in a record file or a saved table."""
    if isinstance(source, dict):
        data = source
    else:
        try:
            data = json.loads(Path(source).read_text())
        except OSError as exc:
            raise ReplayError(f"cannot read replay {str(source)!r}: {exc}") from None
        except json.JSONDecodeError as exc:
            raise ReplayError(f"replay {str(source)!r} is not valid JSON: {exc}") from None
    if isinstance(data, dict) and data.get("format") == SAVE_FORMAT:
        data = data.get("record")
    return load_record(data)


class Replay:
    """Every step of a recorded game (step 0: before the first action).

    ``log`` holds the table's own log entries (:func:`log_entry`); ``notes`` holds, per
    action, its entry's note -- what a play told about the hidden fate, or the values a
    prediction's number line allowed (public facts only) -- or ``None``; :meth:`step_data` shows each entry with its note.
    """

    def __init__(self, source: str | Path | dict) -> None:
        self.record = _record_of(source)
        self.states = replay_states(self.record)
        self.log: list[dict] = []
        self.notes: list[str | None] = []
        humans = set(self.record.get("players", {}).get("humans", []))
        for i, action in enumerate(self.record["actions"]):
            before, after = self.states[i], self.states[i + 1]
            by = "person" if before.decider in humans else "ai"
            self.log.append(
                log_entry(
                    before.decider,
                    before.turn,
                    len(before.events),
                    PHASES[before.phase],
                    after,
                    action,
                    i + 1,
                    by,
                    slot_ids(before),
                    bool(before.predictions),
                    before.lines[before.active],
                )
            )
            self.notes.append(self.log[-1].get("note"))  # what a play tells, a guess's line

    @property
    def steps(self) -> int:
        """The last step number (the number of actions)."""
        return len(self.states) - 1

    @property
    def num_players(self) -> int:
        """Players in the game."""
        return self.states[0].config.num_players

    def step_data(self, step: int, viewer: int | None) -> dict:
        """What ``viewer`` (a player, or ``None`` for everybody) sees at ``step``."""
        if not 0 <= step <= self.steps:
            raise ReplayError(f"step {step!r} is not in this replay; allowed: 0..{self.steps}")
        s = self.states[step]
        log = [
            {**entry, "note": note} if note and "note" not in entry else entry
            for entry, note in zip(self.log[:step], self.notes, strict=False)
        ]
        if viewer is None:
            data = omniscient_data(s, log)
        else:
            data = view_data(make_view(s, viewer), log, None, faded_cards(s))
        if s.over:
            turn_start = next(x for x in self.states if x.turn == s.turn)
            data["end_reason"] = end_reason(s, turn_start.doom)
        data["step"] = step
        data["steps"] = self.steps
        data["players"] = self.record.get("players", {})
        return data


def parse_viewer(text: str | None, num_players: int) -> int | None:
    """``all`` (or nothing) -> ``None``; a player number -> that number.

    Raises:
        ReplayError: anything else.
    """
    if text in (None, "", "all"):
        return None
    try:
        viewer = int(text)
    except ValueError:
        viewer = -1
    if not 0 <= viewer < num_players:
        raise ReplayError(f"viewer {text!r} is not allowed; allowed: all or 0..{num_players - 1}")
    return viewer


def replay_terminal(
    source: str | Path,
    viewer_text: str | None,
    inp: TextIO,
    out: TextIO,
    wait: bool = True,
    width: int | None = None,
) -> int:
    """Show a replay step by step: Enter steps on, a number jumps to that step, ``b``
    steps back, ``q`` quits. ``wait=False`` prints every step at once. Lines are wrapped
    to ``width`` columns (default: the terminal's width)."""
    replay = Replay(source)
    out = WrappedOutput(out, width or terminal_width())
    viewer = parse_viewer(viewer_text, replay.num_players)
    who = "everybody (omniscient)" if viewer is None else f"player {viewer}"
    players = replay.record.get("players", {})
    out.write(
        f"Replay: {replay.steps} actions, seen by {who}; players: "
        f"{json.dumps(players)}\nEnter: next step, NUMBER: go to step, b: back, q: quit.\n"
    )
    step = 0
    while True:
        data = replay.step_data(step, viewer)
        out.write(f"\n--- step {step}/{replay.steps} ---\n")
        if step:
            entry = replay.log[step - 1]
            events = f" -> {'; '.join(entry['events'])}" if entry["events"] else ""
            note = replay.notes[step - 1]
            out.write(f"player {entry['player']}: {entry['action']}{events}\n")
            if note:
                out.write(f"  ({note})\n")
            if entry.get("turn_end"):
                out.write(f"  end of turn {entry['turn']}: {'; '.join(entry['turn_end'])}\n")
        out.write(screen_text(data) + "\n")
        if not wait:
            if step == replay.steps:
                return 0
            step += 1
            continue
        while True:
            out.write("> ")
            out.flush()
            line = inp.readline()
            if not line or line.strip() == "q":
                return 0
            command = line.strip()
            if command == "":
                if step == replay.steps:
                    out.write("That was the last step (q quits, a number goes back).\n")
                    continue
                step += 1
            elif command == "b":
                step = max(0, step - 1)
            elif command.isdigit() and 0 <= int(command) <= replay.steps:
                step = int(command)
            else:
                out.write(f"{command!r}: Enter, a step number 0..{replay.steps}, b or q.\n")
                continue
            break
