"""How the batched rules are compiled: numba, the two structures every compiled rule
takes, and the clear error when numba cannot be used.

The rules (``ops``, ``number_lines``, ``turn_start``, ``plays``, ``predictions``,
``fading``, ``powers``, ``arcana``, ``engine``, ``observe``) are scalar functions over
one game, compiled with numba. The entry points called from Python are
cached on disk (``cache=True``: later processes load the machine code instead of
compiling it). Every compiled rule takes

* ``s``, the arrays of an :class:`~shipwreck_env.vector.arrays.Arrays` (the same
  buffers, not copies), and
* ``r``, the static tables of ``vector.tables`` (built from the reference's own
  tables) and the configuration's numbers (:class:`Rules`),

each as a numba structure reached through one pointer (``pack`` and ``rules_for``
build them). A named tuple of the 90 arrays would be passed as some 500 machine
arguments to every rule and costs about a second of compile time per function.
Nothing is read from module globals inside compiled code, so that the tables a batch
plays by are the ones in ``vector.tables`` when the batch was made.

The rules are compiled without numba's reference counting (``_nrt=False``): with it,
every read of a field (``s.slots``) took and released a reference to the array with
two atomic instructions, and those took about 70% of a step's time (measured with
``perf``). Compiled rules therefore allocate nothing (their work space comes in
``r``), and they reach the structures through :class:`Ref`, a plain pointer to the
structure's fields, instead of numba's own ``StructRef`` (whose field reads need the
reference-counting runtime). The Python objects that own the arrays keep them alive.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections import namedtuple
from typing import NamedTuple

import numpy as np

from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.seating import others_after_table, voters_table
from shipwreck_env.vector.arrays import Arrays

try:
    import numba
    from numba.core import caching, cgutils, event, imputils, types
    from numba.core.typing.templates import AttributeTemplate
    from numba.experimental import structref
    from numba.extending import (
        NativeValue,
        infer_getattr,
        lower_getattr_generic,
        models,
        register_model,
        typeof_impl,
        unbox,
    )
except ImportError as error:  # pragma: no cover - numba is a dependency
    raise ImportError(
        "the batched engine (shipwreck_env.vector) needs numba, which could not be "
        f"imported ({error}); install it with `pip install numba` or use the reference "
        "engine (shipwreck_env.rules.engine)"
    ) from error

__all__ = [
    "COMPILE_NOTICE",
    "GameArrays",
    "Ref",
    "Rules",
    "load_cached",
    "njit",
    "pack",
    "rule",
    "rules_for",
    "rules_tuple",
    "stamp_cache",
]

_HERE = os.path.dirname(os.path.abspath(__file__))
_REFERENCE = os.path.join(os.path.dirname(_HERE), "rules")
# Modules whose code or constants are compiled in: the rules here, and the reference
# modules of the action numbers, phases and card counts.
_RULES = (
    "arcana",
    "arrays",
    "chance",
    "engine",
    "fading",
    "jit",
    "number_lines",
    "observe",
    "ops",
    "plays",
    "powers",
    "predictions",
    "single",
    "tables",
    "turn_start",
)
_COMPILED_FROM = sorted(
    [os.path.join(_HERE, f"{name}.py") for name in _RULES]
    + [
        os.path.join(_REFERENCE, f"{name}.py")
        for name in ("actions", "state", "cards", "arcana", "questions", "conditions")
    ]
)


def _sources_stamp() -> str:
    digest = hashlib.sha256()
    for path in _COMPILED_FROM:
        with open(path, "rb") as fh:
            digest.update(path.encode() + b"\0" + fh.read())
    return digest.hexdigest()


_STAMP = _sources_stamp()


def _install_locators(stamp: str, owns) -> None:
    """Put numba cache locators first that stamp the cached code of every file
    ``owns(path)`` accepts with ``stamp`` (in ``NUMBA_CACHE_DIR`` when it is set, else in
    ``__pycache__`` beside the source); other files fall through to numba's own."""

    class Stamped:
        def get_source_stamp(self) -> str:
            return stamp

        @classmethod
        def from_function(cls, py_func, py_file):
            if not owns(os.path.abspath(py_file)):
                return None  # not ours: the other locators decide
            return super().from_function(py_func, py_file)

    user = type("StampedUserLocator", (Stamped, caching.UserProvidedCacheLocator), {})
    in_tree = type("StampedInTreeLocator", (Stamped, caching.InTreeCacheLocator), {})
    caching.CacheImpl._locator_classes[:0] = [user, in_tree]


