"""What one seat may see, as data for the browser and as text for the terminal.

Both are built from :func:`shipwreck_env.view.make_view` -- exactly what that player may
know -- and nothing else: another player's held fate or the deck below its top card can
never reach them. The omniscient picture of a finished game (replays) is
:func:`omniscient_data`, which is never sent for a game in progress.
"""

from __future__ import annotations

from collections.abc import Sequence

from shipwreck_env.actions import describe
from shipwreck_env.cards import CARD_INDEX, CARDS, POWER_INDEX, POWERS
from shipwreck_env.render import describe_event
from shipwreck_env.rules import mask_values
from shipwreck_env.state import State
from shipwreck_env.view import AgentView, make_view

__all__ = ["card_data", "omniscient_data", "power_data", "screen_text", "view_data"]


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


def power_data(power_id: str) -> dict:
    """A faded power's public face."""
    p = POWERS[POWER_INDEX[power_id]]
    return {"id": p.id, "title": p.title, "user": p.user, "summary": p.summary}


def view_data(
    view: AgentView, log: Sequence[dict] = (), posterior: Sequence[float] | None = None
) -> dict:
    """The view as JSON-ready data (seats and players are absolute numbers)."""
    P = view.config.num_players
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
        "deck": {"size": view.deck_size, "top": card_data(view.deck_top)},
        "slots": [
            {
                "slot": i,
                "card": card_data(view.slots[i]),
                "fates": list(view.table[i]),
                "hours": view.hours[i],
                "moons": view.moons[i],
                "attached": [power_data(p) for p in view.attached[i]],
            }
            for i in range(4)
        ],
        "faded": [power_data(p) for p in view.faded_powers],
        "exiled": list(view.exiled),
        "unseen": list(view.unseen),
        "seats": seats,
        "turn_events": [describe_event(e) for e in view.events],
        "votes": list(view.votes),
        "predictions": list(view.predictions),
        "predictions_left": view.predictions_left,
        "legal": [{"action": a, "text": describe(a)} for a in view.legal],
        "log": list(log),
        "posterior": None if posterior is None else [round(float(p), 4) for p in posterior],
    }


def omniscient_data(s: State, log: Sequence[dict] = ()) -> dict:
    """Everything: the view of player 0 plus every hand and the deck order (replays of
    finished games only)."""
    data = view_data(make_view(s, 0), log)
    data["player"] = None
    data["legal"] = [{"action": a, "text": describe(a)} for a in _legal(s)]
    for seat in data["seats"]:
        seat["fates"] = list(s.hands[seat["seat"]])
        seat["mine"] = False
    data["deck_order"] = [CARDS[c].id for c in s.deck]
    data["unseen"] = list(s.bag)
    return data


def _legal(s: State) -> list[int]:
    from shipwreck_env.engine import legal_actions

    return legal_actions(s)


def _line_text(values: Sequence[int]) -> str:
    return "".join(str(v) if v in values else "." for v in range(1, 8))


def screen_text(data: dict) -> str:
    """The table as text from :func:`view_data` (or :func:`omniscient_data`)."""
    out = []
    me = data["player"]
    if data["over"]:
        result = "truncated" if data["truncated"] else ("WON" if data["won"] else "lost")
        out.append(f"== Game over after {data['turn']} turns: {result} ==")
    else:
        who = "you" if data["active_player"] == me else f"player {data['active_player']}"
        out.append(
            f"== Turn {data['turn']}: seat {data['active_seat']} ({who}) is active; "
            f"phase {data['phase']}; leader is player {data['leader']} =="
        )
    out.append(
        f"Score {data['score']}/7   Doom {data['doom']}/7   ({data['difficulty']}, "
        f"{data['num_players']} players, {data['group_decision']})"
    )
    top = data["deck"]["top"]
    top_text = f"{top['name']} [{top['title']}]" if top else "none"
    out.append(f"Deck: {data['deck']['size']} cards, top: {top_text}")
    for slot in data["slots"]:
        card = slot["card"]
        if card is None:
            out.append(f"  slot {slot['slot']}: (empty)")
            continue
        moons = "-" if slot["moons"] is None else slot["moons"]
        fates = " ".join(map(str, slot["fates"])) or "-"
        extra = "".join(f" +{p['title']}" for p in slot["attached"])
        out.append(
            f"  slot {slot['slot']}: {card['name']} - {card['condition']}\n"
            f"          fates: {fates}   hours {slot['hours']}/{moons}{extra}"
        )
    faded = "; ".join(f"{p['title']} ({p['summary']})" for p in data["faded"]) or "none"
    out.append(f"Faded powers: {faded}")
    if any(data["exiled"]):
        out.append(
            "Exiled: "
            + " ".join(str(v + 1) for v, n in enumerate(data["exiled"]) for _ in range(n))
        )
    label = "In the bag" if me is None else "Unseen copies"
    out.append(f"{label} (values 1-7): " + " ".join(map(str, data["unseen"])))
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
    if data["posterior"]:
        p = data["posterior"]
        out.append(
            "The group's reading of the hidden fate: "
            + "  ".join(f"{v + 1}:{p[v]:.0%}" for v in range(7) if p[v] > 0)
        )
    return "\n".join(out)
