"""A rule book evaluated as rule engines do: each distinct condition once, column at a time, on bit-packed masks.

Every leaf condition of every SQL rule becomes an *atom*; equal atoms (``V14 < -5`` in five rules) are
one. The kernels of :mod:`._engine_kernels` compute, per block of 16,384 rows and in threads over blocks,
the atoms on numeric columns: ``col op number``, ``col op col``, ``col BETWEEN a AND b``, ``col IN
(numbers)``, ``col IS NULL``, and comparisons of arithmetic values (``+ - * /``, unary minus, ``ABS``,
``CAST`` to a float, ``COALESCE``) with the reference's NULL, ``x / 0`` and NaN rules in every dialect. ``col = 'a'``,
``col <> 'a'`` and ``col IN ('a', ...)`` on a column of text are numeric atoms on each row's code among the
book's text literals (-1: none of them, NaN: NULL), read chunk by chunk while the kernels run. Any other leaf
(LIKE, text order, COALESCE of text or NULL, LEAST / GREATEST, NULLIF, a dialect's integer division, ...) is
computed by the reference evaluator (:class:`._sqlrule._Evaluator`, the code ``SQLRule.truth`` runs) and
bit-packed.
``AND`` / ``OR`` / ``NOT`` combine the TRUE and FALSE masks of their children word by word, as the
reference does row by row, so every rule's mask is the reference's, bit for bit.

Induced rules (:class:`._rule.Rule`) in a book are evaluated by their own kernels and enter as masks.
Dask collections are evaluated partition by partition, each partition by this engine.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import _aot
from ._engine_kernels import (BLOCK_WORDS, K_BETWEEN, K_COLS, K_EXPR, K_IN, K_ISNULL, K_LIT, K_PRE, P_AND, P_NOT,
                              P_OR, P_PUSH, P_STORE, V_ABS, V_ADD, V_COAL, V_COL, V_DIV, V_LIT, V_MUL, V_NEG, V_SUB,
                              eval_blocks, first_match_words, first_sums, hit_sums, multi_hit_words,
                              pair_counts)
from ._evaluate import _in_threads, _n_threads, coverage_matrix
from ._sqlrule import BIG_INT, IEEE_DIALECTS, Columns, _Evaluator, _walk

__all__ = ["Bits", "rule_bits", "first_match", "any_of", "coverage", "per_rule_sums", "overlap_counts"]

_OPS = {"<": 0, "<=": 1, ">": 2, ">=": 3, "=": 4, "<>": 5}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "<>": "<>"}
_THREAD_MIN_ROWS = 20000
_VOPS = {"add": V_ADD, "sub": V_SUB, "mul": V_MUL, "div": V_DIV, "neg": V_NEG, "abs": V_ABS}


class Bits:
    """Per-rule TRUE masks of a book on n rows: ``words[r]`` (uint64) holds rule r's rows, bit j of word w = row
    64 w + j."""

    __slots__ = ("words", "n")

    def __init__(self, words, n):
        self.words, self.n = words, n


def _uncast(node):
    """A column or literal under ``CAST(... AS DOUBLE)`` is the value itself."""
    while node[0] == "cast" and node[1][0] in ("col", "num"):
        node = node[1]
    return node


class _Compiler:
    """Atoms (deduplicated) and the postfix program of a book on the columns of one X."""

    def __init__(self, cols: Columns, text_literals=(), reference=frozenset()):
        self.cols, self.n = cols, cols.n
        self.dtypes = list(cols.X.dtypes) if cols.frame else None  # read once: X.dtypes builds a Series each time
        self.text_keys = {v: i for i, v in enumerate(text_literals)}  # a text column's codes: these literals
        self.text_codes = {}  # Columns position -> index in arrays of its literal codes, None: the reference reads it
        self.reference = reference  # columns the reference reads: text holding a value not text, integers beyond 2**53
        # (Columns position, float64 column, read(r0, r1), holds the GIL): text codes and integer columns filled
        # block by block while the kernels run
        self.readers = []
        self.n_words = (self.n + 63) // 64
        self.arrays, self.col_of = [], {}  # numeric columns read by the kernels, by Columns position
        self.atoms, self.keys = [], {}  # (kind, op, col, col2, a, b, in values) and their index by key
        self.pre_t, self.pre_f = [], []
        self.prog, self.depth, self.max_depth = [], 0, 0

    def column(self, node, rule):
        """Index of a numeric column among self.arrays, None for a column of another kind (text)."""
        pos = self.cols.position(node[1], node[2], rule.name)
        dt = self.dtypes[pos] if self.cols.frame else None
        if pos not in self.col_of and _is_text(dt):
            return None  # text (Columns refuses an object column of numbers): read, or refused, by the reference
        if pos not in self.col_of:
            raw = self.cols.X.iloc[:, pos].to_numpy() if dt in (np.float64, np.int64) else None
            ahead = raw is not None and raw.dtype == np.int64 and raw.flags.c_contiguous and pos not in self.reference
            if raw is not None and (raw.dtype == np.float64 or ahead or _exact_in_float(raw) is not None):
                v = raw  # float64 as it is (NaN is NULL); integers float64 holds (checked by the reader when ahead)
            else:  # any other dtype, or integers beyond 2**53: Columns reads (or refuses) them
                val = self.cols.get(node[1], node[2], rule.name)
                if val.kind != "num":
                    return None
                v = val.v
            self.col_of[pos] = len(self.arrays)
            if v.dtype == np.int64 and v.flags.c_contiguous:  # converted chunk by chunk while the kernels run
                self.readers.append((pos, np.empty(v.shape[0]), lambda r0, r1, v=v: _exact_in_float(v[r0:r1]),
                                     False))
                self.arrays.append(self.readers[-1][1])
            else:
                self.arrays.append(np.ascontiguousarray(v, dtype=np.float64))
        return self.col_of[pos]

    def native(self, node, rule):
        """The atom tuple of a leaf the kernels compute, None for any other leaf."""
        op, lits = node[0], rule.literals
        if op == "cmp":
            a, b, cmp = _uncast(node[2]), _uncast(node[3]), node[1]
            if a[0] == "num" and b[0] == "col":
                a, b, cmp = b, a, _FLIP[cmp]
            if a[0] != "col" or b[0] not in ("num", "col"):
                return self.expression(node, rule)
            c = self.column(a, rule)
            if c is None:
                return None
            if b[0] == "num":
                return (K_LIT, _OPS[cmp], c, c, lits[b[1]], 0.0, ())
            d = self.column(b, rule)
            return None if d is None else (K_COLS, _OPS[cmp], c, d, 0.0, 0.0, ())
        if op == "between":
            a, lo, hi = _uncast(node[1]), _uncast(node[2]), _uncast(node[3])
            if a[0] != "col" or lo[0] != "num" or hi[0] != "num":
                return None
            c = self.column(a, rule)
            return None if c is None else (K_BETWEEN, 0, c, c, lits[lo[1]], lits[hi[1]], ())
        a = _uncast(node[1]) if op in ("isnull", "in") else None
        if a is None or a[0] != "col" or (op == "in" and (node[3] != "num" or not node[2])):
            return None
        c = self.column(a, rule)
        if c is None:
            return None
        if op == "isnull":
            return (K_ISNULL, 0, c, c, 0.0, 0.0, ())
        vals = tuple(sorted({float(v) for v in node[2] if v == v}))  # NaN equals nothing
        return (K_IN, int(bool(node[4])), c, c, 0.0, 0.0, vals)

    def expression(self, node, rule):
        """The atom of a comparison of two arithmetic values (K_EXPR), None when a value is not arithmetic on
        numeric columns and literals."""
        prog = []
        if not (self.value_program(node[2], rule, prog) and self.value_program(node[3], rule, prog)):
            return None
        ieee = (rule.dialect or "") in IEEE_DIALECTS
        return (K_EXPR, _OPS[node[1]], 0, int(ieee), 0.0, 0.0, tuple(prog))

    def value_program(self, node, rule, out) -> bool:
        """Append the postfix program of a value to out ((code, column, literal) steps); False when the kernels
        do not compute it (text, COALESCE, a dialect's integer division, ...)."""
        op = node[0]
        if op == "col":
            c = self.column(node, rule)
            out.append((V_COL, c, 0.0))
            return c is not None
        if op == "num":
            out.append((V_LIT, 0, rule.literals[node[1]]))
            return True
        if op in ("neg", "abs", "cast"):
            ok = self.value_program(node[1], rule, out)
            if op != "cast":
                out.append((_VOPS[op], 0, 0.0))
            return ok
        if op == "coalesce" and len(node[1]) >= 2:  # folded left, as the reference: first non-NULL value
            ok = self.value_program(node[1][0], rule, out)
            for arg in node[1][1:]:
                ok = ok and self.value_program(arg, rule, out)
                out.append((V_COAL, 0, 0.0))
            return ok
        if op in ("add", "sub", "mul") or (op == "div" and not node[3]):
            ok = self.value_program(node[1], rule, out) and self.value_program(node[2], rule, out)
            out.append((_VOPS[op], 0, 0.0))
            return ok
        return False

    def atom(self, node, rule, ev):
        """Index of the atom of a leaf (a new precomputed atom when the kernels do not compute it)."""
        text = self.text_atom(node, rule)
        if text is not None:
            return text
        key = self.native(node, rule)
        if key is None:
            return self.precomputed(*ev().cond(node))
        if key not in self.keys:
            self.keys[key] = len(self.atoms)
            self.atoms.append(key)
        return self.keys[key]

    def precomputed(self, t, f):
        """Index of a new atom of given TRUE / FALSE masks (bool arrays or scalars)."""
        self.pre_t.append(_pack(t, self.n, self.n_words))
        self.pre_f.append(_pack(f, self.n, self.n_words))
        self.atoms.append((K_PRE, 0, len(self.pre_t) - 1, 0, 0.0, 0.0, ()))
        return len(self.atoms) - 1

    def text_column(self, pos):
        """Index among self.arrays of the codes column of text column pos (per row, the position of its text
        among the book's text literals: -1 none, NaN NULL); None when the reference evaluator reads it."""
        if pos not in self.text_codes:
            read = None if pos in self.cols.cache or pos in self.reference else \
                _codes_reader(self.cols.X.iloc[:, pos], self.text_keys)
            self.text_codes[pos] = None
            if read is not None:  # the codes are read block by block ahead of the kernels (_run_blocks)
                self.readers.append((pos, np.empty(self.n), read, isinstance(read, _ObjectCodes)))
                self.text_codes[pos] = len(self.arrays)
                self.arrays.append(self.readers[-1][1])
        return self.text_codes[pos]

    def text_atom(self, node, rule):
        """Index of the atom of ``col = 'a'``, ``col <> 'a'`` or ``col IN ('a', ...)`` on a column of text: a
        numeric atom on the column's literal codes (equal atoms are one); None for any other leaf."""
        leaf = _text_leaf(node)
        if leaf is None or not self.cols.frame:
            return None
        col, lits, op = leaf
        c = self.text_column(self.cols.position(col[1], col[2], rule.name))
        if c is None:
            return None
        codes = tuple(sorted({float(self.text_keys[v]) for v in lits}))
        if op == "in":  # x IN ('a', NULL) is UNKNOWN, never FALSE, off the list: the kernel's flag
            key = (K_IN, int(bool(node[4])), c, c, 0.0, 0.0, codes)
        else:
            key = (K_LIT, _OPS[op], c, c, codes[0], 0.0, ())
        if key not in self.keys:
            self.keys[key] = len(self.atoms)
            self.atoms.append(key)
        return self.keys[key]

    def emit(self, node, rule, ev):
        op = node[0]
        if op in ("and", "or"):
            for p in node[1]:
                self.emit(p, rule, ev)
            self.push(P_AND if op == "and" else P_OR, len(node[1]), 1 - len(node[1]))
        elif op == "not":
            self.emit(node[1], rule, ev)
            self.push(P_NOT, 0, 0)
        else:
            self.push(P_PUSH, self.atom(node, rule, ev), 1)

    def push(self, code, arg, change):
        self.prog.append((code, arg))
        self.depth += change
        self.max_depth = max(self.max_depth, self.depth)

    def add_mask(self, r, mask):
        """Rule r flags the rows of a computed mask (an induced rule: never UNKNOWN)."""
        mask = np.asarray(mask, dtype=bool)
        self.push(P_PUSH, self.precomputed(mask, ~mask), 1)
        self.push(P_STORE, r, -1)

    def add_rule(self, r, rule):
        evaluator = []

        def ev():  # the reference evaluator, built for the first leaf the kernels do not compute
            if not evaluator:
                evaluator.append(_Evaluator(rule, self.cols))
            return evaluator[0]

        self.emit(rule.tree, rule, ev)
        self.push(P_STORE, r, -1)

    def arrays_for_kernel(self):
        """Kernel arguments: atoms ordered by column (a column block is read while in cache), the program."""
        order = sorted(range(len(self.atoms)), key=lambda i: (self.atoms[i][0] == K_PRE, self.atoms[i][2]))
        new = np.empty(len(order), np.int64)
        new[order] = np.arange(len(order))
        atoms = [self.atoms[i] for i in order]
        vals, lo, hi, vprog = [], [], [], []
        for a in atoms:  # IN lists into vals, value programs into vprog
            seq = vprog if a[0] == K_EXPR else vals
            lo.append(len(seq))
            seq.extend(a[6])
            hi.append(len(seq))
        self.max_values = max([_depth(a[6]) for a in atoms if a[0] == K_EXPR], default=0)
        prog = np.asarray(self.prog, dtype=np.int64).reshape(-1, 2)
        push = prog[:, 0] == P_PUSH
        prog[push, 1] = new[prog[push, 1]]
        col = lambda i: np.asarray([a[i] for a in atoms], dtype=np.int64)  # noqa: E731
        flt = lambda i: np.asarray([a[i] for a in atoms], dtype=np.float64)  # noqa: E731
        empty = np.zeros((0, self.n_words), np.uint64)
        pre_t = np.stack(self.pre_t) if self.pre_t else empty
        pre_f = np.stack(self.pre_f) if self.pre_f else empty
        vp = np.asarray([(v[0], v[1]) for v in vprog], dtype=np.int64).reshape(-1, 2)
        return (col(0), col(1), col(2), col(3), flt(4), flt(5), np.asarray(lo, np.int64), np.asarray(hi, np.int64),
                np.asarray(vals, np.float64), pre_t, pre_f, vp, np.asarray([v[2] for v in vprog], np.float64), prog)


def _text_leaf(node):
    """``(column node, text literals, op)`` of a leaf ``col = 'a'``, ``col <> 'a'`` or ``col IN ('a', ...)``,
    None for any other node."""
    if node[0] == "cmp" and node[1] in ("=", "<>"):
        a, b = (node[3], node[2]) if node[2][0] == "str" else (node[2], node[3])
        return (a, (b[1],), node[1]) if a[0] == "col" and b[0] == "str" else None
    if node[0] == "in" and node[3] == "str" and node[2] and node[1][0] == "col":
        return node[1], tuple(node[2]), "in"
    return None


def _text_literals(rules) -> list:
    """The distinct text literals the book's SQL rules compare a column with (=, <>, IN), in order."""
    found = {}
    for rule in rules:
        for node in _walk(rule.tree) if rule.evaluator == "engine" else ():
            leaf = _text_leaf(node)
            found.update(dict.fromkeys(leaf[1] if leaf is not None else ()))
    return list(found)


def _exact_in_float(v):
    """The integers v if float64 holds each exactly (|v| <= 2**53), else None."""
    return v if not v.size or -BIG_INT <= v.min() <= v.max() <= BIG_INT else None


def _is_text(dt) -> bool:
    """Whether a DataFrame column's dtype holds text (object or a pandas string dtype)."""
    import pandas as pd

    return dt is not None and (dt == object or isinstance(dt, pd.StringDtype))


def _codes_reader(column, keys):
    """``read(r0, r1)``: rows r0 .. r1 - 1 of the position of each row's text among ``keys`` as float64 (-1: a
    text equal to none of them, NaN: NULL), None where a row holds a value that is not text; None (no reader)
    for a column that is not text (the reference evaluator reads it, with its errors).

    Text is an object column of ``str`` (NULL: what pandas reads as missing), a pandas string dtype or a
    category of ``str``. An object column takes one hash lookup per row (the book's literals are the table), and
    only the rows equal to none of them are checked for NULL or a value that is not text; Arrow-backed text takes
    Arrow's ``index_in``; a category looks up its categories once. Matching a ``str`` by hash then ``==`` is the
    reference's equality.
    """
    import pandas as pd

    if not len(column) or not keys:
        return None
    dt = column.dtype
    if isinstance(dt, pd.CategoricalDtype):
        cats = np.asarray(dt.categories, dtype=object)
        if not all(isinstance(v, str) for v in cats):
            return None  # the reference refuses a category that is not text
        table = np.append(_positions(cats, list(keys)).astype(np.float64), np.nan)  # code -1 (NULL): NaN
        codes = column.cat.codes.to_numpy()
        return lambda r0, r1: table[codes[r0:r1]]
    arrow = _arrow_text(column)
    if arrow is not None:
        return lambda r0, r1: _arrow_codes(arrow.slice(r0, r1 - r0), keys)
    if dt == object or isinstance(dt, pd.StringDtype):
        return _ObjectCodes(column.to_numpy(dtype=object), keys)
    return None


class _ObjectCodes:
    """:func:`_codes_reader` of an object array, read chunk by chunk: ``(r0, r1)`` -> float64 codes, None when
    a value is neither ``str`` nor NULL.

    A chunk of ``str``, None and float NaN only, against at most :data:`C_LITERALS` literals, is read by the
    compiled reader (``_text_codes``: Python's own str equality, length, kind and bytes, with no hashing). Any
    other chunk (a ``str`` subclass, pd.NA, a number...) takes one hash lookup per row in a table of the book's
    literals; a text met that is none of them joins the table (up to :data:`KNOWN_TEXTS` of them), so only the
    rows holding a value never met before are checked for NULL or a type other than ``str``.
    """

    def __init__(self, values, keys):
        self.values, self.keys, self.nl = values, list(keys), len(keys)
        self.table = _table(self.keys)  # None: pandas without its hash table (the public lookup, per chunk)
        self.compiled = None
        if _text_codes is not None and 0 < len(keys) <= C_LITERALS and all(type(k) is str for k in keys):
            if not values.flags.c_contiguous:
                self.values = np.ascontiguousarray(values)
            self.compiled = tuple(keys)

    def __call__(self, r0, r1):
        if not 0 <= r0 <= r1 <= len(self.values):
            raise ValueError(f"rows {r0} .. {r1} are not within the column's {len(self.values)}")
        if self.compiled is not None:
            out = np.empty(r1 - r0)
            if _text_codes.codes(self.values.ctypes.data, int(r0), int(r1), self.compiled, out.ctypes.data):
                return out
        return self.lookup(self.values[r0:r1])

    def lookup(self, v):
        """The codes of the objects ``v`` by hash lookup, None when one is neither ``str`` nor NULL."""
        import pandas as pd

        try:
            codes = self.table.lookup(v) if self.table is not None else _positions(v, self.keys, False)
        except TypeError:  # an unhashable value, or pd.NA compared with a literal: the reference's reading
            return None
        out = np.asarray(codes, dtype=np.float64)
        out[out >= self.nl] = -1.0  # a known text that is none of the literals
        miss = np.flatnonzero(np.asarray(codes) < 0)  # never met before
        if not len(miss):
            return out
        rest = v[miss]
        if pd.api.types.infer_dtype(rest, skipna=True) not in ("string", "empty"):
            return None  # numbers, bytes...: the reference's reading (and its errors)
        null = np.asarray(pd.isna(rest), dtype=bool)
        out[miss[null]] = np.nan
        if self.table is not None and len(self.keys) < KNOWN_TEXTS:
            for text in pd.unique(rest[~null])[:KNOWN_TEXTS - len(self.keys)]:
                self.table.set_item(text, len(self.keys))
                self.keys.append(text)
        return out


try:  # the compiled reader (setup.py builds it; optional)
    from . import _text_codes
except ImportError:  # pragma: no cover - an install without a C compiler: the hash lookup
    _text_codes = None

#: an object column's reader remembers at most this many texts (the book's literals included)
KNOWN_TEXTS = 4096
#: the compiled reader compares each row with every literal: above this many, the hash lookup
C_LITERALS = 32


def _table(keys):
    """pandas' object hash table mapping each of ``keys`` (distinct) to its position, None without it."""
    try:
        from pandas._libs.hashtable import PyObjectHashTable

        table = PyObjectHashTable(max(2 * len(keys), 8))
        for i, key in enumerate(keys):
            table.set_item(key, i)
        return table if hasattr(table, "lookup") else None
    except (ImportError, AttributeError, TypeError):  # a pandas without it: the public lookup
        return None


def _arrow_text(column):
    """The pyarrow ChunkedArray of an Arrow-backed column of text, None for any other column."""
    import pandas as pd

    dt = column.dtype
    if getattr(dt, "storage", None) != "pyarrow" and not isinstance(dt, pd.ArrowDtype):
        return None
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - an Arrow-backed column implies pyarrow
        return None
    data = column.array.__arrow_array__()
    data = data if isinstance(data, pa.ChunkedArray) else pa.chunked_array([data])
    t = data.type
    return data if pa.types.is_string(t) or pa.types.is_large_string(t) else None


def _arrow_codes(data, keys):
    """:func:`_codes_reader`'s codes of an Arrow ChunkedArray of text (Arrow's hash lookup, outside the GIL)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    found = pc.index_in(data, value_set=pa.array(list(keys), type=data.type))
    codes = np.asarray(found.to_numpy(zero_copy_only=False), dtype=np.float64)  # NaN: NULL or on no literal
    off = np.isnan(codes)
    if data.null_count:
        off &= np.asarray(pc.is_valid(data).to_numpy(zero_copy_only=False), dtype=bool)
    codes[off] = -1.0
    return codes


def _positions(values, keys, hashtable=True):
    """Position of each of ``values`` (``str`` objects) among the distinct ``keys``, -1 where none: pandas'
    object hash table (``hashtable``; it skips the public lookup's checks), else ``Index.get_indexer``."""
    import pandas as pd

    if hashtable:
        try:
            from pandas._libs.hashtable import PyObjectHashTable

            table = PyObjectHashTable(2 * len(keys))
            table.map_locations(np.asarray(keys, dtype=object))
            return np.asarray(table.lookup(values), dtype=np.int64)
        except (ImportError, AttributeError, TypeError):  # a pandas without it: the public lookup
            pass
    found = pd.Index(keys, dtype=object).get_indexer(pd.Index(values, dtype=object, copy=False))
    return np.asarray(found, dtype=np.int64)


def _depth(prog) -> int:
    """Deepest value stack of a postfix value program."""
    d = best = 0
    for code, _, _ in prog:
        d += 1 if code in (V_COL, V_LIT) else 0 if code in (V_NEG, V_ABS) else -1
        best = max(best, d)
    return best


def _pack(mask, n, n_words) -> np.ndarray:
    """A bool mask (or scalar) of n rows as n_words uint64 words, bit j of word w = row 64 w + j."""
    m = np.zeros(n_words * 64, np.bool_)
    m[:n] = np.broadcast_to(np.asarray(mask, dtype=bool), (n,))
    return np.packbits(m, bitorder="little").view("<u8").astype(np.uint64, copy=False)


def _ranges(n_items, n_rows):
    """Contiguous ranges of n_items, one per thread when the rows are many."""
    k = _n_threads() if n_rows >= _THREAD_MIN_ROWS else 1
    cuts = np.linspace(0, n_items, min(k, max(n_items, 1)) + 1).astype(np.int64)
    return [(int(a), int(b)) for a, b in zip(cuts[:-1], cuts[1:]) if b > a] or [(0, 0)]


def rule_bits(ruleset, X, *, _reference=frozenset()) -> Bits:
    """Every rule's TRUE mask, bit-packed (:class:`Bits`).

    Columns are read and checked as ``SQLRule.truth`` reads them (the same errors, naming the rule,
    in rule order). Induced rules (:class:`._rule.Rule`) in the set are evaluated first, by their own
    kernels (``coverage_matrix``), and enter as computed masks. A text column found to hold a value that
    is not text, or an integer column holding a value beyond 2**53, is read again by the reference
    evaluator (``_reference``), which gives its errors.
    """
    tree = [i for i, r in enumerate(ruleset.rules) if r.evaluator != "engine"]
    cover = coverage_matrix(*ruleset._prepare(X)) if tree else None
    where = {p: k for k, p in enumerate(tree)}
    comp = _Compiler(Columns(X, ruleset.feature_names), _text_literals(ruleset.rules), _reference)
    try:
        for r, rule in enumerate(ruleset.rules):
            if r in where:
                comp.add_mask(r, cover[:, where[r]])
            else:
                comp.add_rule(r, rule)
    except ValueError:  # a text column read later may hold the error of an earlier rule: the reference's order
        bad = {pos for pos, _, read, _ in comp.readers if read(0, comp.n) is None}
        if bad:
            return rule_bits(ruleset, X, _reference=_reference | bad)
        raise
    kind, op, col, col2, va, vb, lo, hi, vals, pre_t, pre_f, vprog, vlit, prog = comp.arrays_for_kernel()
    out = np.zeros((len(ruleset.rules), comp.n_words), np.uint64)
    if comp.n_words and len(ruleset.rules):
        arrays = np.asarray([a.ctypes.data for a in comp.arrays], dtype=np.int64)  # comp.arrays keeps them alive
        args = (comp.n, arrays, kind, op, col, col2, va, vb, lo, hi, vals, pre_t, pre_f, vprog, vlit,
                int(comp.max_values), prog, int(comp.max_depth), out)
        bad = _run_blocks(comp, lambda b0, b1: _aot.run("eval_blocks", eval_blocks, b0, b1, *args))
        if bad:
            return rule_bits(ruleset, X, _reference=_reference | bad)
    return Bits(out, comp.n)


#: a book's rows are cut into about this many chunks when text columns are read ahead of the kernels
TEXT_CHUNKS = 16


def _run_blocks(comp, run) -> set:
    """``run(b0, b1)`` over every block of rows, in threads, the columns' readers filling each chunk of rows
    first: an object column's reader (it keeps what it met, chunk after chunk) runs in this thread ahead of the
    tasks, the others (integer columns, Arrow text, categories: numpy and Arrow release the GIL) in each chunk's
    task before its kernel, so both cores work. Returns the Columns positions of columns a reader refused (a value
    not text, an integer beyond 2**53): the masks are then incomplete and the caller evaluates again."""
    n_blocks = -(-comp.n_words // BLOCK_WORDS)
    if not comp.readers:
        _in_threads(run, _ranges(n_blocks, comp.n))
        return set()
    threads = len(_ranges(n_blocks, comp.n))
    step = max(1, -(-n_blocks // (TEXT_CHUNKS if threads > 1 else 1)))
    bad, done = set(), []

    def fill(r0, r1, gil):
        for pos, out, read, holds_gil in comp.readers:
            if holds_gil == gil and not bad:
                part = read(r0, r1)
                if part is None:
                    bad.add(pos)
                else:
                    out[r0:r1] = part

    def task(b0, b1, r0, r1):
        fill(r0, r1, False)
        if not bad:
            run(b0, b1)

    # this thread's hash lookups take a core: the kernels get the others (oversubscribed, the reads fall
    # behind); the compiled reader is light
    workers = max(1, threads - 1) if any(r[3] and r[2].compiled is None for r in comp.readers) else threads
    with ThreadPoolExecutor(workers) as ex:
        for b0 in range(0, n_blocks, step):
            b1 = min(b0 + step, n_blocks)
            r0, r1 = b0 * BLOCK_WORDS * 64, min(b1 * BLOCK_WORDS * 64, comp.n)
            fill(r0, r1, True)
            if bad:
                break
            done.append(ex.submit(task, b0, b1, r0, r1))
        for f in done:
            f.result()
    return bad


def first_match(bits: Bits) -> np.ndarray:
    """Index of the first rule whose mask holds each row, -1 where none."""
    first = np.full(bits.n, -1, np.int64)
    if bits.words.shape[0]:
        _in_threads(lambda a, b: _aot.run("first_match_words", first_match_words, bits.words, a, b, first),
                    _ranges(bits.words.shape[1], bits.n))
    return first


def any_of(bits: Bits, limit: int) -> np.ndarray:
    """int64 0/1 per row: 1 where one of the first ``limit`` rules' masks holds the row (their words OR-ed)."""
    words = np.bitwise_or.reduce(bits.words[:limit], axis=0) if limit > 0 else \
        np.zeros(bits.words.shape[1], np.uint64)
    b = np.ascontiguousarray(words.astype("<u8", copy=False)).view(np.uint8)
    return np.unpackbits(b, count=bits.n, bitorder="little").astype(np.int64)


def coverage(bits: Bits) -> np.ndarray:
    """The (n, k) bool coverage matrix (column-major: a rule's rows are contiguous)."""
    b = np.ascontiguousarray(bits.words.astype("<u8", copy=False)).view(np.uint8)
    return np.unpackbits(b, axis=1, count=bits.n, bitorder="little").view(bool).T


def per_rule_sums(bits: Bits, first, y, w, costs, prob) -> dict:
    """:func:`._report.per_rule_sums` from bit masks, to the last bit: each sum over a rule's rows adds the rows'
    parts (weights, money caught, alert cost, computed per row as the matrix path computes them) in row order,
    popping the rule's set bits; no (n, parts) matrix is built."""
    from ._report import part_names, sums_dict
    from ._report import per_rule_sums as matrix_sums

    prob = np.asarray(prob, dtype=np.float64)
    if np.any(prob < 1.0):  # a randomised rule weighs rows by the other rules' probabilities: the matrix path
        return matrix_sums(coverage(bits), first, y, w, costs, prob)
    k, nw = bits.words.shape
    y = np.ascontiguousarray(y, dtype=np.int64)
    w = np.ascontiguousarray(w, dtype=np.float64)
    first = np.ascontiguousarray(first, dtype=np.int64)
    n = y.shape[0]
    cst = np.zeros((0, 4)) if costs is None else np.ascontiguousarray(costs, dtype=np.float64)
    if w.shape[0] != n or first.shape[0] != n or bits.n != n or nw * 64 < n or (costs is not None and cst.shape
                                                                                   != (n, 4)):
        raise ValueError(f"per-rule sums need n rows everywhere: y {n}, weights {w.shape[0]}, first match "
                         f"{first.shape[0]}, masks {bits.n}, costs {None if costs is None else cst.shape}")
    if n and (first.min() < -1 or first.max() >= k):  # the kernels index out[first[i]]
        raise ValueError(f"first match indices must lie in [-1, {k}), got [{first.min()}, {first.max()}]")
    names = part_names(costs)
    multi = np.zeros(nw, np.uint64)
    _in_threads(lambda a, b: _aot.run("multi_hit_words", multi_hit_words, bits.words, a, b, multi), _ranges(nw, n))
    none = np.zeros(nw, np.uint64)
    alone, sole, firsts = (np.zeros((k, len(names))) for _ in range(3))
    for excl, out in ((none, alone), (multi, sole)):
        _in_threads(lambda a, b, excl=excl, out=out: _aot.run("hit_sums", hit_sums, bits.words, excl, y, w, cst, a, b,
                                                              out), _ranges(k, n))
    _aot.run("first_sums", first_sums, first, y, w, cst, firsts)
    return sums_dict(w * (y == 1), w * (y == 0), names, alone, firsts, sole)


def overlap_counts(bits: Bits) -> np.ndarray:
    """(k, k) float64: entry (i, j) = rows both rule i and rule j flag, by popcounts of the masks' AND."""
    k = bits.words.shape[0]
    out = np.zeros((k, k), np.int64)
    step = len(_ranges(k, bits.n))  # rules dealt round-robin: the triangle's rows shrink
    _in_threads(lambda start, _: _aot.run("pair_counts", pair_counts, bits.words, start, step, out),
                [(t, t) for t in range(step)])
    return out.astype(np.float64)
