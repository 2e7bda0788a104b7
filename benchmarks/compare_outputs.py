"""Compare two runs of a benchmark (e.g. the same command on two source trees): every number, no tolerance.

    python benchmarks/compare_outputs.py tables BEFORE.txt AFTER.txt
    python benchmarks/compare_outputs.py json BEFORE.json AFTER.json [KEY_PART]

``tables``: the markdown tables of the two printed outputs, cell by cell, in order; columns whose
header names a time (``time``, ``seconds``, ``s``, ``fit s``, ``secs``) are skipped, since wall times
differ run to run. ``json``: every leaf of two result files, bit-exact (``==`` on the floats);
leaves named ``t_*`` or holding ``seconds`` are skipped; with ``KEY_PART``, only the leaves whose
path contains it. Prints each difference and a count; the exit status is 1 when something differs.
"""

from __future__ import annotations

import json
import re
import sys

TIME_COLUMN = re.compile(r"(time|seconds|\bs\b|fit s|secs)", re.I)


def tables(path):
    """(title, header, cells) of every markdown table row of a text file."""
    rows, head, title = [], None, ""
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.startswith("|"):
                title = line.strip() or title
                head = None
                continue
            cells = [c.strip() for c in line.strip("|").split("|")]
            if head is None:
                head = cells
            elif not set("".join(cells)) <= set("-: "):
                rows.append((title, head, cells))
    return rows


def compare_tables(a_path, b_path):
    a, b = tables(a_path), tables(b_path)
    n = 0
    if len(a) != len(b):
        print(f"table rows differ in number: {len(a)} vs {len(b)}")
        n += 1
    for (title, head, ca), (_, _, cb) in zip(a, b):
        for name, x, y in zip(head, ca, cb):
            if not TIME_COLUMN.search(name) and x != y:
                n += 1
                print(f"[{title[:60]}] row '{' / '.join(ca[:2])}' column '{name}': {x} -> {y}")
    print(f"{n} differing cells over {len(a)} table rows (time columns skipped)")
    return n


def leaves(d, path=""):
    if isinstance(d, dict):
        for k, v in d.items():
            yield from leaves(v, f"{path}/{k}")
    elif isinstance(d, list):
        for i, v in enumerate(d):
            yield from leaves(v, f"{path}[{i}]")
    else:
        yield path, d


def compare_json(a_path, b_path, part=""):
    def timing(key):
        return "seconds" in key or key.rsplit("/", 1)[-1].startswith("t_")

    with open(a_path) as fa, open(b_path) as fb:
        a, b = dict(leaves(json.load(fa))), dict(leaves(json.load(fb)))
    ka = {k for k in a if part in k and not timing(k)}
    kb = {k for k in b if part in k and not timing(k)}
    n = len(ka ^ kb)
    for k in sorted(ka ^ kb):
        print("only in", "the first" if k in ka else "the second", k)
    for k in sorted(ka & kb):
        if a[k] != b[k]:
            n += 1
            print(f"{k}: {a[k]!r} -> {b[k]!r}")
    print(f"{n} differences over {len(ka & kb)} values compared bit-exact (timings skipped)")
    return n


def main(argv):
    if len(argv) < 3 or argv[0] not in ("tables", "json"):
        print(__doc__)
        return 2
    n = compare_tables(*argv[1:3]) if argv[0] == "tables" else compare_json(*argv[1:4])
    return 1 if n else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
