#!/bin/sh
# check_kernel_project.sh BUILD_DIR SOURCE_DIR
#
# Installs the built tree into a temporary prefix and builds tests/ascendc/kernel_project against
# it the way CANN's kernel-launch samples build: include(<prefix>/tools/tikcpp/ascendc_kernel_cmake/
# ascendc.cmake), ascendc_library(), ascendc_compile_definitions(), host_intf_pub and the generated
# aclrtlaunch_<kernel>.h headers; then runs the host program (ACLRT_LAUNCH_KERNEL on a stream, every
# result checked) with the prefix's set_env.sh, installs the project and checks what it installed.
# Also the generator alone (--list, and a source without a kernel entry), bin/setenv.bash and ccec.
#
# Needs cmake, a C++ compiler, python3 and bash. Exit status 0 on success, 77 (CTest's skip code)
# when a tool is missing.
set -eu

build=${1:?usage: check_kernel_project.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: check_kernel_project.sh BUILD_DIR SOURCE_DIR}
build=$(cd "$build" && pwd)
src=$(cd "$src" && pwd)

for tool in cmake c++ python3 bash; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "check_kernel_project: $tool not found; skipping"
        exit 77
    fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/cannon-kernel-project.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

fail() {
    echo "check_kernel_project: FAIL: $*" >&2
    exit 1
}

prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
    fail "cmake --install failed: $(tail -n 20 "$work/install.log")"
kdir="$prefix/tools/tikcpp/ascendc_kernel_cmake"
[ -f "$kdir/ascendc.cmake" ] || fail "ascendc.cmake not installed in $kdir"
[ -x "$kdir/ascendc_launch_gen.py" ] || fail "ascendc_launch_gen.py not installed (executable) in $kdir"

# The generator alone.
proj="$src/tests/ascendc/kernel_project"
out=$("$kdir/ascendc_launch_gen.py" --list --source "$proj/iota.cpp") || fail "--list failed"
[ "$out" = "iota_i32
block_stamp" ] || fail "--list printed: $out"
printf '#include "kernel_operator.h"\n__aicore__ inline void f() {}\n' >"$work/none.cpp"
if "$kdir/ascendc_launch_gen.py" --list --source "$work/none.cpp" 2>"$work/none.err"; then
    fail "a source without a kernel entry was accepted"
fi
grep -q 'no kernel entry' "$work/none.err" || fail "no message for a source without entry: $(cat "$work/none.err")"

# The project: configure, build, run.
cmake -S "$proj" -B "$work/b" -DASCEND_CANN_PACKAGE_PATH="$prefix" -DSOC_VERSION=Ascend910B3 \
    -DCMAKE_BUILD_TYPE=Debug -DCMAKE_INSTALL_PREFIX="$work/out" >"$work/configure.log" 2>&1 ||
    fail "configuring the kernel project failed: $(cat "$work/configure.log")"
for k in scale_add iota_i32 block_stamp; do
    h="$work/b/include/kernels_npu/aclrtlaunch_$k.h"
    [ -f "$h" ] || fail "aclrtlaunch_$k.h not generated"
    grep -q "^extern \"C\" uint32_t aclrtlaunch_$k(uint32_t blockDim, aclrtStream stream, " "$h" ||
        fail "aclrtlaunch_$k.h lacks CANN's declaration: $(cat "$h")"
done
grep -q 'void\* z, ScaleAddTiling\* tiling);' "$work/b/include/kernels_npu/aclrtlaunch_scale_add.h" ||
    fail "the tiling struct is not passed by pointer: $(cat "$work/b/include/kernels_npu/aclrtlaunch_scale_add.h")"
cmake --build "$work/b" >"$work/build.log" 2>&1 ||
    fail "building the kernel project failed: $(cat "$work/build.log")"
# shellcheck disable=SC2016 # expanded by the inner shell
run_env() { env -i PATH=/usr/bin:/bin HOME="$work" CANNON_CPU_DEVICES=1 CANNON_CPU_DEVICE_MEMORY=1G \
    bash -c '. "$0/set_env.sh" && exec "$@"' "$prefix" "$@"; }
out=$(run_env "$work/b/kernel_host" 2>&1) || fail "the host program failed: $out"
[ "$out" = "kernel_project: ok" ] || fail "the host program printed: $out"
# On 1 and 3 worker threads: the same results.
for w in 1 3; do
    out=$(run_env env CANNON_CPU_THREADS=$w "$work/b/kernel_host" 2>&1) || fail "with $w workers: $out"
done

# The same project with the checker compiled in: short_copy's violation is the stream's error,
# naming the kernel source's own line.
cmake -S "$proj" -B "$work/bc" -DASCEND_CANN_PACKAGE_PATH="$prefix" -DCANNON_ASCENDC_CHECK=1 \
    >"$work/configure-checked.log" 2>&1 ||
    fail "configuring the checked kernel project failed: $(cat "$work/configure-checked.log")"
cmake --build "$work/bc" >"$work/build-checked.log" 2>&1 ||
    fail "building the checked kernel project failed: $(cat "$work/build-checked.log")"
out=$(run_env "$work/bc/kernel_host" 2>&1) || fail "the checked host program failed: $out"
case $out in
*"checker: "*"short_copy block 0: DataCopy of 7 elements"*"(short_copy.cpp:16)"*"kernel_project: ok") ;;
*) fail "the checked host program printed: $out" ;;
esac

