"""What one observation of the convention's code is worth: the race value and the group's
best reply there.

:func:`~shipwreck_agents.scripted.bayes.race_win` is the value of the race (score against
doom, kept beside the Bayesian group that also uses it); :func:`group_questions`
lists the question powers the group may use after a play; :class:`Outcomes` holds one
observation's race values if the group passes, names the kept fate right or wrong, or
asks a question first (or uses Sorrows), and the best of them. The code's lines of play
(:mod:`shipwreck_agents.convention.lines`) show such observations; the codebook over
them is :mod:`shipwreck_agents.convention.codebook`. Every input is public.
"""

from __future__ import annotations

from operator import itemgetter

from shipwreck_agents.convention.ahead import (
    ahead_value,
)
from shipwreck_agents.scripted.bayes import race_win
from shipwreck_env.rules.cards import CARDS
from shipwreck_env.rules.questions import QUESTION_SETS, yes_values
from shipwreck_env.rules.view import TurnStart

__all__ = ["EPS", "Outcomes", "group_questions"]

EPS = 1e-12
"""How much more a value must be to count as more (the codebook's ties)."""


def group_questions(start: TurnStart, played: int, visible: tuple[int, ...]) -> list[tuple]:
    """The yes-sets (kept-value indexes ``v - 1``) of every question power the group may
    use after ``played`` on the turn-start table, plus ``("sorrows",)`` if Sorrows is
    available. Scythes needs another power to pay with. The list returned is shared:
    read it, never change it."""
    # the visible fates matter only to Storms' questions
    key = (start.faded, played, visible if _STORMS & set(start.faded) else None)
    hit = _QUESTIONS.get(key)
    if hit is None:
        if len(_QUESTIONS) > 4096:
            _QUESTIONS.clear()
        hit = _QUESTIONS[key] = _group_questions(start.faded, played, visible)
    return hit


_STORMS = {c for c, card in enumerate(CARDS) if card.power == "storms"}
_QUESTIONS: dict[tuple, list[tuple]] = {}  # group_questions by its inputs (a pure function)


def _group_questions(faded: tuple[int, ...], played: int, visible: tuple[int, ...]) -> list[tuple]:
    powers = [CARDS[c].power for c in faded]
    out: list[tuple] = []
    seen: set[tuple] = set()

    def add(values) -> None:
        yes = tuple(v - 1 for v in range(1, 8) if v in values)
        if 0 < len(yes) < 7 and yes not in seen:
            seen.add(yes)
            out.append(yes)

    for power in dict.fromkeys(powers):
        if power == "saints":
            for x in range(1, 7):
                add(yes_values("saints", x))
        elif power in QUESTION_SETS and (power != "scythes" or len(powers) > 1):
            add(yes_values(power, None))
        elif power == "shackles":
            add(yes_values("shackles", played))
        elif power == "storms":
            for v in sorted(set(visible)):
                add(yes_values("storms", v))
    if "sorrows" in powers:
        out.append(("sorrows",))
    return out


def _race_ahead(
    score: int, doom: int, race: tuple[float, int], ahead: tuple[float, float]
) -> float:
    """:func:`race_win` after a turn whose table forces the next seat's hand with
    probability ``ahead[0]``; such a forced turn is read right with probability
    ``ahead[1]`` (:func:`~shipwreck_agents.convention.ahead.ahead_value`)."""
    now = race_win(score, doom, *race)
    forced, accuracy = ahead
    if forced <= 0 or score >= 7 or doom >= 7:
        return now
    right = race_win(score + 1, doom, *race)
    wrong = race_win(score, doom + 3, *race)  # a wrong guess and a fade
    return ahead_value(now, right, wrong, forced, accuracy)


def _getter(indexes: tuple[int, ...]):
    """A function taking the items at ``indexes`` (in that order) from a list, as a tuple."""
    if len(indexes) == 1:
        i = indexes[0]
        return lambda m: (m[i],)
    return itemgetter(*indexes)


_PREPARED: dict[tuple, list[tuple]] = {}


