"""A fresh clone passes its tests: no test reads outside the repository (.ci/fresh_clone runs a
clone of HEAD in an empty folder; this guards the source of the tests themselves)."""

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_tests_read_no_path_outside_the_clone():
    # ``parents[1].parent``, or the design folder beside the clone (its name as a path or a string): users'
    # clones have none. The name is spelled as a character class so this guard does not match itself.
    outside = re.compile(r"parents\[\d\]\.parent|\.{2}/[s]hared|[\"'][s]hared[\"']|/work/")
    offenders = [f"{p.name}:{i}" for p in sorted(TESTS.glob("*.py")) if p.name != Path(__file__).name
                 for i, line in enumerate(p.read_text().splitlines(), 1) if outside.search(line)]
    assert offenders == []


def test_vendored_fixtures_are_present_and_small():
    files = [p for p in (TESTS / "data").rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {"cs1_sub.npz", "csdt_reference.json", "README.md"}
    assert sum(p.stat().st_size for p in files) < 2_000_000
