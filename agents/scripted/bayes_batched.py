"""The Bayesian group (:mod:`shipwreck_agents.scripted.bayes`) deciding for many games at once,
on the batched engine's arrays.

:class:`BatchedBayes` returns, for each game asked about, exactly the action
``BayesGroup().act`` returns there (the differential test ``tests/agents/test_vector_bayes.py``
checks it at every group decision of many random games). Its compiled kernel does what
the Python group does, in the same floating-point order:

* the posterior over the active seat's kept fate: for every hand the active player
  could have drawn (and every third fate of The Feast), a scratch game of one row is
  set to the turn's public start (the ``ts_*`` arrays) with that hand, the active
  player's actions of this turn are replayed in it with the batched engine's own rules
  (``engine._step_one``), each scored by the heuristic player's batched decision
  (``vector_heuristic._decide``) mixed with epsilon uniform, and the hand is kept only
  if the scratch game's announcements are a prefix of the real ones. The Feast's forced
  draw is made by choosing the scratch game's position in its random stream so that
  the engine's own draw picks the forced value;
* the memory across turns (``BayesGroup._likelihood``: what each player concluded about
  each seat's kept fate) and the one-entry posterior cache live in arrays owned by this
  object, one row per game place, reset when a game restarts; :meth:`to_policy` and
  :meth:`from_policy` move them to and from a ``BayesGroup`` so that a checkpoint is the
  same plain data as the Python group's;
* the decision: race values, the predict-or-pass rule and the power rule.

What it reads is what the deciding player may know: the turn's public start and
actions, its own seats' fates, the public table and announcements. It never reads the
active seat's hand or the bag (a twin test checks it).

Must not: import anything from ``training``; change the arrays of the games it reads
(it writes only its scratch game and its own memory).
"""

from __future__ import annotations

import numba
import numpy as np

from shipwreck_agents.scripted import bayes as _bayes
from shipwreck_agents.scripted import heuristic_batched as _vector_heuristic
from shipwreck_agents.scripted.bayes import _COST_ORDER, BayesGroup, race_value
from shipwreck_agents.scripted.heuristic import HeuristicPlayer
from shipwreck_agents.scripted.heuristic_batched import _decide, _doom, _fading_with
from shipwreck_env.rules.actions import ACTIONS, NUM_ACTIONS, PASS, predict_action
from shipwreck_env.rules.questions import QUESTIONS, yes_values
from shipwreck_env.rules.state import Phase
from shipwreck_env.vector import jit as _jit
from shipwreck_env.vector import tables as t
from shipwreck_env.vector.arrays import EVENT, Arrays
from shipwreck_env.vector.chance import uniform_at
from shipwreck_env.vector.engine import _step_one, legal_masks
from shipwreck_env.vector.jit import pack, rules_for
from shipwreck_env.vector.ops import event
from shipwreck_env.vector.turn_start import reset_turn as _reset_turn

__all__ = ["BatchedBayes"]


# The kernel compiles in the batched engine's rules and the batched heuristic: its cached
# machine code must go stale when they change, not only when this file does.
_jit.stamp_cache(__file__, depends=(_vector_heuristic.__file__, _bayes.__file__))
_njit = numba.njit(cache=True, nogil=True)

GROUP_PHASE, VOTE_PHASE, COST_PHASE, PLAY_PHASE = Phase.GROUP, Phase.VOTE, Phase.COST, Phase.PLAY
DRAW_EVENT, REVEAL_EVENT = EVENT["draw"], EVENT["reveal"]
FEAST, PLAY_KIND = t.FEAST, 0
SCIONS, SANDS, ASH, FALL, IMAGO = t.P["scions"], t.P["sands"], t.ASH, t.FALL, t.IMAGO


