"""What one seat may see, as data for the browser and as text for the terminal.

Both are built from :func:`shipwreck_env.rules.view.make_view` -- exactly what that player may
know -- and nothing else: another player's held fate or the deck below its top card can
never reach them. The omniscient picture of a finished game (replays) is
:func:`omniscient_data`, which is never sent for a game in progress.
"""

from __future__ import annotations

from collections.abc import Sequence

from shipwreck_apps.play.explain import card_name, play_words, slots_at_events, turn_reading
from shipwreck_apps.play.preview import decision_help, fade_warnings, play_preview
from shipwreck_env.envs.render import describe_event
from shipwreck_env.rules.actions import ACTIONS, HOURS_TARGET, PASS, REVEAL, describe
from shipwreck_env.rules.cards import CARD_INDEX, CARDS, POWER_INDEX, POWERS, fate_hours
from shipwreck_env.rules.conditions import mask_values
from shipwreck_env.rules.config import DIFFICULTIES
from shipwreck_env.rules.fading import LOSE_DOOM, WIN_SCORE, fade_cost
from shipwreck_env.rules.state import PHASES, State
from shipwreck_env.rules.view import AgentView, make_view

__all__ = [
    "HOURS_TEXT",
    "PHASE_WORDS",
    "RULES_HELP",
    "action_text",
    "card_data",
    "end_reason",
    "end_words",
    "event_text",
    "goal_text",
    "hours_words",
    "omniscient_data",
    "power_data",
    "screen_text",
    "track_text",
    "unseen_text",
    "view_data",
]

PHASE_WORDS = {
    "play": "playing a fate",
    "steal": "The Thief takes a fate",
    "after_play": "after the play (Shells or Sinners)",
    "reveal": "revealing held fates",
    "group": "the group's decision (powers, then the prediction)",
    "vote": "voting on the hidden fate",
    "cost": "paying a power's cost",
    "sails": "Sails may exile a fate",
    "game_over": "game over",
}
"""Each phase in words, for the screen."""
assert set(PHASE_WORDS) == set(PHASES)

HOURS_TEXT = "hours per fate: " + ", ".join(
    f"{lo}-{hi} give {fate_hours(lo)}" if lo != hi else f"{lo} gives {fate_hours(lo)}"
    for lo, hi in ((1, 3), (4, 6), (7, 7))
)
"""How many hours a fate of each value counts in front of a card (Scions and Imago
change it on their card; the card's total is always the engine's)."""

RULES_HELP: tuple[tuple[str, str], ...] = (
    (
        "Goal",
        f"Everybody plays together. The table wins when the score reaches {WIN_SCORE} "
        f"(correct predictions) and loses when doom reaches {LOSE_DOOM}. Doom starts at "
        + ", ".join(f"{d} on {name}" for name, d in DIFFICULTIES.items())
        + ".",
    ),
    (
        "A turn",
        "The active player holds two fates (numbers 1 to 7), plays one of them face up in "
        "front of an arcana card whose condition the pair meets, and keeps the other "
        "hidden. If no card takes either fate, the fate goes to The Hours and slides to "
        "the leftmost card.",
    ),
    (
        "Predictions",
        "Nobody may talk: the others learn about the hidden fate only from where the "
        "other one was played. The group (its leader, or a vote) then names a value or "
        "passes. Right: +1 score. Wrong: +1 doom. After a prediction the hidden fate goes "
        "back to the bag; after a pass its player keeps it for their next turn.",
    ),
    (
        "Reveals",
        "Before the group decides, each other player who holds a fate may reveal it: it "
        "is discarded face up, so everybody sees its value and it goes back to the bag, "
        "and that player starts their next turn with two fresh fates. A revealed value is "
        "one copy fewer that the active player could be keeping, which can tip the group "
        "between two values; when it would not, keep the fate hidden.",
    ),
    (
        "Number lines",
        "Each seat's number line shows the values its hidden fate can still have, from "
        "public facts only: the cards it was played beside, power answers, wrong "
        "predictions.",
    ),
    (
        "Fading and powers",
        "Fates add hours to their card (1-3 count 1, 4-6 count 2, 7 counts 3). When a "
        "card's hours reach the number it fades at (printed on it as moons) it fades at "
        "the end of the turn: +2 doom unless the turn's prediction was right (The Blind "
        "Man costs nothing). A faded card leaves a power, used once: "
        "most ask a yes/no question about the hidden fate or give an extra prediction; "
        "a few are the active player's, before or after the play.",
    ),
    (
        "The end",
        f"At the end of a turn: score {WIN_SCORE} wins, doom {LOSE_DOOM} loses; "
        "otherwise the next seat plays.",
    ),
)
"""How to play, in short paragraphs (title, text): the table page's "How to play"
panel shows the same words (a test compares them) and the terminal's ``rules``
command prints them."""


