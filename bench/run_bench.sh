#!/bin/sh
# Run build/bin/bench_runtime N times (default 3) and print a table of the median of each
# measurement's value across runs, with its target. Builds nothing: run `make build` first.
#
#   bench/run_bench.sh [N] [bench_runtime options...]     e.g. bench/run_bench.sh 5 --only copy
#   BENCH=path/to/bench_runtime bench/run_bench.sh        (default: <repo>/build/bin/bench_runtime)
#
# The raw JSON lines of every run are kept in $OUT (default: a temporary file, path printed).
# Exit status: 0 when every median meets its target, 1 when one misses, 2 on a failed run.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
bench=${BENCH:-$here/build/bin/bench_runtime}
runs=3
case ${1:-} in
  ''|-*) ;;
  *) runs=$1; shift ;;
esac
if [ ! -x "$bench" ]; then
  echo "run_bench.sh: $bench not found; build first (make build)" >&2
  exit 2
fi
out=${OUT:-$(mktemp /tmp/cannon-bench.XXXXXX)}
: > "$out"

i=1
while [ "$i" -le "$runs" ]; do
  echo "run $i/$runs: $bench $*" >&2
  "$bench" "$@" >> "$out" || { echo "run_bench.sh: run $i failed" >&2; exit 2; }
  i=$((i + 1))
done
echo "raw results: $out" >&2

# The system python: only the standard json module is needed.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
exec "$py" - "$out" "$runs" <<'PY'
import json, statistics, sys

path, runs = sys.argv[1], int(sys.argv[2])
order, values, rows = [], {}, {}
with open(path) as f:
    for line in f:
        line = line.strip()
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        b = r["bench"]
        if b not in values:
            order.append(b)
            values[b] = []
        values[b].append(r["value"])
        rows[b] = r

print(f"{'bench':30} {'median':>11} {'min':>11} {'max':>11}  {'unit':12} {'target':>10}  status")
missed = False
for b in order:
    v, r = values[b], rows[b]
    med = statistics.median(v)
    op = r.get("target_op")
    if op:
        ok = med < r["target"] if op == "<" else med >= r["target"]
        status = "pass" if ok else "miss"
        missed |= not ok
        target = f"{op} {r['target']:g}"
    else:
        status, target = "info", "-"
    print(f"{b:30} {med:11.4g} {min(v):11.4g} {max(v):11.4g}  {r['unit']:12} {target:>10}  {status}")
print(f"(median / min / max of each run's median over {runs} run(s))")
sys.exit(1 if missed else 0)
PY