def _action_tables() -> tuple[np.ndarray, ...]:
    """Per action: what the group's power rule does with it (0 nothing, 1 Sorrows,
    2 Scions, 3 a question, 4 Shackles), Scythes' extra cost, the question's yes mask
    by Shadows, Shackles' yes mask by played value and Shadows, and the cost rank."""
    code = np.zeros(NUM_ACTIONS, np.int64)
    scythes = np.zeros(NUM_ACTIONS, np.bool_)
    yes = np.zeros((NUM_ACTIONS, 2), np.int64)
    for a, spec in enumerate(ACTIONS):
        if spec.kind != "power":
            continue
        if spec.power == "sorrows":
            code[a] = 1
        elif spec.power == "scions":
            code[a] = 2
        elif spec.power == "shackles":
            code[a] = 4
        elif spec.power in QUESTIONS:
            code[a] = 3
            for shadow in (0, 1):
                for v in yes_values(spec.power, spec.value, bool(shadow)):
                    yes[a, shadow] |= 1 << (v - 1)
        scythes[a] = spec.power == "scythes"
    shackles = np.zeros((8, 2), np.int64)
    for played in range(1, 8):
        for shadow in (0, 1):
            for v in yes_values("shackles", played, bool(shadow)):
                shackles[played, shadow] |= 1 << (v - 1)
    rank = np.full(NUM_ACTIONS, len(_COST_ORDER), np.int64)
    for a, spec in enumerate(ACTIONS):
        if spec.power in _COST_ORDER:
            rank[a] = _COST_ORDER.index(spec.power)
    is_power = np.array([spec.kind == "power" for spec in ACTIONS], np.bool_)
    predict = np.array([predict_action(v) for v in range(1, 8)], np.int64)
    return code, scythes, yes, shackles, rank, is_power, predict


_TABLES = _action_tables()


# --- the decision ----------------------------------------------------------------------


_race = _njit(race_value)


@_njit
def _sum(x) -> float:
    total = 0.0
    for v in range(len(x)):
        total += x[v]
    return total


@_njit
def _predict_value(st, g, score, doom, post, guesses, fades, info, order) -> tuple:
    """``BayesGroup._predict_value``: (value of the best choice, value guessed or 0)."""
    attached, attached_len, card_power = st[2], st[3], st[9]
    doom_fades = _doom(st, g, fades)
    amplified = 0
    for slot in range(4):
        if fades >> slot & 1:
            for i in range(attached_len[g, slot]):
                if card_power[attached[g, slot, i]] == SANDS:
                    amplified = 1
    pass_value = _race(score, doom + doom_fades) + info
    if guesses <= 0 or _sum(post) <= 0:
        return pass_value, 0
    for i in range(7):  # a stable sort on -post
        order[i] = i
    for i in range(1, 7):
        j = i
        while j > 0 and -post[order[j - 1]] > -post[order[j]]:
            order[j - 1], order[j] = order[j], order[j - 1]
            j -= 1
    p_right = 0.0
    for i in range(min(guesses, 7)):
        p_right += post[order[i]]
    right = _race(score + 1 + amplified, doom)
    wrong = _race(score, doom + 1 + doom_fades)
    value = p_right * right + (1 - p_right) * wrong
    if value > pass_value:
        return value, order[0] + 1
    return pass_value, 0


