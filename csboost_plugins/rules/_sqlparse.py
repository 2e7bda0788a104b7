"""Read SQL conditions into :class:`._sqlrule.SQLRule` trees (``RuleSet.from_sql``); nothing is executed.

sqlglot parses the text (any of its dialects); the parse tree is then translated node by node
into the small tree :mod:`._sqlrule` evaluates. Only the constructs listed in
:meth:`RuleSet.from_sql` are translated; anything else is a ValueError naming the rule and the
construct. sqlglot's parser recurses about twenty Python frames per nesting level, so the
nesting is measured on the tokens first (an iterative pass) and refused beyond
:data:`._sqlrule.MAX_DEPTH`; the parse itself runs in a thread with a large stack.
"""

from __future__ import annotations

import math
import re
import sys
import threading

from ._sqlrule import BACKSLASH_LIKE, BIG_INT, INT_DIVISION, MAX_DEPTH, SQLRule, _case_fn, children

__all__ = ["rules_from_sql"]

_COMMENT_NAME = re.compile(r"^\s*rule:\s*(.*?)\s*$", re.S)
_FLOAT_TYPES = ("DOUBLE", "FLOAT", "REAL", "DOUBLE PRECISION", "FLOAT64", "FLOAT4", "FLOAT8", "BIGDECIMAL")
# the recursion sqlglot needs per nesting level, with margin (measured: ~20 frames per parenthesis)
_FRAMES_PER_LEVEL = 40


_Refused = ValueError  # a refused construct: a plain ValueError naming the rule and the construct


def _deep(fn, *args):
    """fn(*args) in a thread with a large stack and a raised recursion limit (sqlglot recurses per level)."""
    out = {}

    def run():
        try:
            out["value"] = fn(*args)
        except BaseException as exc:  # re-raised in the caller's thread
            out["error"] = exc

    old_limit = sys.getrecursionlimit()
    old_stack = threading.stack_size()
    need = max(old_limit, 2000 + _FRAMES_PER_LEVEL * MAX_DEPTH * 2)
    try:
        threading.stack_size(512 * 1024 * 1024)
        sys.setrecursionlimit(need)
        t = threading.Thread(target=run, name="csboost-sql-parse")
        t.start()
        t.join()
    finally:
        threading.stack_size(old_stack)
        sys.setrecursionlimit(old_limit)
    if "error" in out:
        if isinstance(out["error"], RecursionError):
            raise ValueError(f"the SQL is nested too deeply (at most {MAX_DEPTH} levels)") from None
        raise out["error"]
    return out["value"]


def _token_depth(sql: str, dialect: str, what: str):
    """Refuse text nested deeper than MAX_DEPTH (parentheses plus runs of prefix NOT / minus), token by token;
    return the tokens."""
    from sqlglot.dialects.dialect import Dialect
    from sqlglot.errors import TokenError
    from sqlglot.tokens import TokenType

    try:
        tokens = Dialect.get_or_raise(dialect).tokenize(sql)
    except TokenError as exc:
        raise ValueError(f"{what} is not valid SQL: {str(exc)[:200]}") from None
    depth = run = worst = 0
    prefix = (TokenType.NOT, TokenType.DASH, TokenType.PLUS)
    for tok in tokens:
        tt = tok.token_type
        if tt == TokenType.L_PAREN:
            depth += 1
        elif tt == TokenType.R_PAREN:
            depth -= 1
        run = run + 1 if tt in prefix else 0
        worst = max(worst, depth + run)
        if worst > MAX_DEPTH:
            raise ValueError(f"{what} is nested more than {MAX_DEPTH} levels deep (parentheses, NOT or minus "
                             "signs); split it into simpler rules")
    return tokens


_LONG_IN = 64  # IN lists at least this long are read from the tokens (sqlglot parses ~10k list items a second)


