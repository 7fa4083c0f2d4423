"""The table as an RGB image, for ``render_mode="rgb_array"`` and video recorders.

:func:`render_image` draws what :func:`shipwreck_env.envs.render_text.render` writes -- score and
doom, whose turn and phase, the deck's size and face-up top card, the four slots with
their cards, fates, hours and moons and attached powers, faded powers, the bag, exiled
fates, every seat's number line and this turn's events -- as a ``(IMAGE_HEIGHT,
IMAGE_WIDTH, 3)`` ``uint8`` array. With a ``viewer`` (a player number) that player's own
held fates are drawn face up; every other held fate is a grey ``?`` token, so the image
shows no more than the text render does: never another seat's held fates, the kept
fate (to anyone but its holder) or the order of the bag or the face-down deck.

The image has one size for every game and every moment (RecordVideo needs frames of
one size), the same pixels for the same state, and is drawn with numpy alone in a few
milliseconds: text uses the 5x7 bitmap font at the end of this module, so the core
needs no imaging library. Text that does not fit its box is cut short with ``..``.
"""

from __future__ import annotations

import functools

import numpy as np

from shipwreck_env.envs.render_text import describe_event, turn_line
from shipwreck_env.rules.cards import CARDS, POWER_INDEX, POWERS
from shipwreck_env.rules.fading import LOSE_DOOM, WIN_SCORE, slot_hours
from shipwreck_env.rules.state import State

__all__ = ["IMAGE_HEIGHT", "IMAGE_WIDTH", "render_image"]

IMAGE_WIDTH = 960
IMAGE_HEIGHT = 640
"""The image size (multiples of 16, as video encoders prefer)."""

Color = tuple[int, int, int]
FELT: Color = (22, 70, 48)
BAND: Color = (16, 26, 36)
CARD: Color = (238, 228, 202)
INK: Color = (30, 30, 36)
PALE: Color = (225, 232, 225)
DIM: Color = (120, 140, 128)
GOLD: Color = (232, 200, 96)
WIN: Color = (110, 210, 120)
LOSS: Color = (232, 96, 86)
HIDDEN: Color = (105, 108, 112)
RULED_OUT: Color = (44, 54, 50)
ACTIVE_ROW: Color = (34, 96, 66)
FATE_COLORS: tuple[Color, ...] = (
    (196, 58, 58),
    (214, 118, 34),
    (226, 186, 40),
    (52, 140, 66),
    (30, 128, 150),
    (58, 84, 196),
    (132, 66, 172),
)
"""Token colour of each fate value 1-7."""
FATE_DIGITS: tuple[Color, ...] = tuple(
    INK if 0.3 * r + 0.6 * g + 0.1 * b > 150 else (255, 255, 255) for r, g, b in FATE_COLORS
)
"""Digit colour on each token: dark on the light ones, white on the others."""

GLYPH_W, GLYPH_H = 5, 7
MARGIN = 12
TOKEN = 20
"""Side of a fate token in pixels (a scale-2 digit inside)."""


def render_image(s: State, viewer: int | None = None) -> np.ndarray:
    """The table of ``s`` as a ``(IMAGE_HEIGHT, IMAGE_WIDTH, 3)`` ``uint8`` image:
    public, or as player ``viewer`` sees it (their own held fates face up)."""
    players = s.config.num_players
    if viewer is not None and (
        isinstance(viewer, bool)
        or not isinstance(viewer, (int, np.integer))
        or not 0 <= viewer < players
    ):
        raise ValueError(f"viewer {viewer!r} is not a player; allowed: None, 0..{players - 1}")
    img = _BACKGROUND.copy()
    _draw_header(img, s, viewer)
    exiled = tuple(v + 1 for v, n in enumerate(s.exiled) for _ in range(n))
    top = s.deck[0] if s.deck else -1
    _paste(img, MARGIN, TABLE_Y, _deck_panel(len(s.deck), top, sum(s.bag), exiled))
    for slot in range(4):
        x = MARGIN + DECK_W + GAP + slot * (SLOT_W + GAP)
        card = s.slots[slot]
        hours = slot_hours(s, slot) if card >= 0 else 0
        panel = _slot_panel(slot, card, tuple(s.table[slot]), hours, tuple(s.attached[slot]))
        _paste(img, x, TABLE_Y, panel)
    _text(img, MARGIN, PANEL_Y, "Seats", PALE, 2)
    _text(img, MARGIN + HELD_X, PANEL_Y + 6, "held", DIM)
    _text(img, MARGIN + LINE_X, PANEL_Y + 6, "number line", DIM)
    for seat, hand in enumerate(s.hands):
        owner = s.owner(seat)
        # only the viewer's own fates are looked at; other hands give their size alone
        held = tuple(hand) if viewer == owner else (0,) * len(hand)
        active = seat == s.active and not s.over
        row = _seat_row(seat, owner, held, s.lines[seat], active)
        _paste(img, MARGIN, PANEL_Y + 24 + seat * ROW_H, row)
    _draw_faded(img, s, FADED_X, PANEL_Y, IMAGE_WIDTH - MARGIN - FADED_X, EVENTS_Y - PANEL_Y)
    _draw_events(img, s, MARGIN, EVENTS_Y, IMAGE_WIDTH - 2 * MARGIN, IMAGE_HEIGHT - EVENTS_Y)
    return img