# numba keeps a cached function while its own source file is unchanged, so a changed
# rule in another module would leave stale machine code in the cache; for the batched
# rules the stamp is the hash of every module they are compiled from.
_install_locators(_STAMP, lambda path: os.path.dirname(path) == _HERE)


def stamp_cache(owner: str, depends: tuple[str, ...] = ()) -> None:
    """Keep the disk cache of the kernels defined in the file ``owner`` (another
    package's, e.g. a batched agent) true to what they compile in: numba alone checks
    only ``owner`` itself, so a kernel that calls compiled code of ``depends`` or of the
    batched rules would keep stale machine code when those change. Their cached code is
    stamped with the contents of ``owner``, ``depends`` and the rules' sources."""
    owner = os.path.abspath(owner)
    digest = hashlib.sha256(_STAMP.encode())
    for path in (owner, *sorted(os.path.abspath(p) for p in depends)):
        with open(path, "rb") as fh:
            digest.update(path.encode() + b"\0" + fh.read())
    _install_locators(digest.hexdigest(), lambda path: path == owner)


_LOG = logging.getLogger("shipwreck_env")
COMPILE_NOTICE = (
    "shipwreck_env: compiling the batched engine for this CPU (once per machine: about a "
    "minute on 2 cores, a few minutes with the batched partners; later processes load it "
    "from numba's cache; `shipwreck-arcana warm` compiles it ahead)"
)
"""The one line a process logs (logger ``shipwreck_env``, level WARNING, so it shows on
stderr without any logging set up) when it starts compiling one of the batched kernels."""
_noticed = False
_probing = 0


class _CompileNotice(event.Listener):
    """Logs :data:`COMPILE_NOTICE` at the first compile of a batched kernel in this
    process (never on a cache hit, never while :func:`load_cached` only looks)."""

    def on_start(self, ev: event.Event) -> None:
        global _noticed
        if _noticed or _probing:
            return
        module = getattr(ev.data["dispatcher"].py_func, "__module__", "") or ""
        if module.startswith(("shipwreck_env", "shipwreck_agents")):
            _noticed = True
            _LOG.warning(COMPILE_NOTICE)

    def on_end(self, ev: event.Event) -> None:
        pass


event.register("numba:compile", _CompileNotice())


class _NotCached(Exception):
    """Raised instead of compiling while :func:`load_cached` looks in the cache."""


def _refuse(*args: object, **kwargs: object) -> None:
    raise _NotCached


def load_cached(dispatcher: object, argtypes: tuple) -> bool:
    """Whether ``dispatcher`` (a cached entry point) has machine code for the argument
    types ``argtypes`` in this process or in its disk cache, which it then loads; never
    compiles (a miss costs reading the cache's index)."""
    global _probing
    argtypes = tuple(argtypes)
    if argtypes in dispatcher.overloads:
        return True
    compiler = dispatcher._compiler
    compiler.compile = _refuse  # numba's own path loads a hit; a miss reaches this
    _probing += 1
    try:
        dispatcher.compile(argtypes)
        return True
    except _NotCached:
        return False
    finally:
        _probing -= 1
        del compiler.compile


def njit(function):
    """Compile ``function``, an entry point called from Python: cached on disk, no
    Python objects, bounds not checked (the rules keep every index in range; the
    differential test is the proof), no reference counting (so no allocation: see the
    module docstring)."""
    return numba.njit(cache=True, nogil=True, error_model="numpy", _nrt=False)(function)


def rule(function):
    """A rule called only from compiled code (compiled into the cached entry points)."""
    return numba.njit(nogil=True, error_model="numpy", _nrt=False)(function)


from llvmlite import ir as _ir  # noqa: E402
from numba.extending import intrinsic  # noqa: E402


@intrinsic
def prefetch(typingctx, array, index):
    """Ask the CPU to bring the cache line of ``array[index, 0, ...]`` (a row's start)
    in ahead of its use; changes nothing."""

    def codegen(context, builder, sig, args):
        aryty = sig.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        indices = [args[1]] + [context.get_constant(types.intp, 0)] * (aryty.ndim - 1)
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, indices, wraparound=False)
        i8p = _ir.IntType(8).as_pointer()
        i32 = _ir.IntType(32)
        fnty = _ir.FunctionType(_ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(1), i32(3), i32(1)])
        return context.get_dummy_value()

    return types.void(array, types.intp), codegen