def _lift_in_lists(sql, tokens, marker):
    """Replace each long ``IN (literal, ...)`` list by one string literal ``marker<k>``; return (text, {k: list}).

    Only lists of plain numbers (optionally signed), strings and NULL are lifted; the rest is left to sqlglot."""
    from sqlglot.tokens import TokenType

    lists, cuts, i, n = {}, [], 0, len(tokens)
    while i < n - 1:
        if tokens[i].token_type == TokenType.IN and tokens[i + 1].token_type == TokenType.L_PAREN:
            j, vals, ok = i + 2, [], True
            while j < n:
                t = tokens[j]
                sign = 1.0
                if t.token_type in (TokenType.DASH, TokenType.PLUS) and j + 1 < n \
                        and tokens[j + 1].token_type == TokenType.NUMBER:
                    sign = -1.0 if t.token_type == TokenType.DASH else 1.0
                    j += 1
                    t = tokens[j]
                if t.token_type == TokenType.NUMBER:
                    vals.append(("num", sign * float(t.text), t.text))
                elif t.token_type == TokenType.STRING and sign == 1.0:
                    vals.append(("str", t.text, None))
                elif t.token_type == TokenType.NULL and sign == 1.0:
                    vals.append(("null", None, None))
                else:
                    ok = False
                    break
                j += 1
                if j < n and tokens[j].token_type == TokenType.COMMA:
                    j += 1
                    continue
                ok = j < n and tokens[j].token_type == TokenType.R_PAREN
                break
            if ok and len(vals) >= _LONG_IN:
                k = len(lists)
                lists[k] = vals
                cuts.append((tokens[i + 2].start, tokens[j - 1].end + 1, f"'{marker}{k}'"))
                i = j
        i += 1
    if not cuts:
        return sql, lists
    out, pos = [], 0
    for a, b, text in cuts:
        out.append(sql[pos:a])
        out.append(text)
        pos = b
    out.append(sql[pos:])
    return "".join(out), lists

def _parse(sql: str, dialect: str, what: str, lifted: dict):
    """The one statement of ``sql`` (long IN lists lifted into ``lifted``, keyed by their marker)."""
    import secrets

    import sqlglot
    from sqlglot.errors import ParseError, TokenError

    if not isinstance(sql, str):
        raise TypeError(f"{what} must be SQL text (a string), got {type(sql).__name__}")
    if not sql.strip():
        raise ValueError(f"{what} is empty")
    tokens = _token_depth(sql, dialect, what)
    marker = f"\x00csboost-in-{secrets.token_hex(8)}-"
    sql, lists = _lift_in_lists(sql, tokens, marker)
    lifted.update({f"{marker}{k}": v for k, v in lists.items()})
    try:
        if lists:
            trees = sqlglot.parse(sql, read=dialect or None)
        else:  # the tokens of the depth check, not a second tokenization
            from sqlglot.dialects.dialect import Dialect

            trees = Dialect.get_or_raise(dialect or None).parser().parse(tokens, sql)
    except (ParseError, TokenError) as exc:
        raise ValueError(f"{what} is not valid SQL in dialect {dialect or 'generic'!r}: "
                         f"{str(exc).splitlines()[0][:200]}") from None
    trees = [t for t in trees if t is not None]
    if len(trees) != 1:
        raise ValueError(f"{what} holds {len(trees)} statements; give one SELECT or one condition")
    return trees[0]


def _tree_depth(node) -> int:
    """Nesting depth of a sqlglot tree, iteratively; an AND / OR chain and parentheses count once."""
    from sqlglot import exp

    worst, stack = 0, [(node, 1)]
    while stack:
        n, d = stack.pop()
        worst = max(worst, d)
        if worst > 2 * MAX_DEPTH:
            break
        for child in n.iter_expressions():
            same_chain = isinstance(child, exp.Connector) and type(child) is type(n)
            stack.append((child, d if same_chain or isinstance(child, exp.Paren) else d + 1))
    return worst