@_njit
def _group(st, s_shadows, g, mask, score, doom, guesses, post, info, pcost, tabs, work):
    """``BayesGroup._group`` on the posterior ``post``."""
    code, scythes, yes, shackles, _, is_power, predict = tabs
    plays, plays_len = st[4], st[5]
    order, part = work[0], work[1]
    fades = _fading_with(st, g, -1, 0, -1, 0, -1)
    base, guess = _predict_value(st, g, score, doom, post, guesses, fades, info, order)
    shadow = 1 if s_shadows[g] else 0
    best, best_gain = -1, pcost
    for a in range(NUM_ACTIONS):
        if not mask[g, a] or not is_power[a]:
            continue
        c = code[a]
        if c == 1:
            value = _predict_value(st, g, score, doom, post, guesses + 1, fades, info, order)[0]
        elif c == 2:
            slot = st[10][a]
            if not fades >> slot & 1:
                value = -1.0
            else:
                slowed = _fading_with(st, g, -1, 0, -1, 0, slot)
                value = _predict_value(st, g, score, doom, post, guesses, slowed, info, order)[0]
        elif c == 3 or (c == 4 and plays_len[g] > 0):
            bits = yes[a, shadow] if c == 3 else shackles[plays[g, plays_len[g] - 1, 0], shadow]
            value = 0.0
            for answer in range(2):
                for v in range(7):
                    hit = (bits >> v & 1) == 1
                    part[v] = post[v] * (1.0 if hit == (answer == 0) else 0.0)
                mass = _sum(part)
                if mass > 0:
                    for v in range(7):
                        part[v] = part[v] / mass
                    got = _predict_value(st, g, score, doom, part, guesses, fades, info, order)[0]
                    value += mass * got
            if scythes[a]:
                value -= pcost
        else:
            value = -1.0
        gain = value - base
        if gain > best_gain:
            best, best_gain = a, gain
    if best >= 0:
        return best
    if guess and mask[g, predict[guess - 1]]:
        return predict[guess - 1]
    return PASS


# --- the replay of a turn on a hypothetical hand ------------------------------------


@_njit
def _hypothesis(s, h, r, g, seat, hand0, hand1, carried) -> None:
    """Scratch game 0 of ``h`` := the public start of game ``g``'s turn with ``seat``
    holding ``(hand0, hand1)`` (``hand0`` carried if ``carried``) and no other hidden
    fate (``scenario.hypothetical_turn_start``)."""
    m = h.deck.shape[1]
    for i in range(m):
        h.deck[0, i] = -1
        h.faded[0, i] = s.ts_faded[g, i]
        h.ts_faded[0, i] = s.ts_faded[g, i]
    h.deck_head[0] = 0
    top = s.ts_deck_top[g]
    h.deck_len[0] = s.ts_deck_len[g] if top >= 0 else 0
    if top >= 0:
        h.deck[0, 0] = top
    h.faded_len[0] = s.ts_faded_len[g]
    h.ts_faded_len[0] = s.ts_faded_len[g]
    h.fcount[0, :] = 0
    for i in range(s.ts_faded_len[g]):
        h.fcount[0, r.card_power[s.ts_faded[g, i]]] += 1
    for v in range(7):
        h.exiled[0, v] = s.ts_exiled[g, v]
        h.ts_exiled[0, v] = s.ts_exiled[g, v]
        h.bag[0, v] = 3 - s.ts_exiled[g, v]
        h.bag_known[0, v] = 0
    for slot in range(4):
        h.slots[0, slot] = s.ts_slots[g, slot]
        h.ts_slots[0, slot] = s.ts_slots[g, slot]
        h.sands_waiting[0, slot] = s.ts_sands[g, slot]
        h.ts_sands[0, slot] = s.ts_sands[g, slot]
        n = s.ts_table_len[g, slot]
        h.table_len[0, slot] = n
        h.ts_table_len[0, slot] = n
        for v in range(7):
            h.tcount[0, slot, v] = 0
        for i in range(h.table.shape[2]):
            value = s.ts_table[g, slot, i]
            h.table[0, slot, i] = value
            h.ts_table[0, slot, i] = value
            if i < n:
                h.tcount[0, slot, value - 1] += 1
                h.bag[0, value - 1] -= 1
        h.attached_len[0, slot] = s.ts_attached_len[g, slot]
        h.ts_attached_len[0, slot] = s.ts_attached_len[g, slot]
        for i in range(h.attached.shape[2]):
            h.attached[0, slot, i] = s.ts_attached[g, slot, i]
            h.ts_attached[0, slot, i] = s.ts_attached[g, slot, i]
    h.bag[0, hand0 - 1] -= 1
    h.bag[0, hand1 - 1] -= 1
    for other in range(h.hands.shape[1]):
        h.hands[0, other, 0] = 0
        h.hands[0, other, 1] = 0
        h.hand_len[0, other] = 0
        h.lines[0, other] = s.ts_lines[g, other]
        h.ts_lines[0, other] = s.ts_lines[g, other]
        h.ts_hand_len[0, other] = s.ts_hand_len[g, other]
    h.ts_deck_top[0] = s.ts_deck_top[g]
    h.ts_deck_len[0] = s.ts_deck_len[g]
    h.score[0] = s.ts_score[g]
    h.doom[0] = s.ts_doom[g]
    h.turn[0] = s.ts_turn[g]
    h.ts_score[0] = s.ts_score[g]
    h.ts_doom[0] = s.ts_doom[g]
    h.ts_turn[0] = s.ts_turn[g]
    h.over[0] = False
    h.won[0] = False
    h.truncated[0] = False
    h.events_len[0, 0] = 0
    h.events_len[0, 1] = 0
    if carried:
        h.hands[0, seat, 0] = hand0
        h.hand_len[0, seat] = 1
    _reset_turn(h, r, 0, seat)
    h.hands[0, seat, 0] = hand0
    h.hands[0, seat, 1] = hand1
    h.hand_len[0, seat] = 2
    event(h, 0, DRAW_EVENT, seat, 1 if carried else 2, -1, -1)
    h.key[0] = s.key[g]
    h.draws[0] = 0