# --- layout -------------------------------------------------------------------------------

TABLE_Y = 64
DECK_W = 140
GAP = 8
SLOT_W = (IMAGE_WIDTH - 2 * MARGIN - DECK_W - 4 * GAP) // 4
TABLE_H = 204
PANEL_Y = TABLE_Y + TABLE_H + 14
ROW_H = 29
HELD_X = 236
LINE_X = 308
FADED_X = 560
EVENTS_Y = 478
LINE = 11
"""Height of a line of scale-1 text."""


def _draw_header(img: np.ndarray, s: State, viewer: int | None) -> None:
    """Score and doom with their pips, the game's settings, whose view, whose turn."""
    _paste(img, 0, 0, _scoreboard(s.score, s.doom))
    cfg = s.config
    mode = "challenge, " if cfg.challenge_mode else ""
    settings = f"{cfg.num_players} players, {mode}{cfg.difficulty}, {cfg.group_decision}"
    _text_right(img, IMAGE_WIDTH - MARGIN, 8, settings, DIM)
    who = "public view" if viewer is None else f"view of player {viewer}"
    _text_right(img, IMAGE_WIDTH - MARGIN, 21, who, GOLD)
    colour = PALE if not s.over else (DIM if s.truncated else WIN if s.won else LOSS)
    _text(img, MARGIN, 36, turn_line(s), colour, width=IMAGE_WIDTH - 2 * MARGIN)


# Panels that change seldom are drawn once per distinct content and pasted (a frame
# then costs a few milliseconds). Their arguments are exactly what the panel shows --
# a seat's held fates arrive as zeros unless the viewer holds them -- so a cached panel
# is a function of what may be seen and cannot carry a hidden fate to another caller.
# The caches are small (a few MB in all): consecutive frames share most panels.


@functools.lru_cache(maxsize=32)
def _scoreboard(score: int, doom: int) -> np.ndarray:
    """The header band with score and doom, each with its pips."""
    img, w, h = _panel(IMAGE_WIDTH, 52)
    _fill(img, 0, 0, w, h, BAND)
    x = _text(img, MARGIN, 8, f"Score {score}/{WIN_SCORE}", PALE, 2)
    _pips(img, x + 8, 9, score, WIN_SCORE, WIN)
    x = _text(img, 330, 8, f"Doom {doom}/{LOSE_DOOM}", PALE, 2)
    _pips(img, x + 8, 9, doom, LOSE_DOOM, LOSS)
    return _frozen(img)


@functools.lru_cache(maxsize=32)
def _deck_panel(size: int, top: int, bag: int, exiled: tuple[int, ...]) -> np.ndarray:
    """The deck (size and face-up top card, -1 if empty), the bag and the exiled fates."""
    img, w, h = _panel(DECK_W, TABLE_H)
    _frame(img, 0, 0, w, h, DIM)
    _text(img, 8, 8, "Deck", PALE, 2)
    _text(img, 8, 30, f"{size} cards; top:", PALE)
    if top >= 0:
        card = CARDS[top]
        _fill(img, 8, 44, w - 16, 56, CARD)
        _text(img, 12, 50, card.name, INK, width=w - 24)
        _text(img, 12, 64, card.title, FATE_COLORS[5], 2, width=w - 24)
        _text(img, 12, 86, _moons_text(card.moons), INK, width=w - 24)
    else:
        _text(img, 8, 48, "(empty)", DIM)
    _text(img, 8, 112, f"Bag: {bag} fates", PALE)
    _text(img, 8, 130, "Exiled:", PALE)
    if not exiled:
        _text(img, 8, 144, "none", DIM)
    _tokens(img, 8, 144, exiled, w - 16, rows=2)
    return _frozen(img)