def _check_exact(text, v, name):
    """Refuse a literal written in plain digits (an integer or decimal to engines, exact there) beyond 2**53 that
    float64 does not hold exactly: ``9007199254740993`` would read as ``...992``, and the rule would flag rows the
    warehouse does not. Smaller ones, exact ones and literals with an exponent (doubles to engines) pass."""
    from decimal import Decimal

    text = text.strip()
    if not re.fullmatch(r"\d+(\.\d*)?|\.\d+", text):
        return
    d = Decimal(text)
    if d > BIG_INT and d != Decimal(abs(v)):  # float(text) may round down to 2**53 itself
        raise _Refused(f"rule {name!r}: the number {text[:40]} is beyond 2**53 and not exact in float64 "
                       "(integers beyond 2**53 are not exact in float64, and rules compare numbers as float64); "
                       "compare such identifiers as text")


class _Translator:
    """sqlglot condition -> SQLRule tree (numeric literals collected as slots)."""

    def __init__(self, name, dialect, lifted=None):
        from sqlglot import exp

        self.exp, self.name, self.d = exp, name, dialect or ""
        self.lifted = lifted or {}
        self.literals, self.is_int = [], []

    def refuse(self, node, what=None):
        text = node.sql(dialect=self.d or None)
        text = text if len(text) <= 80 else text[:77] + "..."
        raise _Refused(f"rule {self.name!r}: {what or type(node).__name__.upper()} is not supported ({text}); "
                       "supported: comparisons of columns, numbers, text and arithmetic (+ - * /, ABS, COALESCE, "
                       "LEAST, GREATEST, NULLIF, CAST to a number), AND / OR / NOT, BETWEEN, IN, IS NULL, LIKE, "
                       "ILIKE, TRUE / FALSE")

    def number(self, text: str, negative=False):
        try:
            v = float(text)
        except ValueError:
            raise _Refused(f"rule {self.name!r}: the number {text[:40]!r} is not a decimal number") from None
        if not math.isfinite(v):
            raise _Refused(f"rule {self.name!r}: the number {text[:40]} is out of float64 range")
        _check_exact(text, v, self.name)
        self.literals.append(-v if negative else v)
        self.is_int.append(bool(re.fullmatch(r"\d+", text.strip())))
        return ("num", len(self.literals) - 1)

    def unparen(self, node):
        while isinstance(node, self.exp.Paren):
            node = node.this
        return node

    # -- conditions
    def cond(self, node):
        node = self.unparen(node)
        out = self._cond(node)
        inner = node.this if isinstance(node, self.exp.Escape) else node
        if node.args.get("negate") or inner.args.get("negate"):  # sqlglot's NOT LIKE / NOT ILIKE
            out = ("not", out)
        return out

    def _cond(self, node):
        exp = self.exp
        if isinstance(node, (exp.And, exp.Or)):
            op = "and" if isinstance(node, exp.And) else "or"
            parts, stack = [], [node]
            while stack:  # flatten the chain (sqlglot nests it left-deep)
                n = stack.pop()
                n = self.unparen(n) if isinstance(n, exp.Paren) and isinstance(self.unparen(n), type(node)) else n
                if type(n) is type(node):
                    stack.append(n.expression)
                    stack.append(n.this)
                else:
                    parts.append(n)
            return (op, tuple(self.cond(p) for p in parts))
        if isinstance(node, exp.Not):
            inner = self.unparen(node.this)
            return ("not", self.cond(inner))
        if isinstance(node, exp.Boolean):
            return ("bool", bool(node.this))
        cmp = {exp.LT: "<", exp.LTE: "<=", exp.GT: ">", exp.GTE: ">=", exp.EQ: "=", exp.NEQ: "<>"}
        for cls, op in cmp.items():
            if type(node) is cls:
                return ("cmp", op, self.value(node.this), self.value(node.expression))
        if isinstance(node, exp.Between):
            if node.args.get("symmetric"):
                self.refuse(node, "BETWEEN SYMMETRIC")
            return ("between", self.value(node.this), self.value(node.args["low"]), self.value(node.args["high"]))
        if isinstance(node, exp.In):
            return self.isin(node)
        if isinstance(node, exp.Is):
            target = self.unparen(node.expression)
            if not isinstance(target, exp.Null):
                self.refuse(node, "IS other than IS [NOT] NULL")
            return ("isnull", self.value(node.this))
        if isinstance(node, (exp.Like, exp.ILike, exp.Escape, exp.Glob)):
            return self.like(node)
        if isinstance(node, (exp.Column, exp.Literal)):
            self.refuse(node, "a column or literal used as a condition (compare it, e.g. flag = 1)")
        if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Neg, exp.Abs, exp.Coalesce, exp.Least,
                             exp.Greatest, exp.Cast, exp.Nullif, exp.Null)):
            self.refuse(node, "a value where a condition belongs (compare it, e.g. a + b > 0)")
        self.refuse(node, self.construct(node))

    def construct(self, node):
        exp = self.exp
        if isinstance(node, (exp.Subquery, exp.Select, exp.Exists)) or node.find(exp.Select):
            return "a subquery"
        if isinstance(node, exp.Window) or node.find(exp.Window):
            return "a window function"
        if isinstance(node, exp.AggFunc):
            return f"the aggregate {node.sql_name() if hasattr(node, 'sql_name') else type(node).__name__}"
        if isinstance(node, exp.Anonymous):
            return f"the function {node.name}"
        if isinstance(node, exp.Func):
            return f"the function {node.sql_name() if hasattr(node, 'sql_name') else type(node).__name__}"
        return type(node).__name__.upper()

    def isin(self, node):
        exp = self.exp
        if node.args.get("query") or node.args.get("unnest") or node.args.get("field"):
            self.refuse(node, "IN with a subquery")
        vals, kinds, has_null = [], set(), False
        if len(node.expressions) == 1 and isinstance(node.expressions[0], exp.Literal) \
                and node.expressions[0].this in self.lifted:  # a long list read from the tokens
            for kind, v, text in self.lifted[node.expressions[0].this]:
                if kind == "null":
                    has_null = True
                elif kind == "num" and not math.isfinite(v):
                    raise _Refused(f"rule {self.name!r}: a number in IN is out of float64 range")
                else:
                    if kind == "num":
                        _check_exact(text, v, self.name)
                    vals.append(v)
                    kinds.add(kind)
            if len(kinds) > 1:
                raise _Refused(f"rule {self.name!r}: IN mixes numbers and text")
            return ("in", self.value(node.this), tuple(vals), kinds.pop() if kinds else None, has_null)
        for e in node.expressions:
            e = self.unparen(e)
            neg = False
            if isinstance(e, exp.Neg):
                e, neg = self.unparen(e.this), True
            if isinstance(e, exp.Null) and not neg:
                has_null = True
            elif isinstance(e, exp.Literal) and e.is_string and not neg:
                vals.append(e.this)
                kinds.add("str")
            elif isinstance(e, exp.Literal):
                try:
                    v = float(e.this)
                except ValueError:
                    raise _Refused(f"rule {self.name!r}: {e.this[:40]!r} in IN is not a decimal number") from None
                if not math.isfinite(v):
                    raise _Refused(f"rule {self.name!r}: the number {e.this[:40]} in IN is out of float64 range")
                _check_exact(e.this, v, self.name)
                vals.append(-v if neg else v)
                kinds.add("num")
            else:
                self.refuse(e, "IN with something other than numbers or text literals")
        if len(kinds) > 1:
            raise _Refused(f"rule {self.name!r}: IN mixes numbers and text")
        return ("in", self.value(node.this), tuple(vals), kinds.pop() if kinds else None, has_null)

    def like(self, node):
        exp = self.exp
        escape = None
        if isinstance(node, exp.Escape):
            e = self.unparen(node.expression)
            if not (isinstance(e, exp.Literal) and e.is_string and len(e.this) == 1):
                self.refuse(node, "an ESCAPE other than one character")
            escape, node = e.this, node.this
        pat = self.unparen(node.expression)
        if isinstance(pat, (exp.Lower, exp.Upper)) and isinstance(self.unparen(pat.this), exp.Literal) \
                and self.unparen(pat.this).is_string:  # LOWER('W%'): sqlglot's ILIKE for engines without it
            text = self.unparen(pat.this).this
            fn = _case_fn("lower" if isinstance(pat, exp.Lower) else "upper", self.d == "sqlite")
            pat = exp.Literal.string(fn(text))
        if not (isinstance(pat, exp.Literal) and pat.is_string):
            self.refuse(node, "LIKE with a pattern other than a text literal")
        if isinstance(node, exp.Glob):
            return ("like", self.value(node.this), *self.glob(node, pat.this), None)
        if escape is None and self.d in BACKSLASH_LIKE:
            escape = "\\"
        if escape is not None and pat.this.endswith(escape) and not pat.this.endswith(escape * 2):
            self.refuse(node, "a LIKE pattern ending with its escape character")
        if isinstance(node, exp.ILike):
            fold = "unicode"
        else:
            fold = "ascii" if self.d == "sqlite" else None  # SQLite's LIKE folds ASCII letters
        return ("like", self.value(node.this), pat.this, escape, fold)

    def glob(self, node, pattern):
        """A GLOB pattern as a LIKE pattern (escape ``\\``); character classes other than one literal refused."""
        out, i = [], 0
        while i < len(pattern):
            ch = pattern[i]
            if ch == "[":
                m = re.match(r"\[([^\]^!]|\])\]", pattern[i:])
                if not m:
                    self.refuse(node, "a GLOB character class")
                lit, i = m.group(1), i + len(m.group(0))
                out.append("\\" + lit if lit in "%_\\" else lit)
                continue
            out.append("%" if ch == "*" else "_" if ch == "?" else "\\" + ch if ch in "%_\\" else ch)
            i += 1
        return "".join(out), "\\"

    # -- values
    def value(self, node):
        exp = self.exp
        node = self.unparen(node)
        if isinstance(node, exp.Column):
            if node.table or not isinstance(node.this, exp.Identifier):
                if isinstance(node.this, exp.Star):
                    self.refuse(node, "*")
                # table.column: the table does not matter for the rows of one table
            ident = node.this
            return ("col", str(ident.this), bool(ident.args.get("quoted")))
        if isinstance(node, exp.Literal):
            return ("str", node.this) if node.is_string else self.number(node.this)
        if isinstance(node, exp.Null):
            return ("null",)
        if isinstance(node, exp.Neg):
            inner = self.unparen(node.this)
            if isinstance(inner, exp.Literal) and not inner.is_string:
                return self.number(inner.this, negative=True)
            return ("neg", self.value(inner))
        binops = {exp.Add: "add", exp.Sub: "sub", exp.Mul: "mul"}
        for cls, op in binops.items():
            if type(node) is cls:
                return (op, self.value(node.this), self.value(node.expression))
        if type(node) is exp.Div:
            typed = bool(node.args.get("typed")) or self.d in INT_DIVISION
            return ("div", self.value(node.this), self.value(node.expression), typed)
        if isinstance(node, exp.Abs):
            return ("abs", self.value(node.this))
        if isinstance(node, (exp.Lower, exp.Upper)):  # sqlglot writes ILIKE as LOWER(x) LIKE LOWER(p) for some
            return ("lower" if isinstance(node, exp.Lower) else "upper", self.value(node.this), self.d == "sqlite")
        if isinstance(node, exp.Coalesce):
            args = [node.this] + list(node.expressions)
            return ("coalesce", tuple(self.value(a) for a in args))
        if isinstance(node, exp.Nullif):
            return ("nullif", self.value(node.this), self.value(node.expression))
        if isinstance(node, (exp.Least, exp.Greatest)):
            args = [node.this] + list(node.expressions)
            ignore = node.args.get("ignore_nulls")
            ignore = bool(ignore) if ignore is not None else self.d in ("", "duckdb", "postgres", "spark")
            return ("least" if isinstance(node, exp.Least) else "greatest",
                    tuple(self.value(a) for a in args), ignore)
        if isinstance(node, (exp.Cast, exp.TryCast)):
            to = node.to
            t = to.sql(dialect=self.d or None).upper() if to is not None else ""
            if not (to is not None and (to.this in (exp.DataType.Type.DOUBLE, exp.DataType.Type.FLOAT)
                                        or t in _FLOAT_TYPES)):
                self.refuse(node, f"CAST to {t or 'this type'} (rounding differs between engines; "
                                  "CAST to DOUBLE, FLOAT or REAL is read)")
            return ("cast", self.value(node.this))
        if isinstance(node, exp.Case):
            return self.case(node)
        if isinstance(node, (exp.Predicate, exp.Connector, exp.Not)):  # e.g. (a > 0) = (b > 0): SQL rules hold no
            text = node.sql(dialect=self.d or None)                   # boolean values
            raise _Refused(f"rule {self.name!r}: the condition {text[:77] + '...' if len(text) > 80 else text} "
                           "stands where a value belongs (compared, or in arithmetic); a condition can only be "
                           "combined with AND / OR / NOT, e.g. (a > 0 AND b > 0) OR (a <= 0 AND b <= 0)")
        self.refuse(node, self.construct(node))

    def case(self, node):
        """Only the form the export writes: CASE WHEN a IS NULL OR ... THEN NULL ELSE LEAST/GREATEST(...) END."""
        exp = self.exp
        ifs, default = node.args.get("ifs") or [], node.args.get("default")
        if (node.this is None and len(ifs) == 1 and isinstance(self.unparen(ifs[0].args.get("true")), exp.Null)
                and isinstance(self.unparen(default), (exp.Least, exp.Greatest))):
            inner = self.unparen(default)
            args = [inner.this] + list(inner.expressions)
            guards, stack = [], [self.unparen(ifs[0].this)]
            while stack:
                n = self.unparen(stack.pop())
                if isinstance(n, exp.Or):
                    stack += [n.expression, n.this]
                else:
                    guards.append(n)
            if len(guards) == len(args) and all(isinstance(g, exp.Is) and isinstance(self.unparen(g.expression),
                                                                                    exp.Null)
                                                and self.unparen(g.this) == self.unparen(a)
                                                for g, a in zip(guards, args)):
                return ("least" if isinstance(inner, exp.Least) else "greatest",
                        tuple(self.value(a) for a in args), False)
        self.refuse(node, "CASE")