@_njit
def _force_draw(h, r, action, extra) -> bool:
    """Before ``action`` (a play on The Feast) in scratch game 0: set its place in its
    random stream so that the engine's draw picks ``extra`` (``scenario.ForcedDraws``);
    False if the bag cannot give it."""
    bag = np.zeros(7, np.int64)
    total = 0
    for v in range(7):
        bag[v] = h.bag[0, v]
        total += bag[v]
    if total == 0:  # the draw takes the table back first (the played fate included)
        for slot in range(4):
            for v in range(7):
                bag[v] += h.tcount[0, slot, v]
                total += h.tcount[0, slot, v]
        bag[r.action_value[action] - 1] += 1
        total += 1
    if extra <= 0 or bag[extra - 1] <= 0:
        return False
    below = 0
    for v in range(extra - 1):
        below += bag[v]
    counter = np.uint64(0)
    while True:
        pick = int(uniform_at(h.key[0], counter) * total)
        if below <= pick < below + bag[extra - 1]:
            h.draws[0] = counter
            return True
        counter += np.uint64(1)


@_njit
def _visible(h, vis_mask, vis_sum4) -> None:
    """The heuristic kernel's two table summaries for scratch game 0."""
    bits = 0
    total = 0
    for v in range(7):
        n = 0
        for slot in range(4):
            n += h.tcount[0, slot, v]
        if n > 0:
            bits |= 1 << v
        total += n * (v + 1)
    vis_mask[0] = bits
    vis_sum4[0] = total & 3


@_njit
def _replay(s, h, r, hk, g, seat, hand0, hand1, carried, extra, eps, players, model) -> tuple:
    """``BayesGroup._replay``: (kept, likelihood), kept 0 if the hand cannot produce
    what was seen."""
    sh, ch, tabsh, hmask, counts, unseen = hk
    _hypothesis(s, h, r, g, seat, hand0, hand1, carried)
    likelihood = 1.0
    forced = False
    for i in range(s.turn_actions_len[g]):
        action = s.turn_actions[g, i]
        if h.decider[0] != h.active[0] % players or h.over[0]:
            break
        legal_masks(h, r, hmask)
        if not hmask[0, action]:
            return 0, 0.0
        n = 0
        for a in range(hmask.shape[1]):
            n += hmask[0, a]
        _visible(h, ch[6], ch[7])
        chosen = _decide(sh, ch, tabsh, 0, hmask, players, model[0], model[1], counts, unseen)
        likelihood *= (1 - eps) * (chosen == action) + eps / n
        feast = (
            h.phase[0] == PLAY_PHASE
            and r.action_kind[action] == PLAY_KIND
            and r.action_slot[action] < 4
            and h.slots[0, r.action_slot[action]] == FEAST
            and not h.feast_done[0]
        )
        before = h.draws[0]
        if feast:
            if forced or not _force_draw(h, r, action, extra):
                return 0, 0.0
            forced = True
            before = h.draws[0]
        _step_one(h, r, 0, action)
        drawn = h.draws[0] - before
        if drawn > (1 if feast else 0):
            return 0, 0.0  # a draw the hypothesis does not give
    cur, real = h.events_cur[0], s.events_cur[g]
    n = h.events_len[0, cur]
    if n > s.events_len[g, real]:
        return 0, 0.0
    for i in range(n):
        for k in range(5):
            if h.events[0, cur, i, k] != s.events[g, real, i, k]:
                return 0, 0.0  # an announcement came out differently
    if h.hand_len[0, seat] != 1:
        return 0, 0.0
    return h.hands[0, seat, 0], likelihood


