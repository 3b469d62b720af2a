#!/bin/sh
# check_sample_project.sh BUILD_DIR SOURCE_DIR
#
# Installs the built tree into a temporary prefix and builds tests/ascendc/sample_project against
# it in both run modes of CANN's kernel-launch samples, as their scripts do:
#   cpu: find_package(tikicpulib) from <prefix>/tools/tikicpulib/lib/cmake, kernels and host
#        linked to tikicpulib::<SoC> (here Ascend310P3), ICPU_RUN_KF;
#   npu: <prefix>/tools/tikcpp/ascendc_kernel_cmake/ascendc.cmake, ACLRT_LAUNCH_KERNEL on a stream;
# both linking ascendcl, c_sec, tiling_api, register, platform and ascendalog by name. Each host
# program checks every result against a float64 reference and runs in the environment of the
# prefix's bin/setenv.bash. Also checks the installed layout those scripts rely on.
#
# Exit status 0 on success, 77 (CTest's skip code) when cmake, c++ or bash is missing.
set -eu

build=${1:?usage: check_sample_project.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: check_sample_project.sh BUILD_DIR SOURCE_DIR}
build=$(cd "$build" && pwd)
src=$(cd "$src" && pwd)

for tool in cmake c++ bash; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "check_sample_project: $tool not found; skipping"
        exit 77
    fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/cannon-sample-project.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

fail() {
    echo "check_sample_project: FAIL: $*" >&2
    exit 1
}

prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
    fail "cmake --install failed: $(tail -n 20 "$work/install.log")"
for f in tools/tikicpulib/lib/cmake/tikicpulib-config.cmake include/securec.h include/ascendc/tikicpulib.h \
    bin/setenv.bash bin/ccec tools/tikcpp/ascendc_kernel_cmake/ascendc.cmake; do
    [ -f "$prefix/$f" ] || fail "$f is not installed"
done
for l in c_sec tiling_api register platform ascendalog ascendcl cannon_ascendc; do
    [ -f "$prefix/lib64/lib$l.so" ] || fail "lib$l.so is not in <prefix>/lib64"
done

proj="$src/tests/ascendc/sample_project"
# shellcheck disable=SC2016 # expanded by the inner shell
run_env() { env -i PATH=/usr/bin:/bin HOME="$work" CANNON_CPU_DEVICES=1 CANNON_CPU_DEVICE_MEMORY=1G \
    bash -c '. "$0/bin/setenv.bash" && exec "$@"' "$prefix" "$@"; }
for mode in cpu:Ascend310P3 npu:Ascend910B1; do
    m=${mode%%:*}
    soc=${mode#*:}
    run_env cmake -S "$proj" -B "$work/$m" -DRUN_MODE="$m" -DSOC_VERSION="$soc" -DCMAKE_BUILD_TYPE=Debug \
        -DASCEND_CANN_PACKAGE_PATH="$prefix" >"$work/$m-configure.log" 2>&1 ||
        fail "configuring the $m project failed: $(cat "$work/$m-configure.log")"
    run_env cmake --build "$work/$m" >"$work/$m-build.log" 2>&1 ||
        fail "building the $m project failed: $(cat "$work/$m-build.log")"
    out=$(run_env "$work/$m/sample_host" 2>&1) || fail "the $m host program failed: $out"
    [ "$out" = "sample_project $m: ok" ] || fail "the $m host program printed: $out"
done
# The CPU build compiled as CANN's CPU-debug build does.
grep -q -- '-D__CCE_KT_TEST__=1' "$work/cpu/CMakeFiles/kernels_cpu.dir/flags.make" ||
    fail "tikicpulib::Ascend310P3 does not define __CCE_KT_TEST__"
grep -q -- '-D__NPU_ARCH__=2002' "$work/cpu/CMakeFiles/kernels_cpu.dir/flags.make" ||
    fail "tikicpulib::Ascend310P3 does not define __NPU_ARCH__=2002"

echo "check_sample_project: ok"