def _rule(name, node, dialect, lifted=None):
    if _tree_depth(node) > 2 * MAX_DEPTH:
        raise ValueError(f"rule {name!r} is nested more than {MAX_DEPTH} levels deep; split it into simpler rules")
    tr = _Translator(name, dialect, lifted)
    tree = tr.cond(node)
    depth = 0
    stack = [(tree, 1)]
    while stack:  # the tree the evaluator recurses on
        n, d = stack.pop()
        depth = max(depth, d)
        stack.extend((c, d + 1) for c in children(n))
    if depth > 2 * MAX_DEPTH:
        raise ValueError(f"rule {name!r} is nested more than {MAX_DEPTH} levels deep; split it into simpler rules")
    return SQLRule(name, tree, tr.literals, tr.is_int, dialect or None)


def _comment_name(node):
    for c in node.comments or []:
        m = _COMMENT_NAME.match(c)
        if m and m.group(1):
            return m.group(1)
    return None


def _branch_name(branch):
    """The ``rule: name`` comment of one OR branch: on the branch itself or inside it (sqlglot attaches a comment
    after a bare branch, ``a > 1 /* rule: x */ OR ...``, to its last token); the last such comment wins."""
    name = _comment_name(branch)
    if name:
        return name
    for node in branch.walk(bfs=False):  # depth first, left to right: the last hit is the latest in the text
        name = _comment_name(node) or name
    return name