def goal_text(difficulty: str) -> str:
    """The goal with this game's starting doom: "Score 7 before doom reaches 7 (doom
    starts at 2 on normal)".

    Raises:
        ValueError: ``difficulty`` is not one of :data:`DIFFICULTIES`.
    """
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty {difficulty!r} is not allowed; allowed: {list(DIFFICULTIES)}")
    return (
        f"Score {WIN_SCORE} before doom reaches {LOSE_DOOM} "
        f"(doom starts at {DIFFICULTIES[difficulty]} on {difficulty})"
    )


_PASS_WORDS = {
    "play": "pass",
    "steal": "take nothing",
    "after_play": "pass: use no power after the play",
    "reveal": "keep the held fate hidden",
    "group": "pass: no power and no prediction",
    "vote": "vote pass",
    "cost": "pay no cost (do not use the power)",
    "sails": "pass: exile nothing with Sails",
}
_PASS_AFTER_PREDICTION = "pass: no more predictions"
"""The group's pass once it has predicted this turn (a wrong one left it an extra)."""
_REVEAL_WORDS = "reveal: discard the held fate face up"


def action_text(
    action: int,
    phase: str,
    group_decision: str,
    slots: Sequence[str | None] | None = None,
    predicted: bool = False,
) -> str:
    """An action in words for the phase it is taken in, in words that read the same
    whoever took it (no "my"): each kind of pass says what is declined, and a
    prediction says "vote" only in vote mode. With ``slots`` (the card id in each slot
    now), a play names its card: "play fate 5 on The Blind Man (slot 1)". ``predicted``:
    the group has already predicted this turn, so its pass declines only more
    predictions."""
    if action == PASS:
        if phase == "group" and predicted:
            return _PASS_AFTER_PREDICTION
        return _PASS_WORDS.get(phase, describe(action))
    if action == REVEAL:
        return _REVEAL_WORDS
    spec = ACTIONS[action]
    if spec.kind == "predict":
        return f"vote {spec.value}" if phase == "vote" else f"predict {spec.value}"
    if spec.kind == "play" and slots is not None and spec.slot != HOURS_TARGET:
        return f"play fate {spec.value} on {card_name(slots[spec.slot])} (slot {spec.slot})"
    return describe(action)


def _power_event_text(power: str, arg: object, answer: object) -> str:
    title = POWERS[POWER_INDEX[power]].title
    text = f"used {power} ({title})"
    if power == "sparrows":
        old, new = answer
        return f"{text}: {card_name(old)} in slot {arg} was replaced by {card_name(new)}"
    if power == "skies":
        slot, value, to_slot = arg
        return f"{text}: moved the {value} from slot {slot} to slot {to_slot}"
    if power == "sinners":
        slot, value = arg
        return f"{text}: the {value} on slot {slot} went back to the bag"
    if power == "scions":
        return f"{text}: attached to slot {arg}"
    if arg is not None:
        text += f" {arg}"
    if answer is not None:
        text += f": {'yes' if answer else 'no'}"
    return text