@intrinsic
def stream8(typingctx, dst, i, src, j):
    """Store the eight float32 ``src[j : j + 8]`` at ``dst[i : i + 8]`` past the cache (a
    non-temporal store: the line is not read first, and does not displace what the
    cache holds); ``dst[i]`` must be 32-byte aligned. Stores like this are ordered only
    by :func:`store_fence`."""

    def codegen(context, builder, sig, args):
        dty, _, sty, _ = sig.args
        vec = _ir.VectorType(_ir.FloatType(), 8)
        d = context.make_array(dty)(context, builder, args[0])
        s_ = context.make_array(sty)(context, builder, args[2])
        dp = cgutils.get_item_pointer(context, builder, dty, d, [args[1]], wraparound=False)
        sp = cgutils.get_item_pointer(context, builder, sty, s_, [args[3]], wraparound=False)
        value = builder.load(builder.bitcast(sp, vec.as_pointer()), align=4)
        store = builder.store(value, builder.bitcast(dp, vec.as_pointer()), align=32)
        store.set_metadata(
            "nontemporal", builder.module.add_metadata([_ir.Constant(_ir.IntType(32), 1)])
        )
        return context.get_dummy_value()

    return types.void(dst, types.intp, src, types.intp), codegen


@intrinsic
def store_fence(typingctx):
    """Order the non-temporal stores before it (:func:`stream8`) before every later
    memory access (a full fence: ``mfence`` on x86, which non-temporal stores obey)."""

    def codegen(context, builder, sig, args):
        builder.fence("seq_cst")
        return context.get_dummy_value()

    return types.void(), codegen


@intrinsic
def copy_row_bytes(typingctx, dst, src, index):
    """``dst[index] = src[index]`` as one copy of the row's bytes, for two C-contiguous
    arrays of the same dtype and row shape that do not overlap (each of a batch's
    arrays has its own place in the buffer). A loop over the row's items copies a byte
    at a time: the compiler cannot rule out that ``dst`` and ``src`` overlap."""
    if not (
        isinstance(dst, types.Array)
        and isinstance(src, types.Array)
        and dst.dtype == src.dtype
        and dst.ndim == src.ndim >= 2
        and dst.layout == src.layout == "C"
    ):
        return None

    def codegen(context, builder, sig, args):
        dty, sty, _ = sig.args
        d = context.make_array(dty)(context, builder, args[0])
        s_ = context.make_array(sty)(context, builder, args[1])
        zero = context.get_constant(types.intp, 0)
        indices = [args[2]] + [zero] * (dty.ndim - 1)
        dptr = cgutils.get_item_pointer(context, builder, dty, d, indices, wraparound=False)
        sptr = cgutils.get_item_pointer(context, builder, sty, s_, indices, wraparound=False)
        row_bytes = builder.extract_value(s_.strides, 0)  # C order: the row's bytes
        cgutils.raw_memcpy(builder, dptr, sptr, row_bytes, 1)
        return context.get_dummy_value()

    return types.void(dst, src, types.intp), codegen


GameArrays = namedtuple(  # type: ignore[misc]
    "GameArrays", Arrays(1, GameConfig(), 1).fields(), module=__name__
)
"""Every array of an ``Arrays``, by the same name, as one tuple numba can take."""


@structref.register
class _StructType(types.StructRef):
    """A numba structure of named arrays (its fields' types as given)."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class _Struct(structref.StructRefProxy):
    """The Python side of a :class:`_StructType` (opaque: only compiled code reads it)."""


structref.define_boxing(_StructType, _Struct)


class _RefType(types.Type):
    """The numba type of a :class:`Ref` to a structure of type ``struct_type``."""

    def __init__(self, struct_type: _StructType) -> None:
        self.struct_type = struct_type
        super().__init__(name=f"Ref({struct_type})")


class Ref:
    """A structure as the compiled rules take it: the address of its fields.

    Holds the structure (and so its arrays) for as long as it lives; compiled code
    reads the fields through the address, without taking references."""

    __slots__ = ("address", "numba_type", "struct")

    def __init__(self, struct: _Struct) -> None:
        self.struct = struct
        self.address = struct._meminfo.data
        self.numba_type = _RefType(numba.typeof(struct))


@typeof_impl.register(Ref)
def _typeof_ref(value: Ref, context: object) -> _RefType:
    return value.numba_type


@register_model(_RefType)
class _RefModel(models.PrimitiveModel):
    """A pointer to the structure's fields (the payload of its ``StructRef``)."""

    def __init__(self, dmm, fe_type):
        payload = dmm.lookup(fe_type.struct_type.get_data_type()).get_value_type()
        super().__init__(dmm, fe_type, payload.as_pointer())


