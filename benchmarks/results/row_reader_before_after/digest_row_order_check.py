"""Each rule's money_caught of the digest's SQL and mixed sets as a plain Python loop over the rule's positive
rows in row order (the sum the engine pins), to set against evaluate(per_rule=True) in digest_tables.*.txt.
Run from a tree's root with PYTHONPATH=<tree>."""
from pathlib import Path

import numpy as np

g = {}
exec((Path(__file__).parent / "digest_tables.py").read_text().split("pd.set_option")[0], g)
for name in ("sql", "mixed"):
    rs = g[name]
    cov = np.asarray(rs.coverage(g["X"])).astype(bool)
    for j, rule_name in enumerate(rs.names):
        s = 0.0
        for i in np.nonzero(cov[:, j] & (g["y"] == 1))[0]:
            s += float(g["amount"][i])
        print(name, rule_name, repr(s))