def event_text(event: tuple, slots: Sequence[str | None] | None = None) -> str:
    """A public event in words, cards by their printed names; a draw says how many fates
    were drawn (not a value). With ``slots`` (the card id in each slot when the event
    happened), a play names its card too."""
    kind = event[0]
    if kind == "draw":
        n = event[2]
        return f"seat {event[1]} drew {n} fate{'' if n == 1 else 's'}"
    if kind == "predict" and len(event) > 2:
        return f"the group predicted {event[1]}: {'correct' if event[2] else 'wrong'}"
    if kind == "play" and slots is not None:
        return "played " + play_words(event[1], event[2], event[3], slots)
    if kind == "fade":
        return f"{card_name(event[2])} faded (slot {event[1]})"
    if kind == "refill":
        return f"slot {event[1]} refilled with {card_name(event[2])}"
    if kind == "power":
        return _power_event_text(*event[1:])
    return describe_event(event)


def end_words(won: bool, truncated: bool, max_turns: int | None = None) -> str:
    """How a finished game ended, in words and within the track: "Score reached 7: the
    table won." or "Doom reached 7: the table lost." (never a doom past the track)."""
    if won:
        return f"Score reached {WIN_SCORE}: the table won."
    if truncated:
        limit = f" ({max_turns})" if max_turns else ""
        return f"The turn limit{limit} was reached: the game stopped without a result."
    return f"Doom reached {LOSE_DOOM}: the table lost."


def end_reason(s: State, turn_doom: int) -> str:
    """Why the game ended, from the events of its last turn and the doom it began with:
    e.g. "doom reached 7: a wrong prediction (+1) and The Chalice faded (+2)"."""
    if s.won:
        return "the group predicted the hidden fate right"
    if s.truncated:
        return f"the turn limit ({s.config.max_turns}) was reached"
    wrong = any(e[0] == "predict" and not e[2] for e in s.events) and not any(
        e[0] == "predict" and e[2] for e in s.events
    )
    fades = [CARD_INDEX[e[2]] for e in s.events if e[0] == "fade"]
    rest = s.doom - turn_doom - int(wrong)
    amplified = sum(fade_cost(c, False) for c in fades) < rest
    parts = ["a wrong prediction (+1)"] if wrong else []
    parts += [f"{CARDS[c].name} faded (+{fade_cost(c, amplified)})" for c in fades]
    causes = " and ".join(parts) or "doom"
    return f"doom reached {s.doom} (it ends the game at {LOSE_DOOM}): {causes}"


def card_data(card_id: str | None) -> dict | None:
    """An arcana card's public face: id, name, condition, moons, set, power on its back."""
    if card_id is None:
        return None
    c = CARDS[CARD_INDEX[card_id]]
    return {
        "id": c.id,
        "name": c.name,
        "title": c.title,
        "condition": c.summary,
        "moons": c.moons,
        "set": c.set,
        "power": c.power,
    }


def power_data(power_id: str, card_id: str | None = None) -> dict:
    """A faded power's public face, with the name of the card it faded from (several
    cards share a power) when known."""
    p = POWERS[POWER_INDEX[power_id]]
    card = CARDS[CARD_INDEX[card_id]].name if card_id else None
    return {"id": p.id, "title": p.title, "user": p.user, "summary": p.summary, "card": card}


def faded_cards(s: State) -> list[str]:
    """The faded cards whose powers are available, oldest first (public: a card fades
    face up and a power is discarded in the open)."""
    return [CARDS[c].id for c in s.faded]