# --- the posterior ---------------------------------------------------------------------


@_njit
def _pool_at_start(s, g, player, players, pool) -> None:
    """``bayes._pool_at_start``: copies ``player`` could not see at the turn's start."""
    for v in range(7):
        pool[v] = 3 - s.ts_exiled[g, v]
    for slot in range(4):
        for i in range(s.ts_table_len[g, slot]):
            pool[s.ts_table[g, slot, i] - 1] -= 1
    for seat in range(player, s.hands.shape[1], players):
        for i in range(s.hand_len[g, seat]):
            pool[s.hands[g, seat, i] - 1] -= 1
    cur = s.events_cur[g]
    for i in range(s.events_len[g, cur]):
        if s.events[g, cur, i, 0] == REVEAL_EVENT and s.events[g, cur, i, 1] % players == player:
            pool[s.events[g, cur, i, 2] - 1] -= 1
    for v in range(7):
        pool[v] = max(0, pool[v])


@_njit
def _carried_prior(s, g, seat, pool, stored_ok, stored, prior) -> None:
    """``BayesGroup._carried_prior``."""
    line = s.ts_lines[g, seat]
    counts = np.zeros(7)
    for v in range(7):
        counts[v] = float(pool[v]) * (1.0 if line >> v & 1 else 0.0)
    for v in range(7):
        prior[v] = counts[v] * stored[v] if stored_ok else counts[v]
    if _sum(prior) <= 0:
        for v in range(7):
            prior[v] = counts[v]
    total = _sum(prior)
    if total > 0:
        for v in range(7):
            prior[v] = prior[v] / total
    else:
        ones = 0
        for v in range(7):
            ones += line >> v & 1
        for v in range(7):
            prior[v] = (1.0 if line >> v & 1 else 0.0) / max(1, ones)


