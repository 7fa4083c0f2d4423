"""Play in the terminal: one person at a table of AI teammates.

The screen shows exactly what the person's player may know (:func:`screen_text` of
their own view), the teammates' actions as they happen, and the legal actions in plain
words, numbered. Commands::

    <number>     take that action            s [FILE]  save (default: the last save path)
    t            show the table again        l         show the whole log
    r            how to play (the rules)     h         help
    q            quit (saves first with --save)

The screen starts with the goal; each play in the log says what it tells about the
hidden fate (:func:`shipwreck_apps.play.explain.play_note`: the log entry's ``note``, or
else the replay of the game's public record), and the table shows what this turn's plays
tell (:func:`shipwreck_apps.play.explain.turn_reading`).

Every line is wrapped to the terminal's width (words are never cut), with the indent of
its first line kept.

Commands are whole words (``savexyz`` is not a save). A save that fails keeps the
previous save path. Bad input gets a message and changes nothing. End of input (Ctrl-D) and Ctrl-C quit like
``q``. Input and output are streams, so a scripted session is a test.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from shipwreck_apps.play.replay_view import Replay
from shipwreck_apps.play.seat_view import RULES_HELP, goal_text, screen_text
from shipwreck_apps.play.table import PlayError, Table, TeammateError, teammates_label
from shipwreck_apps.play.wrap import WrappedOutput, terminal_width

__all__ = ["HELP", "RULES", "play_terminal"]

HELP = """\
Commands: a number takes that action; t shows the table; l shows the log;
r shows how to play; s [FILE] saves the game; h shows this help;
q quits (saving first if --save was given)."""

RULES = "How to play:\n" + "\n".join(f"  {title}: {text}" for title, text in RULES_HELP)
"""The rules in short (:data:`~shipwreck_apps.play.seat_view.RULES_HELP`), as the ``r``
command prints them."""


def _entry_text(entry: dict, me: int) -> str:
    who = "you" if entry["player"] == me else f"player {entry['player']}"
    if entry.get("by") == "ai":
        who += " (AI)"
    events = f" -> {'; '.join(entry['events'])}" if entry["events"] else ""
    note = f"\n        ({entry['note']})" if entry.get("note") else ""
    ending = entry.get("turn_end")
    end = f"\n        end of turn {entry['turn']}: {'; '.join(ending)}" if ending else ""
    return f"  [{entry['index']}] {who}: {entry['action']}{events}{note}{end}"


def _noted(table: Table, entries: list[dict]) -> list[dict]:
    """``entries`` with each play's note: the entry's own, or what the game's replay
    says the play told (public facts of the step after it)."""
    if all("note" in e or not e["action"].startswith("play ") for e in entries):
        return entries
    notes = Replay(table.record()).notes
    return [
        {**e, "note": notes[e["index"] - 1]} if "note" not in e and notes[e["index"] - 1] else e
        for e in entries
    ]


def _save(table: Table, path: str | None, out: TextIO) -> bool:
    if not path:
        out.write("No file to save to: type s FILE (or start with --save FILE).\n")
        return False
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(table.dumps())
    except OSError as exc:
        out.write(f"Could not save to {path}: {exc}\n")
        return False
    out.write(f"Saved to {path} (resume with --resume {path}).\n")
    return True


def _show(table: Table, me: int, out: TextIO) -> None:
    data = table.seat_data(me)
    out.write("\n" + screen_text(data) + "\n")
    if data["legal"]:
        out.write("Your decision:\n")
        if data.get("decision_help"):
            out.write(f"  {data['decision_help']}\n")
        for i, option in enumerate(data["legal"], 1):
            out.write(f"  {i:3d}. {option['text']}\n")
            if option.get("preview"):
                out.write(f"         {option['preview']}\n")
            model = data.get("model_previews", {}).get(str(option["action"]))
            if model:
                out.write(f"         {model}\n")


def play_terminal(
    table: Table,
    player: int,
    inp: TextIO = sys.stdin,
    out: TextIO = sys.stdout,
    save_path: str | None = None,
    width: int | None = None,
) -> int:
    """Run the game at ``table`` for the person in ``player`` until it ends or they quit
    (Ctrl-C included: it saves like ``q``). Output lines are wrapped to ``width``
    columns (default: the terminal's width).

    Returns 0 when the game ended or the person quit (saved or not), 1 when the AI
    teammates failed and the game was stopped.
    """
    out = WrappedOutput(out, width or terminal_width())
    try:
        return _session(table, player, inp, out, save_path)
    except KeyboardInterrupt:
        out.write("\nInterrupted: quitting.\n")
        if save_path:
            _save(table, save_path, out)
        return 0


def _session(table: Table, player: int, inp: TextIO, out: TextIO, save_path: str | None) -> int:
    out.write(
        f"Shipwreck Arcana: you are player {player}. Teammates: {teammates_label(table.teammates)}.\n"
        f"Goal: {goal_text(table.config.difficulty)}; type r for how to play.\n"
    )
    out.write(HELP + "\n")
    for entry in _noted(table, table.log[-12:]):  # a resumed game: where we were
        out.write(_entry_text(entry, player) + "\n")
    try:
        entries = table.advance()
    except TeammateError as exc:
        return _stopped(table, exc, out, save_path)
    while True:
        for entry in _noted(table, entries):
            out.write(_entry_text(entry, player) + "\n")
        _show(table, player, out)
        if table.over:
            out.write("The game is over. Thank you for playing.\n")
            if save_path:
                _save(table, save_path, out)
            return 0
        while True:
            out.write("> ")
            out.flush()
            line = inp.readline()
            if not line:  # end of input: quit cleanly
                out.write("\nEnd of input: quitting.\n")
                if save_path:
                    _save(table, save_path, out)
                return 0
            words = line.split(maxsplit=1)
            if not words:
                continue
            command = words[0]  # commands are whole words: "savexyz" is not "save"
            if command in ("q", "quit", "exit") and len(words) == 1:
                if save_path:
                    _save(table, save_path, out)
                out.write("Bye.\n")
                return 0
            if command in ("h", "help", "?") and len(words) == 1:
                out.write(HELP + "\n")
                continue
            if command in ("r", "rules") and len(words) == 1:
                out.write(RULES + "\n")
                continue
            if command in ("t", "table") and len(words) == 1:
                _show(table, player, out)
                continue
            if command in ("l", "log") and len(words) == 1:
                for entry in _noted(table, table.log):
                    out.write(_entry_text(entry, player) + "\n")
                continue
            if command in ("s", "save"):
                target = words[1].strip() if len(words) > 1 else save_path
                if _save(table, target, out):
                    save_path = target  # later saves (and quitting) go there too
                elif save_path and target != save_path:
                    out.write(f"Saves (and quitting) still go to {save_path}.\n")
                continue
            legal = table.legal(player)
            try:
                choice = int(line.strip())
            except ValueError:
                out.write(f"{line.strip()!r} is not a command or an action number; h shows help.\n")
                continue
            if not 1 <= choice <= len(legal):
                out.write(f"{choice} is not one of the choices 1..{len(legal)}.\n")
                continue
            try:
                entries = table.play(player, legal[choice - 1])
            except PlayError as exc:  # cannot happen with a listed choice; say so if it does
                out.write(f"Refused: {exc}\n")
                continue
            except TeammateError as exc:
                return _stopped(table, exc, out, save_path)
            break


def _stopped(table: Table, exc: TeammateError, out: TextIO, save_path: str | None) -> int:
    """The teammates failed: say so, keep the game as it was before, and end."""
    out.write(f"The game is stopped, as it was before your last action: {exc}\n")
    if save_path:
        _save(table, save_path, out)
    return 1
