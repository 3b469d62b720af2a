#!/bin/sh
# check_opc_package.sh BUILD_DIR SOURCE_DIR [SANITIZE_FLAGS]
#
# Builds the test package (tests/ascendc/opc_package: AxpyCustom with FLOAT16 and FLOAT columns
# and its backward op AxpyCustomGrad) with tools/ascendc/cannon-opc against the build tree,
# installs it into a temporary OPP folder, and checks:
#   - the installed layout (config.ini, op_api/include/aclnn_*.h, op_api/lib/libcust_opapi.so,
#     one kernel binary per column) and the generated declarations;
#   - a C program (opc_main.c) built as CANN's single-op API sample is (-lcust_opapi -lascendcl
#     -lnnopbase), with every element checked; a bad dtype's phase-1 message;
#   - a kernel binary without the trampoline symbol, and a package whose kernel folder is
#     missing (a wrong layout): clear phase-1 messages;
#   - cannon.torch loading the package through ASCEND_CUSTOM_OPP_PATH and through
#     ASCEND_OPP_PATH/vendors/config.ini (opc_package/test_opc_torch.py, with /usr/bin/python3).
# SANITIZE_FLAGS (e.g. -fsanitize=address,undefined) are passed to every compile and link.
# Exit status 0 on success, 77 (CTest's skip code) when a tool is missing.
set -eu

build=${1:?usage: check_opc_package.sh BUILD_DIR SOURCE_DIR [SANITIZE_FLAGS]}
src=${2:?usage: check_opc_package.sh BUILD_DIR SOURCE_DIR [SANITIZE_FLAGS]}
san=${3:-}
build=$(cd "$build" && pwd)
src=$(cd "$src" && pwd)

for tool in cc c++ python3; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "check_opc_package: $tool not found; skipping"
        exit 77
    fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/cannon-opc-package.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

fail() {
    echo "check_opc_package: FAIL: $*" >&2
    exit 1
}

pkg="$src/tests/ascendc/opc_package"
lib="$build/lib"
opc() {
    set -- "$@" --include "$src/include/ascendc" --include "$src/include" --lib-dir "$lib"
    for f in $san; do
        set -- "$@" "--cxxflags=$f"
    done
    python3 "$src/tools/ascendc/cannon-opc" "$@"
}

# Build and install.
opc build --op-host "$pkg/op_host" --op-kernel "$pkg/op_kernel" -o "$work/out" --vendor cannon_test \
    >"$work/build.log" 2>&1 || fail "cannon-opc build failed: $(cat "$work/build.log")"
python3 "$src/tools/ascendc/cannon-opc" install "$work/out" --install-path "$work/opp" >"$work/install.log" 2>&1 ||
    fail "cannon-opc install failed: $(cat "$work/install.log")"
v="$work/opp/vendors/cannon_test"
[ "$(cat "$work/opp/vendors/config.ini")" = "load_priority=cannon_test" ] ||
    fail "config.ini: $(cat "$work/opp/vendors/config.ini")"
for f in op_api/include/aclnn_axpy_custom.h op_api/include/aclnn_axpy_custom_grad.h op_api/lib/libcust_opapi.so \
    op_impl/ai_core/tbe/kernel/axpy_custom/axpy_custom_0.so op_impl/ai_core/tbe/kernel/axpy_custom/axpy_custom_1.so \
    op_impl/ai_core/tbe/kernel/axpy_custom_grad/axpy_custom_grad_1.so bin/set_env.bash; do
    [ -f "$v/$f" ] || fail "$f not installed"
done
grep -q 'aclnnStatus aclnnAxpyCustomGetWorkspaceSize(const aclTensor \*x, const aclTensor \*y, double alpha, const aclTensor \*z, uint64_t \*workspaceSize, aclOpExecutor \*\*executor);' \
    "$v/op_api/include/aclnn_axpy_custom.h" || fail "phase-1 declaration: $(cat "$v/op_api/include/aclnn_axpy_custom.h")"
grep -q 'aclnnStatus aclnnAxpyCustom(void \*workspace, uint64_t workspaceSize,' "$v/op_api/include/aclnn_axpy_custom.h" ||
    fail "phase-2 declaration"

# The C caller, built as CANN's sample builds it.
# shellcheck disable=SC2086 # san is a list of options
cc -std=c11 $san -I"$v/op_api/include" -I"$src/include" "$pkg/opc_main.c" -o "$work/opc_main" \
    -L"$v/op_api/lib" -L"$lib" -Wl,-rpath,"$v/op_api/lib" -Wl,-rpath,"$lib" -lcust_opapi -lascendcl -lnnopbase -lm \
    >"$work/cc.log" 2>&1 || fail "building opc_main failed: $(cat "$work/cc.log")"
export CANNON_DRIVER_PATH="${CANNON_DRIVER_PATH:-$build/lib}"
out=$("$work/opc_main" run 2>&1) || fail "opc_main run: $out"
out=$("$work/opc_main" bad-dtype 2>&1) || fail "opc_main bad-dtype: $out"
echo "$out" | head -n 1

# A kernel binary without the trampoline: a clear message at phase 1.
cp -r "$v" "$work/broken"
printf 'int cannon_opc_unrelated(void) { return 0; }\n' >"$work/empty.c"
# shellcheck disable=SC2086
cc $san -shared -fPIC "$work/empty.c" -o "$work/broken/op_impl/ai_core/tbe/kernel/axpy_custom/axpy_custom_1.so" ||
    fail "building the empty kernel binary failed"
cc -std=c11 $san -I"$v/op_api/include" -I"$src/include" "$pkg/opc_main.c" -o "$work/opc_broken" \
    -L"$work/broken/op_api/lib" -L"$lib" -Wl,-rpath,"$work/broken/op_api/lib" -Wl,-rpath,"$lib" \
    -lcust_opapi -lascendcl -lnnopbase -lm >"$work/cc2.log" 2>&1 || fail "building opc_broken failed: $(cat "$work/cc2.log")"
out=$("$work/opc_broken" no-kernel "lacks the symbol cannon_opc_kernel" 2>&1) || fail "missing symbol: $out"
echo "$out" | head -n 1
# A wrong layout: the kernel folder is missing.
rm -rf "$work/broken/op_impl"
out=$("$work/opc_broken" no-kernel "cannot load the kernel binary of AxpyCustom" 2>&1) || fail "missing kernels: $out"
echo "$out" | head -n 1

# PyTorch, through the environment.
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import torch, pytest' >/dev/null 2>&1 && [ -z "$san" ]; then
    PYTHONPATH="$src/python${PYTHONPATH:+:$PYTHONPATH}" CANNON_LIB_DIR="$lib" CANNON_OPC_TEST_OPP="$work/opp" \
        /usr/bin/python3 -m pytest -q -p no:cacheprovider "$pkg/test_opc_torch.py" >"$work/pytest.log" 2>&1 ||
        fail "PyTorch: $(cat "$work/pytest.log")"
    tail -n 1 "$work/pytest.log"
else
    echo "check_opc_package: PyTorch part skipped (no /usr/bin/python3 with torch and pytest, or a sanitizer build)"
fi
echo "check_opc_package: ok"