@unbox(_RefType)
def _unbox_ref(typ, obj, c):
    address = c.pyapi.object_getattr_string(obj, "address")
    pointer = c.pyapi.long_as_voidptr(address)
    c.pyapi.decref(address)
    return NativeValue(c.builder.bitcast(pointer, c.context.get_value_type(typ)))


@infer_getattr
class _RefAttribute(AttributeTemplate):
    key = _RefType

    def generic_resolve(self, typ, attr):
        return typ.struct_type.field_dict.get(attr)


@lower_getattr_generic(_RefType)
def _ref_getattr(context, builder, typ, value, attr):
    fields = cgutils.create_struct_proxy(typ.struct_type.get_data_type())(
        context, builder, ref=value
    )
    index = fields._datamodel.get_field_position(attr)
    load = builder.load(fields._get_ptr_by_index(index))
    # The structure's fields (each array's pointer and shape) never change while
    # compiled rules run, so the load is marked invariant: LLVM may then keep a field
    # in a register across the rules' stores into the arrays, which it must otherwise
    # assume could have changed it (every store reloaded the fields it reads next).
    load.set_metadata("invariant.load", builder.module.add_metadata([]))
    field = fields._cast_member_to_value(index, load)
    return imputils.impl_ret_borrowed(context, builder, typ.struct_type.field_dict[attr], field)


def _struct_type(fields: tuple) -> _StructType:
    return _StructType([(name, numba.typeof(value)) for name, value in fields])


_PROTOTYPE = Arrays(1, GameConfig(), 1)
GAME_TYPE = _struct_type(tuple((name, getattr(_PROTOTYPE, name)) for name in GameArrays._fields))


@numba.njit(cache=True)
def _game_struct(t):
    """The structure of the tuple ``t`` of arrays (every field of ``GameArrays``)."""
    s = structref.new(GAME_TYPE)
    s.deck = t.deck
    s.deck_head = t.deck_head
    s.deck_len = t.deck_len
    s.slots = t.slots
    s.table = t.table
    s.table_len = t.table_len
    s.tcount = t.tcount
    s.attached = t.attached
    s.attached_len = t.attached_len
    s.sands_waiting = t.sands_waiting
    s.faded = t.faded
    s.faded_len = t.faded_len
    s.fcount = t.fcount
    s.bag = t.bag
    s.bag_known = t.bag_known
    s.exiled = t.exiled
    s.hands = t.hands
    s.hand_len = t.hand_len
    s.lines = t.lines
    s.score = t.score
    s.doom = t.doom
    s.turn = t.turn
    s.over = t.over
    s.won = t.won
    s.truncated = t.truncated
    s.active = t.active
    s.phase = t.phase
    s.decider = t.decider
    s.queue = t.queue
    s.queue_pos = t.queue_pos
    s.queue_len = t.queue_len
    s.power_used = t.power_used
    s.shadows = t.shadows
    s.feast_done = t.feast_done
    s.played_old = t.played_old
    s.correct = t.correct
    s.old_fate = t.old_fate
    s.kept_eff = t.kept_eff
    s.preds_left = t.preds_left
    s.tracked = t.tracked
    s.line_fresh = t.line_fresh
    s.line_tracked = t.line_tracked
    s.pending_power = t.pending_power
    s.pending_slot = t.pending_slot
    s.pending_value = t.pending_value
    s.fall_kept = t.fall_kept
    s.fall_fading = t.fall_fading
    s.ash_trigger = t.ash_trigger
    s.plays = t.plays
    s.plays_len = t.plays_len
    s.predictions = t.predictions
    s.pred_len = t.pred_len
    s.votes = t.votes
    s.votes_len = t.votes_len
    s.events = t.events
    s.events_len = t.events_len
    s.events_cur = t.events_cur
    s.turn_actions = t.turn_actions
    s.turn_actions_len = t.turn_actions_len
    s.ann_power = t.ann_power
    s.ann_value = t.ann_value
    s.ann_slot = t.ann_slot
    s.ann_answer = t.ann_answer
    s.ann_chalice = t.ann_chalice
    s.ann_reveal = t.ann_reveal
    s.ann_to_slot = t.ann_to_slot
    s.ann_cost = t.ann_cost
    s.ann_exile_slot = t.ann_exile_slot
    s.ann_exile_value = t.ann_exile_value
    s.ann_steal = t.ann_steal
    s.ann_steal_slot = t.ann_steal_slot
    s.ann_steal_value = t.ann_steal_value
    s.ts_slots = t.ts_slots
    s.ts_table = t.ts_table
    s.ts_table_len = t.ts_table_len
    s.ts_attached = t.ts_attached
    s.ts_attached_len = t.ts_attached_len
    s.ts_sands = t.ts_sands
    s.ts_faded = t.ts_faded
    s.ts_faded_len = t.ts_faded_len
    s.ts_deck_top = t.ts_deck_top
    s.ts_deck_len = t.ts_deck_len
    s.ts_exiled = t.ts_exiled
    s.ts_lines = t.ts_lines
    s.ts_hand_len = t.ts_hand_len
    s.ts_score = t.ts_score
    s.ts_doom = t.ts_doom
    s.ts_turn = t.ts_turn
    s.draws = t.draws
    s.key = t.key
    return s


