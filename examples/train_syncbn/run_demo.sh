#!/bin/sh
# run_demo.sh: train with SyncBN on 4 ranks, train the same model on 1 rank over the whole global
# batch, compare the final parameters, and measure what the communication costs.
#
#   run_demo.sh BUILD_DIR [extra train_syncbn flags]   the demo (`make run`)
#   run_demo.sh --test CANNONRUN TRAIN_SYNCBN           the CTest train_syncbn_4v1 (small, quiet)
#
# Steps: (1) cannonrun -n 4 train_syncbn --check FILE  -> rank 0 writes the parameters;
#        (2) train_syncbn --check FILE on 1 rank       -> compares, exit 1 above 1e-5;
#        (3) cannonrun -n 4 train_syncbn, longer, for the time split, and
#        (4) the same with --no-sync-bn                 -> same compute, no collectives: the
#            baseline for the communication overhead figure.
set -eu

RANKS=${RANKS:-4}
if [ "${1:-}" = "--test" ]; then
    CANNONRUN=$2
    PROG=$3
    shift 3
    set -- --steps 12 --batch 128 --hidden 32 --log-every 4 "$@"
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

# The overhead figure: per-step times of a short run are noisy (4 ranks share 2 cores), so both
# sides are measured over a longer run. (The 4-vs-1 check above stays short: fp32 rounding
# differences grow with the number of steps.)
TSTEPS=${TIMING_STEPS:-200}
echo
echo "== overhead: $RANKS ranks, $TSTEPS steps, SyncBN + gradient all-reduce"
"$CANNONRUN" -n "$RANKS" --timeout 120 "$PROG" "$@" --steps "$TSTEPS" --log-every 50 \
    | tee "$TMP/sync.log"
echo
echo "== overhead: $RANKS ranks, $TSTEPS steps, local BN, no gradient all-reduce (no communication)"
"$CANNONRUN" -n "$RANKS" --timeout 120 "$PROG" "$@" --steps "$TSTEPS" --log-every 50 --no-sync-bn \
    | tee "$TMP/local.log"

step() { sed -n 's/^RESULT .*step_ms=\([0-9.]*\).*/\1/p' "$1"; }
field() { sed -n "s/^RESULT .*$2=\([0-9.]*\).*/\1/p" "$1"; }
S=$(step "$TMP/sync.log")
L=$(step "$TMP/local.log")
echo
echo "== summary"
awk -v s="$S" -v l="$L" -v bn="$(field "$TMP/sync.log" bn_comm_ms)" \
    -v g="$(field "$TMP/sync.log" grad_comm_ms)" -v h="$(field "$TMP/sync.log" hidden_ms)" \
    -v e="$(field "$TMP/sync.log" exposed_ms)" \
    -v d="$(sed -n 's/^check: max relative difference \([^ ]*\).*/\1/p' "$TMP/one.log")" \
    -v r="$RANKS" -v n="$TSTEPS" 'BEGIN {
    printf "%s ranks vs 1 rank: max relative parameter difference %s\n", r, d
    printf "step time (mean of %d steps): %.3f ms with SyncBN + gradient all-reduce, %.3f ms without communication", n, s, l
    if (l > 0) printf " (overhead %+.0f%%)", 100 * (s - l) / l
    printf "\n"
    printf "per step: SyncBN collectives %.3f ms (on the critical path); gradient all-reduce %.3f ms, ", bn, g
    printf "of which %.3f ms hidden behind backward", h
    if (g > 0) printf " (%.0f%%)", 100 * h / g
    printf ", %.3f ms exposed\n", e
}'
