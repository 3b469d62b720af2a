#!/usr/bin/env bash
# Run the libFuzzer targets of a fuzz build (make fuzz-build: build-fuzz/, clang, CANNON_SANITIZE=fuzzer).
#
#   fuzz/run.sh smoke [SECONDS] [TARGET...]     replay the committed corpus of each target, then fuzz
#                                               it for SECONDS (default 30) from that corpus; CI runs this
#   fuzz/run.sh campaign [SECONDS] [TARGET...]  fuzz each target for SECONDS (default 3600) on one core,
#                                               growing fuzz/work/<target>/corpus (not committed), and
#                                               print executions, coverage and findings per target
#   fuzz/run.sh pack [TARGET...]                minimise seed + grown corpus (libFuzzer -merge) into
#                                               the committed fuzz/corpus/<target>.tar.xz
#
# The seed corpora are committed as one archive per target (fuzz/corpus/<target>.tar.xz: thousands
# of small inputs), unpacked into fuzz/work/<target>/seed before a run; fuzz/seeds.py writes the
# hand-written seeds a new corpus starts from. fuzz/dict/<target>.dict, where present, is the
# target's dictionary.
#
# A target whose name ends in .py is a Python campaign (fuzz_ops_call.py: no corpus, a random
# seed that it prints): it runs against the fuzz build's shared libraries under ASan when they
# were built (cmake --build build-fuzz --target ascendcl nnopbase opapi), else against build/.
#
# A finding (crash, sanitizer report, leak, timeout over 10 s) stops the target, leaves the input
# in fuzz/work/<target>/ (crash-*, leak-*, timeout-*, failure-*, hang-*) and makes the script exit 1.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${CANNON_FUZZ_BUILD:-$here/../build-fuzz}"
mode="${1:-smoke}"
shift || true
secs="${1:-}"
if [[ "$secs" =~ ^[0-9]+$ ]]; then shift; else secs=""; fi
[ -n "$secs" ] || { [ "$mode" = campaign ] && secs=3600 || secs=30; }
case "$mode" in smoke|campaign|pack) ;; *) sed -n '2,22p' "$0"; exit 2 ;; esac
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$here"/fuzz_*.c; do targets+=("$(basename "$f" .c)"); done
  for f in "$here"/fuzz_*.py; do targets+=("$(basename "$f")"); done
fi

status=0
[ "$mode" = pack ] || printf '%-18s %12s %10s %8s %s\n' target executions exec/s cov result
for t in "${targets[@]}"; do
  if [[ "$t" == *.py ]]; then
    [ "$mode" = pack ] && { echo "$t: a Python campaign has no corpus"; continue; }
    work="$here/work/$t"
    log="$work/last.log"
    mkdir -p "$work"
    pyenv=()
    libs="build/ libraries"
    if [ -f "$build/lib/libopapi.so" ]; then
      asan="$(clang -print-file-name=libclang_rt.asan-x86_64.so 2>/dev/null)"
      if [ -f "$asan" ]; then
        pyenv=(CANNON_LIB_DIR="$build/lib" LD_PRELOAD="$asan"
               ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:allocator_may_return_null=1")
        libs="ASan libraries of $(basename "$build")"
      fi
    fi
    env "${pyenv[@]}" /usr/bin/python3 "$here/$t" --seconds "$secs" --out "$work" >"$log" 2>&1
    rc=$?
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
    if [ $rc -eq 0 ]; then res="clean ($(head -1 "$log"), $libs)"; else res="FINDING (see $work, log $log)"; status=1; fi
    printf '%-18s %12s %10s %8s %s\n' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "$res"
    [ $rc -eq 0 ] || grep -m1 -B2 -A30 'FINDING\|ERROR' "$log" | head -40
    continue
  fi
  bin="$build/bin/$t"
  if [ ! -x "$bin" ]; then echo "$t: $bin not built (make fuzz-build)"; status=1; continue; fi
  work="$here/work/$t"
  corpus="$work/seed"
  rm -rf "$corpus"
  mkdir -p "$work" "$corpus" "$work/corpus"
  [ -f "$here/corpus/$t.tar.xz" ] && tar -xJf "$here/corpus/$t.tar.xz" -C "$corpus"
  if [ "$mode" = pack ]; then
    fresh="$(mktemp -d)"
    "$bin" -merge=1 "$fresh" "$corpus" "$work/corpus" >"$work/pack.log" 2>&1 || { tail -20 "$work/pack.log"; exit 1; }
    (cd "$fresh" && tar -cJf "$here/corpus/$t.tar.xz" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 .)
    echo "$t: $(ls "$fresh" | wc -l) inputs in fuzz/corpus/$t.tar.xz"
    rm -rf "$fresh"
    continue
  fi
  dict=()
  [ -f "$here/dict/$t.dict" ] && dict=(-dict="$here/dict/$t.dict")
  log="$work/last.log"
  common=(-timeout=10 -rss_limit_mb=4096 -artifact_prefix="$work/" -print_final_stats=1 "${dict[@]}")
  # The committed corpus first, each input once, under the sanitizers.
  if ! "$bin" "${common[@]}" -runs=0 "$corpus" >"$log" 2>&1; then
    echo "$t: replaying fuzz/corpus/$t.tar.xz failed:"; tail -40 "$log"; status=1; continue
  fi
  if [ "$mode" = smoke ]; then
    tmp="$(mktemp -d)"
    "$bin" "${common[@]}" -max_total_time="$secs" "$tmp" "$corpus" >"$log" 2>&1
    rc=$?
    rm -rf "$tmp"
  else
    before="$(ls "$work" | grep -E '^(crash|leak|timeout|oom)-' | sort)"
    "$bin" "${common[@]}" -max_total_time="$secs" "$work/corpus" "$corpus" >"$log" 2>&1
    rc=$?
    after="$(ls "$work" | grep -E '^(crash|leak|timeout|oom)-' | sort)"
    [ "$before" = "$after" ] || rc=1
  fi
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
  if [ $rc -eq 0 ]; then res=clean; else res="FINDING (see $work, log $log)"; status=1; fi
  printf '%-18s %12s %10s %8s %s\n' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "$res"
  [ $rc -eq 0 ] || grep -m1 -A30 'ERROR: \|==ERROR\|runtime error\|deadly signal' "$log" | head -40
done
exit $status