@functools.lru_cache(maxsize=64)
def _slot_panel(
    slot: int, card_number: int, fates: tuple[int, ...], hours: int, attached: tuple[int, ...]
) -> np.ndarray:
    """One slot: its arcana card (-1: empty), the fates in front of it, hours and moons,
    the cards whose powers are attached to it."""
    img, w, h = _panel(SLOT_W, TABLE_H)
    if card_number < 0:
        _frame(img, 0, 0, w, h, DIM)
        _text(img, 8, 6, f"slot {slot}", DIM)
        _text(img, 8, 24, "(empty)", DIM, 2)
        return _frozen(img)
    card = CARDS[card_number]
    _fill(img, 0, 0, w, h, CARD)
    _frame(img, 0, 0, w, h, INK)
    _text(img, 6, 6, f"slot {slot}", DIM)
    _text_right(img, w - 6, 6, _moons_text(card.moons), INK)
    _text(img, 6, 20, card.name, INK, 2, width=w - 12)
    _text(img, 6, 40, card.title, FATE_COLORS[5], 2, width=w - 12)
    power = POWERS[POWER_INDEX[card.power]]
    _text(img, 6, 60, f"fades: {power.id} ({power.title})", INK, width=w - 12)
    moons = "-" if card.moons is None else str(card.moons)
    end = _text(img, 6, 76, f"hours {hours}/{moons}", INK)
    if card.moons is not None:
        _pips(img, end + 6, 75, hours, card.moons, GOLD, size=9)
    _tokens(img, 6, 94, fates, w - 12, rows=3)
    for i, other in enumerate(attached):
        note = f"+ {CARDS[other].power} (from {CARDS[other].name})"
        _text(img, 6, 172 + i * LINE, note, LOSS, width=w - 12)
    return _frozen(img)


@functools.lru_cache(maxsize=256)
def _seat_row(seat: int, owner: int, held: tuple[int, ...], line: int, active: bool) -> np.ndarray:
    """One seat: who plays it, its held fates (0: face down) and its number line (the
    values its held fate may still have, bit ``v - 1`` for value v)."""
    img, w, h = _panel(LINE_X + 7 * 20 + 6, ROW_H - 3)
    if active:
        _fill(img, 0, 0, w, h, ACTIVE_ROW)
        _text(img, 4, 8, ">", GOLD)
    _text(img, 16, 8, f"seat {seat} (player {owner})", PALE)
    for i, value in enumerate(held):
        _token(img, HELD_X + i * (TOKEN + 3), 2, value or None)
    for v in range(1, 8):
        possible = bool(line >> (v - 1) & 1)
        x = LINE_X + (v - 1) * 20
        _fill(img, x, 3, 18, 18, GOLD if possible else RULED_OUT)
        _text(img, x + 6, 8, str(v), INK if possible else DIM)
    return _frozen(img)


