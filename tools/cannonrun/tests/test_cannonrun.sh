#!/bin/sh
# Launcher tests: test_cannonrun.sh CASE, with $CANNONRUN and $TEST_RANK set by CTest.
# Each case finishes in a few seconds; the rank program is tests/test_rank.c.
set -u
: "${CANNONRUN:?}" "${TEST_RANK:?}"
CASE=${1:?case}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL [$CASE]: $*"; echo "--- output:"; cat "$WORK/out" 2>/dev/null; exit 1; }

case "$CASE" in
env)
    "$CANNONRUN" -n 3 --devices 4,5,6 --rank-table-out "$WORK/rt.json" "$TEST_RANK" env >"$WORK/out" 2>&1
    rc=$?
    [ $rc -eq 0 ] || fail "exit $rc"
    for r in 0 1 2; do
        grep -q "^rank=$r size=3 local=$r/3 device=$((r + 4)) source=cann cannonrun=1$" "$WORK/out" ||
            fail "rank $r line"
        for kv in "RANK_ID=$r" "RANK_SIZE=3" "DEVICE_ID=$((r + 4))" "ASCEND_DEVICE_ID=$((r + 4))" \
            "LOCAL_RANK=$r" "LOCAL_WORLD_SIZE=3" "RANK=$r" "WORLD_SIZE=3" "MASTER_ADDR=127.0.0.1"; do
            grep -q "^r$r $kv\$" "$WORK/out" || fail "rank $r lacks $kv"
        done
        grep -q "^r$r MASTER_PORT=[0-9][0-9]*\$" "$WORK/out" || fail "MASTER_PORT"
        grep -q "^r$r CANNON_HCCL_ROOT_INFO_FILE=/" "$WORK/out" || fail "root info file"
    done
    grep -q '"version": "1.0"' "$WORK/out" || fail "rank table version"
    grep -q '"device_id": "5", .*"rank_id": "1"' "$WORK/out" || fail "rank table device"
    grep -q '"version": "1.0"' "$WORK/rt.json" || fail "--rank-table-out"
    rt=$(sed -n 's/^r0 RANK_TABLE_FILE=//p' "$WORK/out")
    [ -n "$rt" ] && [ ! -e "$rt" ] || fail "temp rank table $rt not removed"
    [ ! -e "$(dirname "$rt")" ] || fail "temp dir not removed"
    ;;
exitcode)
    "$CANNONRUN" -n 3 "$TEST_RANK" exit 0 0 0 >"$WORK/out" 2>&1 || fail "all-zero job failed"
    # Every rank fails, 0.2 s apart, ignoring the launcher's SIGTERM (the grace period is long):
    # the worst status (5), not the first (1), is returned. The ranks wait for each other
    # after setting the trap, so the launcher's SIGTERM cannot reach a rank before its trap.
    W="$WORK" "$CANNONRUN" -n 3 --grace 5 sh -c 'trap "" TERM; : >"$W/r.$RANK_ID";
        while [ "$(ls "$W" | grep -c "^r\.")" -lt 3 ]; do sleep 0.02; done;
        sleep 0.$((RANK_ID * 2)); exit $((RANK_ID * 2 + 1))' >"$WORK/out" 2>&1
    rc=$?
    [ $rc -eq 5 ] || fail "expected 5, got $rc"
    "$CANNONRUN" -n 2 "$TEST_RANK" exit 5 0 >"$WORK/out" 2>&1
    rc=$?
    [ $rc -eq 5 ] || fail "expected 5, got $rc"
    "$CANNONRUN" -n 2 /nonexistent/prog >"$WORK/out" 2>&1
    rc=$?
    [ $rc -eq 127 ] || fail "missing program: expected 127, got $rc"
    "$CANNONRUN" -n 2 --devices 0 "$TEST_RANK" env >"$WORK/out" 2>&1
    rc=$?
    [ $rc -eq 2 ] || fail "bad --devices: expected 2, got $rc"
    ;;
