"""Per-action features: for each action the decider may take now, what it would mean,
computed from public facts and the decider's own hand only (issue 52).

A flat observation leaves a network to work out, for every legal play, what the play
would tell the group; the convention's code is a computation over every hand of the turn,
which networks fed the observation alone did not learn. Here that computation is done
once per action, so a network can score each legal action from its own row.

:func:`action_features` gives ``float32[NUM_ACTIONS, NUM_FEATURES]``: a row per action
number, zero for every action the observer may not take now. The columns
(:data:`FEATURES`, in blocks):

* **a play** (the active player deciding in the play phase; each legal play of value
  ``v`` on target ``t``, The Hours included):

  - ``cond_1..7``: the kept values that allow the play (the card's condition, as the
    engine records it: ``table_rows``, or ``hours_kept_mask`` for The Hours);
  - ``line_1..7``: the kept fate's public number line right after the play (the
    engine's ``record_play`` on the line of the fate tracked so far: a reader who knows
    the rules and nothing of a code keeps exactly these values; The Chalice's and The
    Fall's announcements, which come later in the turn, are the ``chalice_*`` and
    ``fall_*`` columns);
  - ``belief_1..7``: the literal posterior over the kept fate after the play (the line
    weighted by the copies the group cannot see, as the observation's belief block);
  - ``kept_1..7``: the value the observer keeps if it plays this (its own hand);
  - ``hands``: how many kept values the line leaves, / 7;
  - ``forced``, ``options``: over the hands ``(v, k)`` that could make this play (``k``
    on the line, weighted by the belief), the share whose only legal play it is and
    their mean number of legal plays / 8: how much of a line the play can be;
  - ``chalice_higher``, ``chalice_not``: The Chalice's tell this play brings;
    ``fall_fades``, ``fall_not``: The Fall's announcement (both compare the kept fate
    as the engine does: one higher once Shadows is used this turn);
  - ``fade_doom`` (/ 3), ``fading`` (/ 4), ``amplified``, ``cards_left`` (/ 4): the cards
    that fade if the turn ends right after this play, the doom that costs without a
    correct prediction, whether Sands amplifies it, and the cards left in play
    (``public_record.fading_after`` and ``fade_doom`` on the table as it stands);
  - ``hours``: the play goes to The Hours; ``feast``: the play is on The Feast (a draw
    and a second play follow, so the fades above are the first play's);

* **a prediction or a vote for v** (the observer deciding for the group):
  ``p_literal`` (the literal posterior of v), ``on_line`` (v is on the active seat's
  line), ``unseen`` (copies of v the observer cannot see, / 3);
* every legal action: ``legal``.

Nothing here reads a fate the observer cannot see: the twin-game test changes hidden
facts and finds the same rows. Must not: import ``agents`` or the batched engine.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from shipwreck_env.rules.actions import ACTIONS, HOURS_TARGET, NUM_ACTIONS
from shipwreck_env.rules.cards import CARD_INDEX
from shipwreck_env.rules.engine import legal_actions
from shipwreck_env.rules.number_lines import hours_kept_mask, table_rows
from shipwreck_env.rules.observation import literal_posterior, unseen_counts
from shipwreck_env.rules.plays import first_plays
from shipwreck_env.rules.public_record import fade_doom, fading_after, play_outcome
from shipwreck_env.rules.state import Phase, State
from shipwreck_env.rules.view import TurnStart

__all__ = ["FEATURES", "NUM_FEATURES", "action_features", "column"]

_SEVEN = range(1, 8)
FEATURES: tuple[str, ...] = (
    "legal",
    *(f"cond_{v}" for v in _SEVEN),
    *(f"line_{v}" for v in _SEVEN),
    *(f"belief_{v}" for v in _SEVEN),
    *(f"kept_{v}" for v in _SEVEN),
    "hands",
    "forced",
    "options",
    "chalice_higher",
    "chalice_not",
    "fall_fades",
    "fall_not",
    "fade_doom",
    "fading",
    "amplified",
    "cards_left",
    "hours",
    "feast",
    "p_literal",
    "on_line",
    "unseen",
)
"""The columns of :func:`action_features`, in order (see the module docstring)."""
NUM_FEATURES = len(FEATURES)
_COLUMN = {name: i for i, name in enumerate(FEATURES)}
FEAST = CARD_INDEX["feast"]


def column(name: str) -> int:
    """The column of feature ``name``.

    Raises:
        ValueError: ``name`` is not a feature.
    """
    try:
        return _COLUMN[name]
    except KeyError:
        raise ValueError(f"feature {name!r} is not allowed; allowed: {list(FEATURES)}") from None


def _bits(mask: int) -> list[float]:
    return [float(mask >> (v - 1) & 1) for v in _SEVEN]


def _now(s: State) -> TurnStart:
    """The public table as it stands now, in the shape ``public_record`` reads."""
    start = TurnStart(*s.turn_start, raw=s.turn_start)
    return replace(
        start,
        slots=tuple(s.slots),
        table=tuple(tuple(f) for f in s.table),
        attached=tuple(tuple(a) for a in s.attached),
    )


def _play_rows(s: State, observer: int, out: np.ndarray, actions: list[int]) -> None:
    """Fill the rows of the legal plays ``actions`` of the active ``observer``."""
    hand = s.hands[s.active]
    rows = table_rows(s.slots, s.table, s.shadows, s.feast_done)
    unseen = unseen_counts(s, observer)
    now = _now(s)
    cards_in_play = sum(1 for card in s.slots if card >= 0)
    c = _COLUMN
    for a in actions:
        spec = ACTIONS[a]
        v, target = spec.value, spec.slot
        kept = hand[1] if hand[0] == v else hand[0]
        cond = hours_kept_mask(s, v) if target == HOURS_TARGET else rows[target][v - 1]
        # the engine's record_play: the tracked fate stays on the line if the play allows
        # it; a fate drawn this turn is possible only if v could be the tracked one
        line = (s.tracked & cond) | (cond if s.tracked >> (v - 1) & 1 else 0)
        counts = list(unseen)
        counts[kept - 1] += 1  # the group cannot see the fate the observer keeps
        belief = literal_posterior(line, counts)
        row = out[a]
        row[c["cond_1"] : c["cond_1"] + 7] = _bits(cond)
        row[c["line_1"] : c["line_1"] + 7] = _bits(line)
        row[c["belief_1"] : c["belief_1"] + 7] = belief
        row[c["kept_1"] + kept - 1] = 1.0
        row[c["hands"]] = bin(line).count("1") / 7
        forced = options = 0.0
        for k in _SEVEN:
            weight = belief[k - 1]
            if weight > 0:
                plays = first_plays(rows, v, k)
                forced += weight * (plays == [a])
                options += weight * len(plays)
        row[c["forced"]] = forced
        row[c["options"]] = options / 8
        # the announcements compare the kept fate as the engine reads it (one higher
        # once Shadows is used this turn)
        outcome = play_outcome(now, v, target, kept + (1 if s.shadows else 0))
        if outcome.chalice is not None:
            row[c["chalice_higher" if outcome.chalice else "chalice_not"]] = 1.0
        if outcome.fall is not None:
            row[c["fall_fades" if outcome.fall else "fall_not"]] = 1.0
        fading = fading_after(now, outcome)
        doom, amplified = fade_doom(now, fading)
        row[c["fade_doom"]] = doom / 3
        row[c["fading"]] = len(fading) / 4
        row[c["amplified"]] = float(amplified)
        row[c["cards_left"]] = (cards_in_play - len(fading)) / 4
        row[c["hours"]] = float(target == HOURS_TARGET)
        row[c["feast"]] = float(target != HOURS_TARGET and s.slots[target] == FEAST)


def _prediction_rows(s: State, observer: int, out: np.ndarray, actions: list[int]) -> None:
    """Fill the rows of the prediction (or vote) actions among ``actions``."""
    unseen = unseen_counts(s, observer)
    line = s.lines[s.active]
    belief = literal_posterior(line, unseen)  # the decider is never the active player
    c = _COLUMN
    for a in actions:
        spec = ACTIONS[a]
        if spec.kind != "predict":
            continue
        v = spec.value
        out[a, c["p_literal"]] = belief[v - 1]
        out[a, c["on_line"]] = float(line >> (v - 1) & 1)
        out[a, c["unseen"]] = max(unseen[v - 1], 0) / 3


def action_features(s: State, observer: int) -> np.ndarray:
    """``float32[NUM_ACTIONS, NUM_FEATURES]``: the features of every action ``observer``
    may take now (:data:`FEATURES`); all zero when it does not decide.

    Raises:
        ValueError: ``observer`` is not a player of the game.
    """
    players = s.config.num_players
    if not isinstance(observer, (int, np.integer)) or not 0 <= observer < players:
        raise ValueError(f"observer {observer!r} is not allowed; allowed: 0..{players - 1}")
    out = np.zeros((NUM_ACTIONS, NUM_FEATURES), np.float32)
    if s.over or s.decider != observer:
        return out
    actions = legal_actions(s)
    out[actions, _COLUMN["legal"]] = 1.0
    plays = [a for a in actions if ACTIONS[a].kind == "play"]
    if plays and s.phase == Phase.PLAY:
        _play_rows(s, observer, out, plays)
    _prediction_rows(s, observer, out, actions)
    return out