def view_data(
    view: AgentView,
    log: Sequence[dict] = (),
    posterior: Sequence[float] | None = None,
    faded: Sequence[str] | None = None,
) -> dict:
    """The view as JSON-ready data (seats and players are absolute numbers); ``faded``
    names the faded cards (:func:`faded_cards`), so each power shows its card."""
    P = view.config.num_players
    at_events = slots_at_events(view)
    seats = []
    for seat, line in enumerate(view.lines):
        mine = seat in view.my_seats
        seats.append(
            {
                "seat": seat,
                "player": seat % P,
                "holding": view.holding[seat],
                "line": mask_values(line),
                "mine": mine,
                "fates": list(view.my_hands[view.my_seats.index(seat)]) if mine else None,
            }
        )
    return {
        "player": view.player,
        "num_players": P,
        "difficulty": view.config.difficulty,
        "card_sets": list(view.config.card_sets),
        "group_decision": view.config.group_decision,
        "phase": view.phase,
        "phase_words": PHASE_WORDS[view.phase],
        "decider": view.decider,
        "active_seat": view.active_seat,
        "active_player": view.active_player,
        "leader": view.leader,
        "score": view.score,
        "doom": view.doom,
        "turn": view.turn,
        "over": view.over,
        "won": view.won,
        "truncated": view.truncated,
        "goal": goal_text(view.config.difficulty),
        "end_words": (
            end_words(view.won, view.truncated, view.config.max_turns) if view.over else None
        ),
        "deck": {"size": view.deck_size, "top": card_data(view.deck_top)},
        "slots": [
            {
                "slot": i,
                "card": card_data(view.slots[i]),
                "fates": list(view.table[i]),
                "fate_hours": [fate_hours(v) for v in view.table[i]],
                "hours": view.hours[i],
                "moons": view.moons[i],
                "attached": [power_data(p) for p in view.attached[i]],
            }
            for i in range(4)
        ],
        "faded": [
            power_data(p, None if faded is None else faded[i])
            for i, p in enumerate(view.faded_powers)
        ],
        "hours_text": HOURS_TEXT,
        "exiled": list(view.exiled),
        "unseen": list(view.unseen),
        "seats": seats,
        "turn_events": [event_text(e, at_events[i]) for i, e in enumerate(view.events)],
        "reading": turn_reading(view),
        "votes": list(view.votes),
        "predictions": list(view.predictions),
        "predictions_left": view.predictions_left,
        "legal": [_option(view, a) for a in view.legal],
        "fading": fade_warnings(view),
        "decision_help": decision_help(view),
        "log": list(log),
        "posterior": None if posterior is None else [round(float(p), 4) for p in posterior],
    }


def _option(view: AgentView, action: int) -> dict:
    """A legal action of the viewer: its number, its words and, for a play, what it would
    tell the group (:func:`~shipwreck_apps.play.preview.play_preview`)."""
    text = action_text(
        action, view.phase, view.config.group_decision, view.slots, bool(view.predictions)
    )
    option = {"action": action, "text": text}
    preview = play_preview(view, action)
    if preview is not None:
        option["preview"] = preview["text"]
    return option


def omniscient_data(s: State, log: Sequence[dict] = ()) -> dict:
    """Everything: the view of player 0 plus every hand and the deck order (replays of
    finished games only)."""
    view = make_view(s, 0)
    data = view_data(view, log, None, faded_cards(s))
    data["player"] = None
    data["reading"] = turn_reading(view, None)
    phase = PHASES[s.phase]
    data["legal"] = [
        {
            "action": a,
            "text": action_text(a, phase, s.config.group_decision, view.slots, bool(s.predictions)),
        }
        for a in _legal(s)
    ]
    data["decision_help"] = None
    for seat in data["seats"]:
        seat["fates"] = list(s.hands[seat["seat"]])
        seat["mine"] = False
    data["deck_order"] = [CARDS[c].name for c in s.deck]
    data["unseen"] = list(s.bag)
    return data


def _legal(s: State) -> list[int]:
    from shipwreck_env.rules.engine import legal_actions

    return legal_actions(s)


def _line_text(values: Sequence[int]) -> str:
    return "".join(str(v) if v in values else "." for v in range(1, 8))


