#!/bin/sh
# run_demo.sh: train with SyncBN on 4 ranks, train the same model on 1 rank over the whole global
# batch, compare the final parameters, and measure what the communication costs.
#
#   run_demo.sh BUILD_DIR [extra train_syncbn flags]   the demo (`make run`)
#   run_demo.sh --test CANNONRUN TRAIN_SYNCBN           the CTest train_syncbn_4v1 (small, quiet)
#
# Steps: (1) cannonrun -n 4 train_syncbn --check FILE  -> rank 0 writes the parameters;
#        (2) train_syncbn --check FILE on 1 rank       -> compares, exit 1 above 1e-5;
#        (3) cannonrun -n 4 train_syncbn, longer, for the time split, alternating with
#        (4) the same with --no-sync-bn                 -> same compute, no collectives: the
#            baseline for the communication overhead figure (ROUNDS rounds of TIMING_STEPS
#            steps each, default 3 x 100; medians).
set -eu

RANKS=${RANKS:-4}
if [ "${1:-}" = "--test" ]; then
    CANNONRUN=$2
    PROG=$3
    shift 3
    set -- --steps 12 --batch 128 --hidden 32 --layers 2 --log-every 4 "$@"
    MODE=test
else
    BUILD=${1:?usage: run_demo.sh BUILD_DIR [train_syncbn flags]}
    shift
    CANNONRUN=$BUILD/bin/cannonrun
    PROG=$BUILD/bin/train_syncbn
    MODE=demo
fi
for f in "$CANNONRUN" "$PROG"; do
    [ -x "$f" ] || { echo "run_demo.sh: FAILED: $f not built" >&2; exit 1; }
done

TMP=$(mktemp -d "${TMPDIR:-/tmp}/train_syncbn.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
W=$TMP/params.bin

echo "== $RANKS ranks, SyncBN, gradients all-reduced on a second stream"
"$CANNONRUN" -n "$RANKS" --timeout 120 "$PROG" "$@" --check "$W"

echo
echo "== 1 rank, the whole global batch, same seed: the reference"
# without a pipe, so that set -e stops here with the comparison's status
"$PROG" "$@" --check "$W" >"$TMP/one.log" || { cat "$TMP/one.log"; exit 1; }
cat "$TMP/one.log"

[ "$MODE" = test ] && exit 0

# The overhead figure: per-step times are noisy (4 ranks share 2 cores, and the machine may be
# shared too), so the two sides are measured in alternating rounds, ROUNDS of each, and the
# median round of each side is reported. (The 4-vs-1 check above stays short: fp32 rounding
# differences grow with the number of steps.)
TSTEPS=${TIMING_STEPS:-100}
ROUNDS=${ROUNDS:-3}
for r in $(seq "$ROUNDS"); do
    echo
    echo "== overhead, round $r/$ROUNDS: $RANKS ranks, $TSTEPS steps, SyncBN + gradient all-reduce"
    "$CANNONRUN" -n "$RANKS" --timeout 120 "$PROG" "$@" --steps "$TSTEPS" --log-every "$TSTEPS" \
        | tee "$TMP/sync.$r.log" | grep -E '^(time|gradient|RESULT)'
    echo "== overhead, round $r/$ROUNDS: $RANKS ranks, $TSTEPS steps, local BN, no gradient all-reduce"
    "$CANNONRUN" -n "$RANKS" --timeout 120 "$PROG" "$@" --steps "$TSTEPS" --log-every "$TSTEPS" --no-sync-bn \
        | tee "$TMP/local.$r.log" | grep -E '^(time|RESULT)'
done

# The RESULT line of the median round (by step time) of one side: "sync" or "local".
median_result() {
    for r in $(seq "$ROUNDS"); do grep '^RESULT ' "$TMP/$1.$r.log"; done |
        sed 's/^RESULT \(.*step_ms=\([0-9.]*\).*\)$/\2 \1/' | sort -g |
        awk -v n="$ROUNDS" 'NR == int((n + 1) / 2) { $1 = ""; print }'
}
SYNC=$(median_result sync)
LOCAL=$(median_result local)
field() { echo "$1" | sed -n "s/.*$2=\([0-9.]*\).*/\1/p"; }
all_steps() { for r in $(seq "$ROUNDS"); do sed -n 's/^RESULT .*step_ms=\([0-9.]*\).*/\1/p' "$TMP/$1.$r.log"; done | tr '\n' ' '; }
echo
echo "== summary"
echo "rounds (step ms): SyncBN $(all_steps sync)| local BN $(all_steps local)"
awk -v s="$(field "$SYNC" step_ms)" -v l="$(field "$LOCAL" step_ms)" -v bn="$(field "$SYNC" bn_comm_ms)" \
    -v g="$(field "$SYNC" grad_comm_ms)" -v h="$(field "$SYNC" hidden_ms)" \
    -v e="$(field "$SYNC" exposed_ms)" \
    -v d="$(sed -n 's/^check: max relative difference \([^ ]*\).*/\1/p' "$TMP/one.log")" \
    -v r="$RANKS" -v n="$TSTEPS" -v k="$ROUNDS" 'BEGIN {
    printf "%s ranks vs 1 rank: max relative parameter difference %s\n", r, d
    printf "step time (median of %d rounds of %d steps): %.3f ms with SyncBN + gradient all-reduce, %.3f ms without communication", k, n, s, l
    if (l > 0) printf " (overhead %+.0f%%)", 100 * (s - l) / l
    printf "\n"
    printf "per step: SyncBN collectives %.3f ms (on the critical path); gradient all-reduce %.3f ms, ", bn, g
    printf "of which %.3f ms hidden behind backward", h
    if (g > 0) printf " (%.0f%%)", 100 * h / g
    printf ", %.3f ms exposed\n", e
}'