def _prepared(questions: list[tuple]) -> list[tuple]:
    """(yes-set, its getter, the no-set's getter) of each question but Sorrows, shared
    by every observation asked the same questions."""
    key = tuple(questions)
    hit = _PREPARED.get(key)
    if hit is None:
        if len(_PREPARED) > 4096:
            _PREPARED.clear()
        hit = _PREPARED[key] = [
            (q, _getter(q), _getter(tuple(i for i in range(7) if i not in q)))
            for q in questions
            if q != ("sorrows",)
        ]
    return hit


class Outcomes:
    """The race values of one observation: pass, right, wrong (per unit of mass), and the
    group's question powers there."""

    __slots__ = (
        "ahead",
        "cost",
        "fast",
        "memo",
        "pass_",
        "questions",
        "right",
        "solo",
        "sorrows",
        "spent",
        "tie",
        "wrong",
    )

    def __init__(
        self,
        score: int,
        doom: int,
        fades: int,
        amplified: bool,
        info: float,
        race: tuple[float, int],
        questions: list[tuple],
        cost: float,
        spent: bool = False,
        ahead: tuple[float, float] = (0.0, 0.0),
        tie: float = 0.0,
    ) -> None:
        # the group's reply is chosen by this turn alone, as the group plays
        self.pass_ = race_win(score, doom + fades, *race) + info
        self.right = race_win(score + 1 + amplified, doom, *race)
        self.wrong = race_win(score, doom + 1 + fades, *race)
        # (right, wrong, pass) with the look-ahead: what the reply is worth to the team
        self.ahead: tuple[float, float, float] | None = None
        if ahead[0] > 0:
            self.ahead = (
                _race_ahead(score + 1 + amplified, doom, race, ahead),
                _race_ahead(score, doom + 1 + fades, race, ahead),
                _race_ahead(score, doom + fades, race, ahead) + info,
            )
        self.questions = _prepared(questions)
        self.sorrows = ("sorrows",) in questions
        self.cost = cost
        self.spent = spent  # the player used a faded power: it costs, and no group power
        self.tie = tie  # a price per unit of mass on the table this line leaves
        self.fast = self.ahead is None and not spent and not tie  # group() is best()
        self.solo: list[float] | None = None
        # group() and payoffs() are pure functions of the mass; the codebook asks for the
        # same masses again and again (every sweep re-reads the unchanged observations)
        self.memo: dict[tuple, object] = {}

    def _value(self, total: float, top: float) -> float:
        """Best of naming (``top`` mass right) and passing, for mass ``total``."""
        predict = top * (self.right - self.wrong) + total * self.wrong
        passing = total * self.pass_
        return predict if predict > passing else passing

    def _plain(self, m: list[float], guesses: int = 1) -> float:
        top = max(m) if guesses == 1 else sum(sorted(m)[-guesses:])
        return self._value(sum(m), top)

    def _best(self, m: list[float]) -> tuple[float, object]:
        # _value inlined (the hot path of the codebook); the same arithmetic, in the same order
        right, wrong, pass_ = self.right, self.wrong, self.pass_
        gap = right - wrong
        total = sum(m)
        predict = max(m) * gap + total * wrong
        passing = total * pass_
        best, how = predict if predict > passing else passing, None
        if not (self.questions or self.sorrows) or total <= 0:
            return best, how
        price = self.cost * total
        if best >= total * max(right, pass_) - price:
            return best, how  # no answer can do better than knowing the fate
        for yes, get_yes, get_no in self.questions:
            part = get_yes(m)
            mass = sum(part)
            predict = max(part) * gap + mass * wrong
            passing = mass * pass_
            value = predict if predict > passing else passing
            part = get_no(m)
            mass = sum(part)
            predict = max(part) * gap + mass * wrong
            passing = mass * pass_
            value = value + (predict if predict > passing else passing) - price
            if value > best + EPS:
                best, how = value, yes
        if self.sorrows:
            value = self._plain(m, 2) - price
            if value > best + EPS:
                best, how = value, "sorrows"
        return best, how

    def group(self, m: list[float]) -> float:
        """Value of the group's best reply to mass ``m`` (by kept value), with the
        look-ahead if there is one (the reply itself is chosen by this turn alone)."""
        if self.fast:
            return self.best(m)[0]
        key = (None, *m)
        hit = self.memo.get(key)
        if hit is None:
            if self.ahead is not None:
                hit = sum(w * v for w, v in zip(m, self.payoffs(m), strict=True))
            elif self.spent:
                hit = self._plain(m) - (self.cost + self.tie) * sum(m)
            else:
                hit = self.best(m)[0] - self.tie * sum(m)
            self.memo[key] = hit
        return hit  # type: ignore[return-value]

    def best(self, m: list[float]) -> tuple[float, object]:
        """The group's best reply to mass ``m`` by this turn alone: (its value, ``None``
        for a plain pass or name, else the question's yes-set or ``"sorrows"``)."""
        key = tuple(m)
        hit = self.memo.get(key)
        if hit is None:
            hit = self.memo[key] = self._best(m)
        return hit  # type: ignore[return-value]

    def _reply_vector(
        self, m: list[float], guesses: int, out: list[float], ks, values: tuple | None = None
    ) -> None:
        """Write into ``out[k]`` (k in ``ks``) what kept value k + 1 gets from the plain
        reply (pass, or name the ``guesses`` likeliest values) to ``m``, valued by
        ``values`` = (right, wrong, pass) (default: this object's race values)."""
        right, wrong, pass_ = values or (self.right, self.wrong, self.pass_)
        total = sum(m)
        if guesses == 1:
            top = max(m)
            named: tuple[int, ...] = (m.index(top),)
        else:
            named = tuple(sorted(range(7), key=lambda i: -m[i])[:guesses])
            top = sum(m[i] for i in named)
        if top * (self.right - self.wrong) + total * self.wrong > total * self.pass_:
            for k in ks:
                out[k] = right if k in named else wrong
        else:
            for k in ks:
                out[k] = pass_

    def payoffs(self, m: list[float], now: bool = False) -> list[float]:
        """What a hand keeping k = 1..7 gets from the group's best reply to mass ``m``
        (index k - 1); an empty ``m`` is read as that hand alone. The reply is chosen
        by this turn alone and valued with the look-ahead, unless ``now``. The list
        returned is shared: read it, never change it."""
        key = (now, *m)
        hit = self.memo.get(key)
        if hit is None:
            hit = self._payoffs(m, now)
            if self.tie and not now:
                hit = [v - self.tie for v in hit]
            self.memo[key] = hit
        return hit  # type: ignore[return-value]

    def _payoffs(self, m: list[float], now: bool) -> list[float]:
        values = None if now else self.ahead
        if sum(m) <= 0:
            if values is not None:
                right, _, pass_ = values
                sure = right if self.right > self.pass_ else pass_
                return [sure - (self.cost if self.spent else 0.0)] * 7
            if self.solo is None:  # the group would know the kept fate: no power helps
                sure = self.right if self.right > self.pass_ else self.pass_
                self.solo = [sure - (self.cost if self.spent else 0.0)] * 7
            return self.solo
        how = None if self.spent else self.best(m)[1]
        if how is None and not self.spent:
            # _reply_vector(m, 1, out, range(7), values) written out: the commonest case
            right, wrong, pass_ = values or (self.right, self.wrong, self.pass_)
            total = sum(m)
            top = max(m)
            if top * (self.right - self.wrong) + total * self.wrong > total * self.pass_:
                out = [wrong] * 7
                out[m.index(top)] = right
                return out
            return [pass_] * 7
        out = [0.0] * 7
        if how is None:
            self._reply_vector(m, 1, out, range(7), values)
        elif how == "sorrows":
            self._reply_vector(m, 2, out, range(7), values)
        else:
            no = [i for i in range(7) if i not in how]
            self._reply_vector([m[i] if i in how else 0.0 for i in range(7)], 1, out, how, values)
            self._reply_vector([0.0 if i in how else m[i] for i in range(7)], 1, out, no, values)
        return [v - self.cost for v in out]