def screen_text(data: dict) -> str:
    """The table as text from :func:`view_data` (or :func:`omniscient_data`)."""
    out = []
    me = data["player"]
    if data["over"]:
        turns = f"{data['turn']} turn{'' if data['turn'] == 1 else 's'}"
        reason = f" Last turn: {data['end_reason']}." if data.get("end_reason") else ""
        out.append(f"== Game over after {turns}. {data['end_words']}{reason} ==")
    elif data.get("ended"):
        out.append(f"== The game was stopped: {data['ended']} ==")
    else:
        who = "you" if data["active_player"] == me else f"player {data['active_player']}"
        out.append(
            f"== Turn {data['turn']}: seat {data['active_seat']} ({who}) is active; "
            f"now: {data['phase_words']}; leader is player {data['leader']} =="
        )
    out.append(
        f"{track_text('Score', data['score'], WIN_SCORE)}   "
        f"{track_text('Doom', data['doom'], LOSE_DOOM)}   ({data['difficulty']}, "
        f"{data['num_players']} players, {data['group_decision']})"
    )
    if not data["over"]:
        out.append(f"Goal: {data['goal']}.")
    top = data["deck"]["top"]
    top_text = f"{top['name']} [{top['title']}: {top['condition']}]" if top else "none"
    out.append(f"Deck: {data['deck']['size']} cards, top: {top_text}")
    out.append(f"Slots ({data['hours_text']}):")
    for slot in data["slots"]:
        card = slot["card"]
        if card is None:
            out.append(f"  slot {slot['slot']}: (empty)")
            continue
        moons = "by its text" if slot["moons"] is None else f"at {hours_words(slot['moons'])}"
        fates = (
            " ".join(f"{v}({h}h)" for v, h in zip(slot["fates"], slot["fate_hours"], strict=True))
            or "-"
        )
        extra = "".join(f" +{p['title']}" for p in slot["attached"])
        out.append(
            f"  slot {slot['slot']}: {card['name']} - {card['condition']}\n"
            f"          fates: {fates}   hours {slot['hours']}, fades {moons}{extra}"
        )
        for warning in data.get("fading", ()):
            if warning["slot"] == slot["slot"]:
                out.append(f"          WARNING: {warning['text']}")
    faded = (
        "; ".join(
            f"{p['card'] + ': ' if p['card'] else ''}{p['id']} - {p['title']} ({p['summary']})"
            for p in data["faded"]
        )
        or "none"
    )
    out.append(f"Faded powers: {faded}")
    if any(data["exiled"]):
        out.append(
            "Exiled: "
            + " ".join(str(v + 1) for v, n in enumerate(data["exiled"]) for _ in range(n))
        )
    label = "In the bag" if me is None else "Unseen copies"
    out.append(f"{label} (value: how many): {unseen_text(data['unseen'])}")
    out.append("Seats (number line: possible values of each held fate):")
    for seat in data["seats"]:
        you = " (you)" if seat["mine"] else ""
        if seat["fates"] is not None:
            held = " ".join(map(str, seat["fates"])) or "nothing"
        else:
            held = " ".join("?" for _ in range(seat["holding"])) or "nothing"
        out.append(
            f"  seat {seat['seat']} player {seat['player']}{you}: holds {held}; "
            f"line {_line_text(seat['line'])}"
        )
    if data["turn_events"]:
        out.append("This turn: " + "; ".join(data["turn_events"]))
    reading = data.get("reading")
    if reading:
        out.append(reading["text"])
    if data["posterior"]:
        p = data["posterior"]
        whose = f"player {reading['player']}'s" if reading else "the"
        out.append(
            f"The AI group's model reads {whose} hidden fate as: "
            + "  ".join(f"{v + 1}:{p[v]:.0%}" for v in range(7) if p[v] > 0)
        )
    return "\n".join(out)


def hours_words(hours: int) -> str:
    """ "1 hour", "3 hours"."""
    return f"{hours} hour{'' if hours == 1 else 's'}"


def unseen_text(counts: Sequence[int]) -> str:
    """Copies of each value not seen, as "1: 3, 2: 2, ..." (value, then how many)."""
    return ", ".join(f"{v}: {n}" for v, n in enumerate(counts, 1))


def track_text(name: str, value: int, end: int) -> str:
    """A track as "Doom 5/7"; past its end, "Doom 7/7 (8 counted)": never "8/7"."""
    if value <= end:
        return f"{name} {value}/{end}"
    return f"{name} {end}/{end} ({value} counted)"