def _statement_rules(tree, dialect):
    """(name, condition) pairs of one parsed statement: a SELECT's top-level OR branches, or one condition."""
    from sqlglot import exp

    if isinstance(tree, exp.Select):
        _check_select(tree)
        where = tree.args.get("where")
        if where is None:
            raise ValueError("the SELECT has no WHERE; its WHERE holds the rules (an OR of conditions)")
        return _split(where.this)
    if isinstance(tree, (exp.Query, exp.DDL, exp.DML, exp.Command, exp.Use, exp.Set, exp.Transaction)) or \
            tree.find(exp.Select) is not None and not isinstance(tree, exp.Condition):
        raise ValueError(f"a {type(tree).__name__.upper()} statement is not a rule; give one SELECT ... WHERE or "
                         "one condition (nothing is executed)")
    # a condition whose top-level OR branches all carry /* rule: name */ comments (to_sql(where_only=True))
    pairs = _split(tree)
    if len(pairs) > 1 and all(name for name, _ in pairs):
        return pairs
    return [(pairs[0][0] if len(pairs) == 1 else None, tree)]


def _check_select(tree):
    """Refuse a SELECT with clauses other than its columns, one FROM table and WHERE (GROUP BY, JOIN, ...)."""
    from sqlglot import exp

    extra = [k for k, v in tree.args.items() if v and k not in ("expressions", "from", "from_", "where", "kind")]
    if extra:
        raise ValueError(f"the SELECT has {', '.join(k.upper() for k in extra)}; only SELECT ... FROM one table "
                         "WHERE <rules> (or SELECT *, CASE ... END AS action FROM one table) is read")
    frm = tree.args.get("from") or tree.args.get("from_")
    if frm is not None and not isinstance(frm.this, exp.Table):
        raise ValueError("the SELECT reads from a subquery; only SELECT ... FROM one table is read")