@_njit
def _model_posterior(s, h, r, hk, g, player, players, seats, eps, model, mem, out) -> None:
    """``BayesGroup._model_posterior`` into ``out``."""
    mem_turn, mem_lik = mem
    seat = s.active[g]
    pool = np.zeros(7, np.int64)
    _pool_at_start(s, g, player, players, pool)
    total = 0
    for v in range(7):
        total += pool[v]
        out[v] = 0.0
    carried = False
    cur = s.events_cur[g]
    for i in range(s.events_len[g, cur]):
        if s.events[g, cur, i, 0] == DRAW_EVENT and s.events[g, cur, i, 2] == 1:
            carried = True
    first = s.plays[g, 0, 0] if s.plays_len[g] > 0 else 0
    feast = s.feast_done[g]
    hands = np.zeros((64, 2), np.int64)
    weights = np.zeros(64)
    k = 0
    if carried:
        prior = np.zeros(7)
        ok = mem_turn[g, player, seat] == s.turn[g] - seats
        _carried_prior(s, g, seat, pool, ok, mem_lik[g, player, seat], prior)
        for c in range(1, 8):
            if prior[c - 1] <= 0:
                continue
            n = total - 1
            for d in range(1, 8):
                rest = pool[d - 1] - (1 if d == c else 0)
                if rest > 0 and n > 0:
                    hands[k, 0], hands[k, 1] = c, d
                    weights[k] = prior[c - 1] * rest / n
                    k += 1
    else:
        for a in range(1, 8):
            for b in range(a, 8):
                same = 1 if a == b else 0
                if pool[a - 1] <= 0 or pool[b - 1] - same <= 0:
                    continue
                p = pool[a - 1] * (pool[b - 1] - same) / (total * (total - 1))
                hands[k, 0], hands[k, 1] = a, b
                weights[k] = p if same else 2 * p
                k += 1
    for i in range(k):
        x, y = hands[i, 0], hands[i, 1]
        if first and first != x and first != y:
            continue
        if feast:
            n = total - 2
            for e in range(1, 8):
                rest = pool[e - 1] - (1 if e == x else 0) - (1 if e == y else 0)
                if rest > 0:
                    kept, lik = _replay(s, h, r, hk, g, seat, x, y, carried, e, eps, players, model)
                    if kept > 0:
                        out[kept - 1] += weights[i] * (rest / n) * lik
        else:
            kept, lik = _replay(s, h, r, hk, g, seat, x, y, carried, 0, eps, players, model)
            if kept > 0:
                out[kept - 1] += weights[i] * 1.0 * lik


@_njit
def _posterior(s, h, r, hk, g, player, players, seats, eps, model, mem, cache, post) -> None:
    """``BayesGroup.posterior`` into ``post`` (and the memory it updates)."""
    mem_turn, mem_lik = mem
    cache_key, cache_val = cache
    seat = s.active[g]
    if s.hand_len[g, seat] != 1:
        for v in range(7):
            post[v] = 0.0
        return
    key_turn, key_len = s.turn[g], s.turn_actions_len[g]
    hit = (
        cache_key[g, 0] == player
        and cache_key[g, 1] == key_turn
        and cache_key[g, 2] == seat
        and cache_key[g, 3] == key_len
    )
    if not hit:
        _model_posterior(s, h, r, hk, g, player, players, seats, eps, model, mem, cache_val[g])
        cache_key[g, 0], cache_key[g, 1], cache_key[g, 2], cache_key[g, 3] = (
            player, key_turn, seat, key_len,
        )  # fmt: skip
    line = s.lines[g, seat]
    unseen = np.zeros(7)
    for v in range(7):
        unseen[v] = 3 - s.exiled[g, v] - s.bag_known[g, v]
        for slot in range(4):
            unseen[v] -= s.tcount[g, slot, v]
    for own in range(player, s.hands.shape[1], players):
        for i in range(s.hand_len[g, own]):
            unseen[s.hands[g, own, i] - 1] -= 1.0
    for v in range(7):
        post[v] = cache_val[g, v] * (1.0 if line >> v & 1 else 0.0)
    total = _sum(post)
    if total <= 0:  # knowledge.literal_posterior
        for v in range(7):
            post[v] = (1.0 if line >> v & 1 else 0.0) * max(unseen[v], 0.0)
        weight = _sum(post)
        if weight <= 0:
            for v in range(7):
                post[v] = 1.0 if line >> v & 1 else 0.0
            weight = _sum(post)
        for v in range(7):
            post[v] = post[v] / weight if weight > 0 else 1 / 7
        total = _sum(post)
    for v in range(7):
        post[v] = post[v] / total
    mem_turn[g, player, seat] = key_turn
    for v in range(7):
        mem_lik[g, player, seat, v] = post[v] / max(unseen[v], 1e-9)


