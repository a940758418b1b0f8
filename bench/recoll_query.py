# In-process query latency of Recoll (python3-recoll), for the benchmark's peer column.
# argv: confdir, then queries on stdin (one per line). Prints JSON {"times_ms": [...], "hits": [...]}.
import json, sys, time
from recoll import recoll

db = recoll.connect(confdir=sys.argv[1])
times, hits = [], []
for line in sys.stdin:
    q = line.strip()
    if not q:
        continue
    t0 = time.perf_counter()
    query = db.query()
    n = query.execute(q)
    docs = query.fetchmany(10)
    for d in docs:
        query.makedocabstract(d)
    times.append((time.perf_counter() - t0) * 1000)
    hits.append(n)
print(json.dumps({"times_ms": times, "hits": hits}))