def _split(node):
    """(name or None, branch) of the top-level OR branches; a parenthesis named by a comment is one rule."""
    from sqlglot import exp

    while isinstance(node, exp.Paren):
        name = _comment_name(node)
        if name:
            return [(name, node)]
        node = node.this
    branches, stack = [], [node]
    while stack:
        n = stack.pop()
        if isinstance(n, exp.Or) and not _comment_name(n):
            stack += [n.expression, n.this]
        else:
            branches.append(n)
    return [(_branch_name(b), b) for b in branches]


def _condition(text, dialect, name, lifted):
    from sqlglot import exp

    tree = _parse(text, dialect, f"rule {name!r}", lifted)
    if isinstance(tree, exp.Select):  # "SELECT ... WHERE cond" given as one rule: its WHERE is the rule
        pairs = _statement_rules(tree, dialect)
        return pairs[0][1] if len(pairs) == 1 else exp.or_(*[p for _, p in pairs])
    pairs = _statement_rules(tree, dialect)
    return pairs[0][1]


#: the actions a rule book's CASE may give, in the order a reader meets them in the docs
ACTIONS = ("allow", "block", "review")


def check_action(action, where):
    """``action`` when it is one of :data:`ACTIONS`, else a ValueError naming ``where`` and the action."""
    if not isinstance(action, str) or action not in ACTIONS:
        raise ValueError(f"{where}: unknown action {action!r:.80}; an action is one of {', '.join(ACTIONS)}")
    return action