@_njit
def _act_all(s, h, r, hk, st, games, mask, params, model, mem, cache, tabs, out) -> None:
    """``BayesGroup.act`` in every game ``games`` (none the active player's)."""
    players, seats = r.config[t.C_PLAYERS], r.config[t.C_SEATS]
    eps, info, pcost = params
    post = np.zeros(7)
    order = np.zeros(7, np.int64)
    part = np.zeros(7)
    rank = tabs[4]
    for i in range(len(games)):
        g = games[i]
        first = -1
        for a in range(NUM_ACTIONS):
            if mask[g, a]:
                first = a
                break
        phase = s.phase[g]
        if phase == COST_PHASE:
            best, best_rank = first, len(rank)
            for a in range(NUM_ACTIONS):  # the last legal action of the cheapest power
                if mask[g, a] and rank[a] <= best_rank and rank[a] < len(rank):
                    best, best_rank = a, rank[a]
            out[i] = best
        elif phase in (GROUP_PHASE, VOTE_PHASE):
            player = s.decider[g]
            _posterior(s, h, r, hk, g, player, players, seats, eps, model, mem, cache, post)
            out[i] = _group(
                st, s.shadows, g, mask, s.score[g], s.doom[g], s.preds_left[g], post, info,
                pcost, tabs, (order, part),
            )  # fmt: skip
        else:
            out[i] = PASS if mask[g, PASS] else first


# --- the Python side ---------------------------------------------------------------------

_NO_TURN = -(10**9)  # a stored likelihood's turn that matches no turn


class _Scratch:
    """One game of a batch's kind for replaying turns, and its heuristic-kernel views."""

    def __init__(self, config, num_cards: int, cards: np.ndarray) -> None:
        self.arrays = a = Arrays(1, config, num_cards)
        self.ref = pack(a)
        self.rules = rules_for(config, cards)
        self.mask = np.zeros((1, NUM_ACTIONS), np.bool_)
        vis = np.zeros(1, np.int64), np.zeros(1, np.int64)
        self.kernel = (
            _table_view(a),
            (t.KEPT, t.CARD_KIND, a.feast_done, a.shadows, a.lines, a.active, *vis),
            (
                a.phase, a.hands, a.hand_len, a.exiled, a.bag_known, a.old_fate, a.line_fresh,
                a.line_tracked, a.events, a.events_len, a.events_cur,
                t.ACTION_KIND, t.ACTION_VALUE, t.ACTION_SLOT, t.ACTION_POWER,
            ),
            self.mask,
            np.zeros(7),
            np.zeros(7),
        )  # fmt: skip


def _table_view(a: Arrays) -> tuple:
    """What fading and doom read of ``a`` (the heuristic kernel's ``s`` tuple), and the
    action slots."""
    return (
        a.slots, a.tcount, a.attached, a.attached_len, a.plays, a.plays_len, a.fall_fading,
        t.HOURS_OF, t.CARD_MOONS, t.CARD_POWER_OF, t.ACTION_SLOT,
    )  # fmt: skip