def pack(a: Arrays) -> Ref:
    """The arrays of ``a`` as the structure compiled rules take (the same buffers)."""
    return Ref(_game_struct(GameArrays(*(getattr(a, name) for name in GameArrays._fields))))


STREAM_BLOCK = 16
"""Observations encoded in the cache before they are streamed out, in a big batch."""
MAX_OBSERVATION = 560
"""At least the widest observation of any configuration (5 players with the belief
block: 550 floats; a test keeps it so)."""


class Rules(NamedTuple):
    """The static tables and the configuration one batch plays by (see
    ``vector.tables`` for what each table holds)."""

    kept: np.ndarray
    card_kind: np.ndarray
    card_moons: np.ndarray
    card_power: np.ndarray
    hours_of: np.ndarray
    play_action: np.ndarray
    sinners_action: np.ndarray
    sparrows_action: np.ndarray
    single_action: np.ndarray
    saints_actions: np.ndarray
    skies_action: np.ndarray
    storms_action: np.ndarray
    scions_action: np.ndarray
    sails_action: np.ndarray
    steal_action: np.ndarray
    cost_action: np.ndarray
    card_free_fade: np.ndarray
    action_kind: np.ndarray
    action_value: np.ndarray
    action_slot: np.ndarray
    action_power: np.ndarray
    action_to: np.ndarray
    question_holds: np.ndarray
    shackles_holds: np.ndarray
    others_after: np.ndarray
    """int8[seats, L]: the other players' seats clockwise from each active seat."""
    voters: np.ndarray
    """int8[players, players - 1]: the vote order (the leader first) for each active player."""
    cards: np.ndarray
    """Card numbers of the chosen sets, in card order (what a new game shuffles)."""
    config: np.ndarray
    """int64: see the ``C_*`` indexes of ``vector.tables``."""
    work_u: np.ndarray
    """uint64[len(cards)]: work space of a shuffle (the rules allocate nothing)."""
    work_order: np.ndarray
    """int64[len(cards)]: work space of a shuffle."""
    work_unseen: np.ndarray
    """int64[7]: work space of the observation encoder."""
    work_rows: np.ndarray
    """float32[STREAM_BLOCK * MAX_OBSERVATION]: observations built in the cache before
    they are streamed out (``observe.encode_rows``)."""


def rules_for(config: GameConfig, cards: np.ndarray) -> Ref:
    """:func:`rules_tuple` as the structure compiled rules take (its work space is
    shared: one batch is stepped by one thread at a time)."""
    return Ref(_rules_struct(rules_tuple(config, cards)))