def _case_of(tree):
    """The CASE of a rule book (the bare CASE, or the one CASE column of a SELECT without WHERE), else None."""
    from sqlglot import exp

    if isinstance(tree, exp.Case):
        return tree
    if not isinstance(tree, exp.Select):
        return None
    cases = [e.this if isinstance(e, exp.Alias) else e for e in tree.expressions]
    cases = [c for c in cases if isinstance(c, exp.Case)]
    if not cases:
        return None
    if len(cases) > 1 or tree.args.get("where") is not None:
        raise ValueError("a rule book SELECT holds one CASE column and no WHERE (SELECT *, CASE WHEN ... THEN "
                         "'block' ... END AS action FROM table)")
    _check_select(tree)
    return cases[0]


def _case_rules(case):
    """(name or None, condition, action) of each WHEN of a rule book's CASE, in order (the priority)."""
    from sqlglot import exp

    default = case.args.get("default")
    if case.this is not None:
        raise ValueError("a rule book is a searched CASE (CASE WHEN condition THEN 'action' ... END), not CASE x WHEN")
    if default is not None and not isinstance(default, exp.Null):
        raise ValueError(f"the rule book's CASE has ELSE {default.sql()[:60]}; rows no rule matches get no action "
                         "(leave ELSE out, or ELSE NULL)")
    out = []
    for k, when in enumerate(case.args.get("ifs") or []):
        then = when.args.get("true")
        while isinstance(then, exp.Paren):
            then = then.this
        name = _branch_name(when)
        where = f"rule {name or f'rule_{k + 1}'!r}"
        if not (isinstance(then, exp.Literal) and then.is_string):
            raise ValueError(f"{where}: THEN must be an action in quotes ({', '.join(map(repr, ACTIONS))}), got "
                             f"{then.sql()[:60] if then is not None else None}")
        out.append((name, when.this, check_action(then.this, where)))
    if not out:
        raise ValueError("the rule book's CASE has no WHEN")
    return out