sigkill)
    start=$(date +%s)
    "$CANNONRUN" -n 3 --grace 2 "$TEST_RANK" kill 1 9 >"$WORK/out" 2>&1
    rc=$?
    end=$(date +%s)
    [ $rc -eq 137 ] || fail "expected 137, got $rc"
    [ $((end - start)) -lt 10 ] || fail "others were not killed promptly ($((end - start)) s)"
    grep -q "rank 1 .*killed by signal 9" "$WORK/out" || fail "no diagnostic"
    # A rank that ignores SIGTERM is SIGKILLed after the grace period.
    start=$(date +%s)
    # Rank 0 fails only once rank 1 reported that it ignores SIGTERM.
    W="$WORK" "$CANNONRUN" -n 2 --grace 1 sh -c 'if [ "$RANK_ID" = 0 ]; then
            while [ ! -e "$W/ready.1" ]; do sleep 0.02; done; exit 4; fi;
        exec "$0" ignore "$W"' "$TEST_RANK" >"$WORK/out" 2>&1
    rc=$?
    end=$(date +%s)
    [ $rc -eq 4 ] || fail "expected 4, got $rc"
    [ $((end - start)) -lt 10 ] || fail "SIGKILL after grace took $((end - start)) s"
    grep -q "sending SIGKILL" "$WORK/out" || fail "no SIGKILL diagnostic"
    ;;
forward)
    "$CANNONRUN" -n 2 --tag-output "$TEST_RANK" trap "$WORK" >"$WORK/out" 2>&1 &
    pid=$!
    i=0
    while [ ! -e "$WORK/ready.0" ] || [ ! -e "$WORK/ready.1" ]; do
        i=$((i + 1))
        [ $i -lt 200 ] || { kill -9 $pid; fail "ranks never got ready"; }
        sleep 0.05
    done
    kill -INT $pid
    wait $pid
    rc=$?
    # Both ranks exit 40+SIGINT(2) = 42 from their handlers.
    [ $rc -eq 42 ] || fail "expected 42, got $rc"
    grep -q "^\[0\] rank 0 got signal 2$" "$WORK/out" || fail "rank 0 did not see SIGINT (tagged)"
    grep -q "^\[1\] rank 1 got signal 2$" "$WORK/out" || fail "rank 1 did not see SIGINT (tagged)"
    rm -f "$WORK"/ready.*
    "$CANNONRUN" -n 2 "$TEST_RANK" trap "$WORK" >"$WORK/out" 2>&1 &
    pid=$!
    i=0
    while [ ! -e "$WORK/ready.0" ] || [ ! -e "$WORK/ready.1" ]; do
        i=$((i + 1))
        [ $i -lt 200 ] || { kill -9 $pid; fail "ranks never got ready"; }
        sleep 0.05
    done
    kill -TERM $pid
    wait $pid
    rc=$?
    [ $rc -eq 55 ] || fail "SIGTERM: expected 55, got $rc"
    grep -q "^rank 1 got signal 15$" "$WORK/out" || fail "rank 1 did not see SIGTERM"
    ;;
timeout)
    start=$(date +%s)
    "$CANNONRUN" -n 2 --timeout 1 --grace 1 "$TEST_RANK" sleep 30 >"$WORK/out" 2>&1
    rc=$?
    end=$(date +%s)
    [ $rc -eq 124 ] || fail "expected 124, got $rc"
    [ $((end - start)) -lt 8 ] || fail "timeout took $((end - start)) s"
    ;;
usage)
    # Durations must be finite, non-negative numbers: nan would compare false with everything and
    # mean no timeout, inf the same in disguise. Each is a usage error (2) before any rank starts.
    for opt in --timeout --grace; do
        for bad in nan NaN -nan inf -inf infinity 1e999 -1 -0.5 "" " 1" 1x 0x10; do
            "$CANNONRUN" -n 1 $opt "$bad" "$TEST_RANK" exit 0 >"$WORK/out" 2>&1
            rc=$?
            [ $rc -eq 2 ] || fail "$opt '$bad': expected 2, got $rc"
            grep -q -e "$opt wants" "$WORK/out" || fail "$opt '$bad': no usage message"
            if grep -q "^rank=" "$WORK/out"; then fail "$opt '$bad': a rank ran"; fi
        done
    done
    "$CANNONRUN" -n 1 --timeout 30.5 --grace 0 "$TEST_RANK" exit 0 >"$WORK/out" 2>&1 || fail "valid durations"
    "$CANNONRUN" -n 1 --timeout 1e9 "$TEST_RANK" exit 0 >"$WORK/out" 2>&1 || fail "a long timeout"
    ;;
*)
    echo "unknown case $CASE"
    exit 2
    ;;
esac
echo "PASS [$CASE]"