def rules_tuple(config: GameConfig, cards: np.ndarray) -> Rules:
    """The tables and numbers games of ``config`` with the deck ``cards`` play by (read
    from ``vector.tables`` now)."""
    from shipwreck_env.vector import tables as t

    numbers = np.zeros(t.C_SIZE, np.int64)
    numbers[t.C_PLAYERS] = config.num_players
    numbers[t.C_SEATS] = config.num_seats
    numbers[t.C_REVEAL] = config.reveal
    numbers[t.C_LEADER] = config.group_decision == "leader"
    numbers[t.C_MAX_TURNS] = -1 if config.max_turns is None else config.max_turns
    numbers[t.C_STARTING_DOOM] = config.starting_doom
    return Rules(
        kept=t.KEPT,
        card_kind=t.CARD_KIND,
        card_moons=t.CARD_MOONS,
        card_power=t.CARD_POWER_OF,
        hours_of=t.HOURS_OF,
        play_action=t.PLAY_ACTION,
        sinners_action=t.SINNERS_ACTION,
        sparrows_action=t.SPARROWS_ACTION,
        single_action=t.SINGLE_ACTIONS,
        saints_actions=t.SAINTS_ACTIONS,
        skies_action=t.SKIES_ACTION,
        storms_action=t.STORMS_ACTION,
        scions_action=t.SCIONS_ACTION,
        sails_action=t.SAILS_ACTION,
        steal_action=t.STEAL_ACTION,
        cost_action=t.COST_ACTION,
        card_free_fade=t.CARD_FREE_FADE,
        action_kind=t.ACTION_KIND,
        action_value=t.ACTION_VALUE,
        action_slot=t.ACTION_SLOT,
        action_power=t.ACTION_POWER,
        action_to=t.ACTION_TO,
        question_holds=t.QUESTION_HOLDS,
        shackles_holds=t.SHACKLES_HOLDS,
        others_after=others_after_table(config.num_seats, config.num_players),
        voters=voters_table(config.num_players),
        cards=np.ascontiguousarray(cards, np.int8),
        config=numbers,
        work_u=np.zeros(len(cards), np.uint64),
        work_order=np.zeros(len(cards), np.int64),
        work_unseen=np.zeros(7, np.int64),
        work_rows=np.zeros(STREAM_BLOCK * MAX_OBSERVATION, np.float32),
    )


RULES_TYPE = _struct_type(tuple(rules_tuple(GameConfig(), np.zeros(1, np.int8))._asdict().items()))


@numba.njit(cache=True)
def _rules_struct(t):
    """The structure of the rules ``t`` (every field of ``Rules``)."""
    s = structref.new(RULES_TYPE)
    s.kept = t.kept
    s.card_kind = t.card_kind
    s.card_moons = t.card_moons
    s.card_power = t.card_power
    s.hours_of = t.hours_of
    s.play_action = t.play_action
    s.sinners_action = t.sinners_action
    s.sparrows_action = t.sparrows_action
    s.single_action = t.single_action
    s.saints_actions = t.saints_actions
    s.skies_action = t.skies_action
    s.storms_action = t.storms_action
    s.scions_action = t.scions_action
    s.sails_action = t.sails_action
    s.steal_action = t.steal_action
    s.cost_action = t.cost_action
    s.card_free_fade = t.card_free_fade
    s.action_kind = t.action_kind
    s.action_value = t.action_value
    s.action_slot = t.action_slot
    s.action_power = t.action_power
    s.action_to = t.action_to
    s.question_holds = t.question_holds
    s.shackles_holds = t.shackles_holds
    s.others_after = t.others_after
    s.voters = t.voters
    s.cards = t.cards
    s.config = t.config
    s.work_u = t.work_u
    s.work_order = t.work_order
    s.work_unseen = t.work_unseen
    s.work_rows = t.work_rows
    return s


GAME_REF = _RefType(GAME_TYPE)
"""The numba type of ``pack(arrays)``: a :class:`Ref` to the game structure."""
RULES_REF = _RefType(RULES_TYPE)
"""The numba type of ``rules_for(...)``: a :class:`Ref` to the rules structure."""


def struct_signatures() -> list[tuple[object, tuple]]:
    """The two structure builders (``pack``'s and ``rules_for``'s) with their argument
    types, the same for every configuration: the start of any list of cached entry points
    a caller checks with :func:`load_cached`."""
    config = GameConfig()
    arrays = Arrays(1, config, 1)
    typeof = numba.typeof
    return [
        (_game_struct, (typeof(GameArrays(*(getattr(arrays, n) for n in GameArrays._fields))),)),
        (_rules_struct, (typeof(rules_tuple(config, np.zeros(1, np.int8))),)),
    ]