def rules_from_sql(rules, dialect=None) -> tuple:
    """(SQLRule objects, their actions) of ``rules`` (dict name -> condition or (condition, action), list of
    conditions, (condition, action) or (name, condition, action), or one statement); RuleSet checks that the
    names are unique."""
    from ._export import _dialect

    d = _dialect(dialect)
    return _deep(_rules_from_sql, rules, d)


def _rules_from_sql(rules, d):
    lifted: dict = {}
    if isinstance(rules, str):
        tree = _parse(rules, d, "the SQL", lifted)
        case = _case_of(tree)
        triples = _case_rules(case) if case is not None else \
            [(name, node, "review") for name, node in _statement_rules(tree, d)]
        return ([_rule(name or f"rule_{i + 1}", node, d, lifted) for i, (name, node, _) in enumerate(triples)],
                [a for _, _, a in triples])
    if isinstance(rules, dict):
        items = list(rules.items())
        for k, _ in items:
            if not isinstance(k, str) or not k.strip():
                raise TypeError(f"rule names (the dict's keys) must be non-empty strings, got {k!r:.80}")
    elif isinstance(rules, (list, tuple)):
        items = [_list_item(i, r) for i, r in enumerate(rules)]
    else:
        raise TypeError(f"rules must be a dict {{name: condition}}, a list of conditions or one SQL statement, "
                        f"got {type(rules).__name__}")
    out, actions = [], []
    for name, text in items:
        action = "review"
        if isinstance(text, (tuple, list)) and len(text) == 2:  # (condition, action)
            text, action = text
            check_action(action, f"rule {name!r}")
        if not isinstance(text, str):
            raise TypeError(f"rule {name!r} must be SQL text or (SQL text, action), got {type(text).__name__}")
        node = _condition(text, d, name, lifted)
        out.append(_rule(name, node, d, lifted))
        actions.append(action)
    return out, actions


def _list_item(i, r):
    """(name, condition or (condition, action)) of the i-th entry of a list of rules."""
    if isinstance(r, (tuple, list)) and len(r) == 3:  # (name, condition, action)
        if not isinstance(r[0], str) or not r[0].strip():
            raise TypeError(f"rules[{i}]: a (name, condition, action) entry needs a non-empty string name, "
                            f"got {r[0]!r:.80}")
        return r[0], (r[1], r[2])
    if isinstance(r, (tuple, list)) and len(r) != 2:
        raise TypeError(f"rules[{i}] must be a condition, (condition, action) or (name, condition, action); got "
                        f"{len(r)} entries")
    return f"rule_{i + 1}", r