def _draw_faded(img: np.ndarray, s: State, x: int, y: int, w: int, h: int) -> None:
    """The faded powers available to the group, oldest first."""
    _text(img, x, y, "Faded powers", PALE, 2)
    lines = [
        f"{CARDS[c].power}: {POWERS[POWER_INDEX[CARDS[c].power]].title} ({CARDS[c].name})"
        for c in s.faded
    ] or ["none"]
    _lines(img, x, y + 24, lines, PALE, w, (h - 30) // LINE)


def _draw_events(img: np.ndarray, s: State, x: int, y: int, w: int, h: int) -> None:
    """This turn's public events, wrapped; the ones that do not fit end in ``..``."""
    _fill(img, 0, y - 6, IMAGE_WIDTH, 1, DIM)
    _text(img, x, y, "This turn", PALE, 2)
    text = "; ".join(describe_event(e) for e in s.events) or "nothing yet"
    _lines(img, x, y + 22, _wrap(text, w // 6), PALE, w, (h - 26) // LINE)


def _moons_text(moons: int | None) -> str:
    return "no moons" if moons is None else f"{moons} moon{'' if moons == 1 else 's'}"


# --- drawing --------------------------------------------------------------------------------


def _panel(w: int, h: int) -> tuple[np.ndarray, int, int]:
    """A felt-coloured canvas of ``w`` x ``h`` pixels to draw a panel on."""
    return _BACKGROUND[:h, :w].copy(), w, h


def _frozen(img: np.ndarray) -> np.ndarray:
    img.flags.writeable = False  # cached and shared: nobody may draw on it again
    return img


def _paste(img: np.ndarray, x: int, y: int, panel: np.ndarray) -> None:
    img[y : y + panel.shape[0], x : x + panel.shape[1]] = panel


def _fill(img: np.ndarray, x: int, y: int, w: int, h: int, color: Color) -> None:
    # a whole row of pixels broadcasts over the rows far faster than one pixel's colour
    img[y : y + h, x : x + w] = np.tile(np.array(color, np.uint8), (max(w, 0), 1))


def _frame(img: np.ndarray, x: int, y: int, w: int, h: int, color: Color) -> None:
    _fill(img, x, y, w, 1, color)
    _fill(img, x, y + h - 1, w, 1, color)
    _fill(img, x, y, 1, h, color)
    _fill(img, x + w - 1, y, 1, h, color)


def _pips(
    img: np.ndarray, x: int, y: int, filled: int, total: int, color: Color, size: int = 13
) -> None:
    """``total`` squares, the first ``filled`` of them solid (a count out of a limit)."""
    for i in range(total):
        px = x + i * (size + 3)
        if i < filled:
            _fill(img, px, y, size, size, color)
        else:
            _frame(img, px, y, size, size, DIM)


def _token(img: np.ndarray, x: int, y: int, value: int | None) -> None:
    """A fate token: its value on its colour, or a grey ``?`` when hidden."""
    _fill(img, x, y, TOKEN, TOKEN, HIDDEN if value is None else FATE_COLORS[value - 1])
    digit = (255, 255, 255) if value is None else FATE_DIGITS[value - 1]
    _text(img, x + 5, y + 3, "?" if value is None else str(value), digit, 2)


def _tokens(img: np.ndarray, x: int, y: int, values: tuple[int, ...], w: int, rows: int) -> None:
    """Fate tokens in rows across ``w`` pixels; what does not fit is counted as ``+N``."""
    per_row = max(1, (w + 4) // (TOKEN + 4))
    room = per_row * rows
    shown = values if len(values) <= room else values[: room - 1]
    for i, value in enumerate(shown):
        _token(img, x + (i % per_row) * (TOKEN + 4), y + (i // per_row) * (TOKEN + 4), value)
    if len(shown) < len(values):
        i = len(shown)
        at = (x + (i % per_row) * (TOKEN + 4) + 2, y + (i // per_row) * (TOKEN + 4) + 6)
        _text(img, *at, f"+{len(values) - i}", INK)


def _wrap(text: str, chars: int) -> list[str]:
    """``text`` broken at spaces into lines of at most ``chars`` characters."""
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > chars:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line]


def _lines(
    img: np.ndarray, x: int, y: int, lines: list[str], color: Color, w: int, most: int
) -> None:
    """Up to ``most`` lines of text; a last line ending in ``..`` if some were left out."""
    if len(lines) > most:
        lines = [*lines[: most - 1], lines[most - 1][: w // 6 - 2] + ".."]
    for i, line in enumerate(lines):
        _text(img, x, y + i * LINE, line, color, width=w)


def _text(
    img: np.ndarray,
    x: int,
    y: int,
    text: str,
    color: Color,
    scale: int = 1,
    width: int | None = None,
) -> int:
    """Draw ``text`` with its top left at (x, y), cut to ``width`` pixels (ending in
    ``..``); return the x just after it. One masked assignment per call."""
    glyphs = _GLYPHS[scale]
    advance = glyphs.shape[2]
    if width is not None and len(text) * advance > width:
        text = text[: max(0, width // advance - 2)] + ".."
    if not text:
        return x
    mask = glyphs[[_GLYPH_INDEX.get(ch, _UNKNOWN) for ch in text]]
    mask = mask.transpose(1, 0, 2).reshape(glyphs.shape[1], len(text) * advance)
    region = img[y : y + mask.shape[0], x : x + mask.shape[1]]
    region[mask[: region.shape[0], : region.shape[1]]] = color
    return x + mask.shape[1]


def _text_right(img: np.ndarray, right: int, y: int, text: str, color: Color) -> None:
    """Scale-1 ``text`` ending at x = ``right``."""
    _text(img, right - len(text) * (GLYPH_W + 1), y, text, color)


# --- the font -------------------------------------------------------------------------------
# A 5x7 bitmap font of printable ASCII and the three signs card titles use. _FONT_ART holds
# the glyphs of _FONT_CHARS in order, 14 to a block of 7 rows, "#" for ink.

_FONT_CHARS = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~±≤≥"
_FONT_ART = """
..... ..#.. .#.#. .#.#. ..#.. ##... .##.. ..#.. ...#. .#... ..... ..... ..... .....
..... ..#.. .#.#. .#.#. .#### ##..# #..#. ..#.. ..#.. ..#.. ..#.. ..#.. ..... .....
..... ..#.. ..... ##### #.#.. ...#. #.#.. ..... .#... ...#. #.#.# ..#.. ..... .....
..... ..#.. ..... .#.#. .###. ..#.. .#... ..... .#... ...#. .###. ##### ..... #####
..... ..#.. ..... ##### ..#.# .#... #.#.# ..... .#... ...#. #.#.# ..#.. .##.. .....
..... ..... ..... .#.#. ####. #..## #..#. ..... ..#.. ..#.. ..#.. ..#.. ..#.. .....
..... ..#.. ..... .#.#. ..#.. ...## .##.# ..... ...#. .#... ..... ..... .#... .....

..... ..... .###. ..#.. .###. ##### ...#. ##### ..##. ##### .###. .###. ..... .....
..... ....# #...# .##.. #...# ...#. ..##. #.... .#... ....# #...# #...# .##.. .##..
..... ...#. #..## ..#.. ....# ..#.. .#.#. ####. #.... ...#. #...# #...# .##.. .##..
..... ..#.. #.#.# ..#.. ...#. ...#. #..#. ....# ####. ..#.. .###. .#### ..... .....
..... .#... ##..# ..#.. ..#.. ....# ##### ....# #...# .#... #...# ....# .##.. .##..
.##.. #.... #...# ..#.. .#... #...# ...#. #...# #...# .#... #...# ...#. .##.. ..#..
.##.. ..... .###. .###. ##### .###. ...#. .###. .###. .#... .###. .##.. ..... .#...

...#. ..... .#... .###. .###. .###. ####. .###. ###.. ##### ##### .###. #...# .###.
..#.. ..... ..#.. #...# #...# #...# #...# #...# #..#. #.... #.... #...# #...# ..#..
.#... ##### ...#. ....# ....# #...# #...# #.... #...# #.... #.... #.... #...# ..#..
#.... ..... ....# ...#. .##.# ##### ####. #.... #...# ####. ####. #.### ##### ..#..
.#... ##### ...#. ..#.. #.#.# #...# #...# #.... #...# #.... #.... #...# #...# ..#..
..#.. ..... ..#.. ..... #.#.# #...# #...# #...# #..#. #.... #.... #...# #...# ..#..
...#. ..... .#... ..#.. .###. #...# ####. .###. ###.. ##### #.... .#### #...# .###.

..### #...# #.... #...# #...# .###. ####. .###. ####. .#### ##### #...# #...# #...#
...#. #..#. #.... ##.## #...# #...# #...# #...# #...# #.... ..#.. #...# #...# #...#
...#. #.#.. #.... #.#.# ##..# #...# #...# #...# #...# #.... ..#.. #...# #...# #...#
...#. ##... #.... #.#.# #.#.# #...# ####. #...# ####. .###. ..#.. #...# #...# #.#.#
...#. #.#.. #.... #...# #..## #...# #.... #.#.# #.#.. ....# ..#.. #...# #...# #.#.#
#..#. #..#. #.... #...# #...# #...# #.... #..#. #..#. ....# ..#.. #...# .#.#. #.#.#
.##.. #...# ##### #...# #...# .###. #.... .##.# #...# ####. ..#.. .###. ..#.. .#.#.

#...# #...# ##### .###. ..... .###. ..#.. ..... .#... ..... #.... ..... ....# .....
#...# #...# ....# .#... #.... ...#. .#.#. ..... ..#.. ..... #.... ..... ....# .....
.#.#. #...# ...#. .#... .#... ...#. #...# ..... ..... .###. #.##. .###. .##.# .###.
..#.. .#.#. ..#.. .#... ..#.. ...#. ..... ..... ..... ....# ##..# #.... #..## #...#
.#.#. ..#.. .#... .#... ...#. ...#. ..... ..... ..... .#### #...# #.... #...# #####
#...# ..#.. #.... .#... ....# ...#. ..... ..... ..... #...# #...# #...# #...# #....
#...# ..#.. ##### .###. ..... .###. ..... ##### ..... .#### ####. .###. .#### .###.

..##. ..... #.... ..#.. ...#. #.... .##.. ..... ..... ..... ..... ..... ..... .....
.#..# .#### #.... ..... ..... #.... ..#.. ..... ..... ..... ..... ..... ..... .....
.#... #...# #.##. .##.. ..##. #..#. ..#.. ##.#. #.##. .###. ####. .##.# #.##. .###.
###.. #...# ##..# ..#.. ...#. #.#.. ..#.. #.#.# ##..# #...# #...# #..## ##..# #....
.#... .#### #...# ..#.. ...#. ##... ..#.. #.#.# #...# #...# ####. .#### #.... .###.
.#... ....# #...# ..#.. #..#. #.#.. ..#.. #...# #...# #...# #.... ....# #.... ....#
.#... .###. #...# .###. .##.. #..#. .###. #...# #...# .###. #.... ....# #.... ####.

.#... ..... ..... ..... ..... ..... ..... ...#. ..#.. .#... ..... ..#.. ...#. .#...
.#... ..... ..... ..... ..... ..... ..... ..#.. ..#.. ..#.. ..... ..#.. ..#.. ..#..
###.. #...# #...# #...# #...# #...# ##### ..#.. ..#.. ..#.. .#... ##### .#... ...#.
.#... #...# #...# #...# .#.#. #...# ...#. .#... ..#.. ...#. #.#.# ..#.. ..#.. ..#..
.#... #...# #...# #.#.# ..#.. .#### ..#.. ..#.. ..#.. ..#.. ...#. ..#.. ...#. .#...
.#..# #..## .#.#. #.#.# .#.#. ....# .#... ..#.. ..#.. ..#.. ..... ..... ..... .....
..##. .##.# ..#.. .#.#. #...# .###. ##### ...#. ..#.. .#... ..... ##### ##### #####
"""


def _parse_font(art: str, chars: str) -> np.ndarray:
    """The glyphs of ``art`` as booleans, ``(len(chars), 7, 5)``."""
    blocks = [b.split("\n") for b in art.strip("\n").split("\n\n")]
    glyphs = [
        [row.split(" ")[i] for row in block]
        for block in blocks
        for i in range(len(block[0].split(" ")))
    ]
    if len(glyphs) != len(chars) or any(len(g) != GLYPH_H for g in glyphs):
        raise AssertionError("the font art does not match its character list")
    return np.array([[[c == "#" for c in row] for row in g] for g in glyphs], dtype=bool)


def _scaled(glyphs: np.ndarray, scale: int) -> np.ndarray:
    """Glyphs blown up ``scale`` times, each with one blank column after it."""
    big = glyphs.repeat(scale, axis=1).repeat(scale, axis=2)
    return np.pad(big, ((0, 0), (0, 0), (0, 1)))


_FONT = _parse_font(_FONT_ART, _FONT_CHARS)
_GLYPHS = {scale: _scaled(_FONT, scale) for scale in (1, 2)}
_GLYPH_INDEX = {ch: i for i, ch in enumerate(_FONT_CHARS)}
_UNKNOWN = _GLYPH_INDEX["?"]
_BACKGROUND = np.empty((IMAGE_HEIGHT, IMAGE_WIDTH, 3), dtype=np.uint8)
_BACKGROUND[...] = FELT