class BatchedBayes:
    """``BayesGroup`` for ``num_games`` game places, deciding on batched arrays.

    Args:
        num_games: game places (their memory rows).
        num_players, num_seats: of the games.
        group: the Python group whose parameters (epsilon, info value, power cost, its
            heuristic model's weights) are used; default ``BayesGroup()``.
    """

    def __init__(
        self, num_games: int, num_players: int, num_seats: int, group: BayesGroup | None = None
    ) -> None:
        group = group if group is not None else BayesGroup()
        if type(group.model) is not HeuristicPlayer:
            raise ValueError(
                f"model {type(group.model).__name__} is not allowed for the batched group; "
                "allowed: HeuristicPlayer"
            )
        if group.accuracy > 0:
            raise ValueError(
                f"accuracy {group.accuracy!r} is not allowed for the batched group; allowed: 0 "
                "(the rough race value)"
            )
        if group.race_table is not None:
            raise ValueError(
                f"race table {group.race_table.source!r} is not allowed for the batched group; "
                "allowed: none (the rough race value)"
            )
        self.params = (float(group.epsilon), float(group.info_value), float(group.power_cost))
        self.model = (float(group.model.doom_weight), float(group.model.power_margin))
        self.num_players, self.num_seats = num_players, num_seats
        self.mem_turn = np.full((num_games, num_players, num_seats), _NO_TURN, np.int64)
        self.mem_lik = np.zeros((num_games, num_players, num_seats, 7))
        self.cache_key = np.full((num_games, 4), _NO_TURN, np.int64)
        self.cache_val = np.zeros((num_games, 7))
        self._scratch: dict = {}
        self._packed: dict = {}

    def restart(self, places: np.ndarray) -> None:
        """The games in ``places`` restarted: forget them (``BayesGroup.reset``)."""
        self.mem_turn[places] = _NO_TURN
        self.mem_lik[places] = 0.0
        self.cache_key[places] = _NO_TURN
        self.cache_val[places] = 0.0

    def act(
        self, arrays: Arrays, cards: np.ndarray, games: np.ndarray, mask: np.ndarray, first: int
    ) -> np.ndarray:
        """The group's action in games ``games`` of ``arrays`` (places ``first + games``).

        Args:
            arrays: the games (``VectorGame.arrays``); only read.
            cards: the games' card numbers (``VectorGame.cards``).
            games: int[K] indexes of games whose decider is not the active player.
            mask: bool[N, 259] legal actions.
            first: the place of game 0 of ``arrays`` (its memory row).
        """
        from shipwreck_env.rules.engine import IllegalActionError

        games = np.ascontiguousarray(games, np.int64)
        players = arrays.config.num_players
        active = arrays.active[games].astype(np.int64) % players
        wrong = games[arrays.decider[games].astype(np.int64) == active]
        if len(wrong):
            raise ValueError(
                f"games {wrong.tolist()} wait for the active player; allowed: games whose "
                "decider is another player (the group's decisions)"
            )
        key = (arrays.config, arrays.num_cards)
        scratch = self._scratch.get(key)
        if scratch is None:
            scratch = self._scratch[key] = _Scratch(arrays.config, arrays.num_cards, cards)
        ref = self._packed.get(id(arrays))
        if ref is None or ref[0] is not arrays:
            ref = self._packed[id(arrays)] = (arrays, pack(arrays))
        n = arrays.num_games
        mem = (self.mem_turn[first : first + n], self.mem_lik[first : first + n])
        cache = (self.cache_key[first : first + n], self.cache_val[first : first + n])
        out = np.empty(len(games), np.int64)
        _act_all(
            ref[1], scratch.ref, scratch.rules, scratch.kernel, _table_view(arrays), games,
            mask, self.params, self.model, mem, cache, _TABLES, out,
        )  # fmt: skip
        bad = ~mask[games, out]
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise IllegalActionError(
                f"the batched group chose action {int(out[k])} in game {int(games[k])}, "
                f"which is not legal; legal: {np.flatnonzero(mask[games[k]]).tolist()}"
            )
        return out

    def to_policy(self, place: int, group: BayesGroup) -> None:
        """Write place ``place``'s memory into ``group`` (as ``BayesGroup`` keeps it)."""
        group._likelihood = {
            (p, s): (int(self.mem_turn[place, p, s]), self.mem_lik[place, p, s].copy())
            for p in range(self.num_players)
            for s in range(self.num_seats)
            if self.mem_turn[place, p, s] != _NO_TURN
        }
        key = self.cache_key[place]
        group._cache = (
            {tuple(int(k) for k in key): self.cache_val[place].copy()} if key[0] != _NO_TURN else {}
        )

    def from_policy(self, place: int, group: BayesGroup) -> None:
        """Read place ``place``'s memory from ``group`` (:meth:`to_policy`'s inverse)."""
        self.restart(np.array([place]))
        for (p, s), (turn, lik) in group._likelihood.items():
            self.mem_turn[place, p, s] = turn
            self.mem_lik[place, p, s] = lik
        for key, value in group._cache.items():
            self.cache_key[place] = key
            self.cache_val[place] = value