# What ascendc_library installs: the library and the launch headers.
cmake --install "$work/b" >"$work/install2.log" 2>&1 ||
    fail "installing the kernel project failed: $(cat "$work/install2.log")"
[ -f "$work/out/include/kernels_npu/aclrtlaunch_scale_add.h" ] || fail "the launch headers were not installed"
find "$work/out" -name 'libkernels_npu.so*' | grep -q . || fail "libkernels_npu.so was not installed"

# bin/setenv.bash gives the prefix's environment, with ccec on the PATH; ccec compiles a kernel
# source given the device compiler's options.
# shellcheck disable=SC2016 # expanded by the inner shell
out=$(env -i PATH=/usr/bin:/bin bash -c '. "$0/bin/setenv.bash" && printf "%s\n" "$ASCEND_HOME_PATH" "$(command -v ccec)"' \
    "$prefix") || fail "sourcing bin/setenv.bash failed"
real=$(cd "$prefix" && pwd)
[ "$out" = "$real
$real/bin/ccec" ] || fail "bin/setenv.bash gave: $out"
# iota.cpp has a <<<>>> call (rewritten); scale_add.cpp none, and a quoted include of its folder.
"$prefix/bin/ccec" -xcce --cce-aicore-arch=dav-c220-vec -mllvm -cce-aicore-stack-size=0x8000 -O2 \
    -DSTAMP_SCALE=1000 -c "$proj/iota.cpp" -o "$work/iota.o" >"$work/ccec.log" 2>&1 ||
    fail "ccec failed: $(cat "$work/ccec.log")"
"$prefix/bin/ccec" -x cce --cce-auto-sync -O2 -c "$proj/scale_add.cpp" -o "$work/scale_add.o" \
    >"$work/ccec2.log" 2>&1 || fail "ccec failed: $(cat "$work/ccec2.log")"
for o in iota.o scale_add.o; do
    [ -s "$work/$o" ] || fail "ccec wrote no $o"
done
nm -C "$work/iota.o" | grep -q ' T iota_i32_do(' || fail "ccec: iota.o lacks iota_i32_do"
nm "$work/iota.o" | grep -q ' T aclrtlaunch_block_stamp$' || fail "ccec: iota.o lacks aclrtlaunch_block_stamp"
if "$prefix/bin/ccec" -c "$work/none.cpp" -DX=1 -Wall -Werror -o "$work/none.o" >"$work/ccec3.log" 2>&1; then
    :
else
    fail "ccec on a source without <<<>>>: $(cat "$work/ccec3.log")"
fi

echo "check_kernel_project: ok"
