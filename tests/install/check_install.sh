#!/bin/sh
# check_install.sh BUILD_DIR SOURCE_DIR
#
# Installs a built tree and builds README.md's sample against the installed copy, the two ways
# the README promises: with pkg-config (ascendcl.pc) and with CMake (find_package(cannon) +
# cannon::ascendcl, and cannon::ascendcl_static as well). Both programs must run and print the README's output. It installs twice:
# once with --prefix (a relocated install), once with DESTDIR (staged, as packagers do), so the
# .pc file and the CMake package must not depend on the configure-time prefix.
#
# Every library's pkg-config file (cannon, ascendcl, nnopbase, opapi, hccl, acl_op_compiler) must
# resolve inside the installed prefix and give flags that build and run a program calling that
# library.
#
# The prefix must also be a CANN toolkit (ASCEND_TOOLKIT_HOME): include/{acl,aclnn,aclnnop,hccl},
# lib64/ with the five libraries (lib/ works too; pkg-config and CMake through either), set_env.sh
# exporting ASCEND_TOOLKIT_HOME, ASCEND_HOME_PATH, LD_LIBRARY_PATH, PATH and PYTHONPATH (checked
# under sh and bash), a program built the way CANN clients build (-I include -L lib64 -lascendcl
# ...) running with that environment, npu-smi printing the device table from which build scripts
# read the SoC (line 7, third field) and the board query, and the Python package importable.
#
# Needs: cmake, a C compiler (cc), pkg-config. Exit status 0 on success; 77 (CTest's skip code)
# when a tool is missing.
set -eu

build=${1:?usage: check_install.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: check_install.sh BUILD_DIR SOURCE_DIR}
build=$(cd "$build" && pwd)
src=$(cd "$src" && pwd)

for tool in cmake cc pkg-config; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "check_install: $tool not found; skipping"
        exit 77
    fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/cannon-install.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

fail() {
    echo "check_install: FAIL: $*" >&2
    exit 1
}

# The sample: the first ```c block of the README.
awk '/^```c$/ { on = 1; next } on && /^```$/ { exit } on { print }' "$src/README.md" >"$work/sample.c"
[ -s "$work/sample.c" ] || fail "no \`\`\`c block in $src/README.md"

# Its expected output: the copy comes back intact and the too-small destination is refused with
# a message that says why.
check_output() { # $1: label, $2: output file
    grep -q '^sync: 0, back\[3\] = 4$' "$2" || fail "$1: unexpected output: $(cat "$2")"
    grep -q '^expected error: .*destMax' "$2" || fail "$1: no expected-error line: $(cat "$2")"
    echo "check_install: $1: ok"
}

# $1: label, $2: the installed prefix as seen on this machine.
check_prefix() {
    label=$1
    prefix=$2
    [ -f "$prefix/include/acl/acl.h" ] || fail "$label: $prefix/include/acl/acl.h not installed"
    pcdir=$(dirname "$(find "$prefix" -name ascendcl.pc | head -n 1)")
    [ -f "$pcdir/ascendcl.pc" ] || fail "$label: ascendcl.pc not installed"
    libdir=$(dirname "$(find "$prefix" -name 'libascendcl.so*' | head -n 1)")
    [ -d "$libdir" ] || fail "$label: libascendcl.so not installed"
    cmakedir=$(dirname "$(find "$prefix" -name cannonConfig.cmake | head -n 1)")
    [ -f "$cmakedir/cannonConfig.cmake" ] || fail "$label: cannonConfig.cmake not installed"

    # 1. pkg-config; the check below makes sure no system-wide copy answered.
    flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs ascendcl) ||
        fail "$label: pkg-config --cflags --libs ascendcl failed"
    case "$flags" in
    *"$prefix"*) ;;
    *) fail "$label: pkg-config flags do not point into $prefix: $flags" ;;
    esac
    # shellcheck disable=SC2086 # the flags are meant to split
    cc -std=c11 -Wall -Werror -o "$work/$label-pc" "$work/sample.c" $flags ||
        fail "$label: compiling the sample with pkg-config's flags failed ($flags)"
    LD_LIBRARY_PATH="$libdir" "$work/$label-pc" >"$work/$label-pc.out" 2>&1 ||
        fail "$label: the pkg-config build of the sample failed: $(cat "$work/$label-pc.out")"
    check_output "$label pkg-config" "$work/$label-pc.out"

    # 1b. Every library's .pc file: its prefix is the install's, its headers and library are
    # there, and a program built with its flags alone links and runs (each program calls its
    # library with a NULL argument and checks the documented error code).
    for pc in cannon ascendcl nnopbase opapi hccl acl_op_compiler; do
        [ -f "$pcdir/$pc.pc" ] || fail "$label: $pc.pc not installed"
        pc_prefix=$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=prefix "$pc") ||
            fail "$label: pkg-config --variable=prefix $pc failed"
        [ "$(cd "$pc_prefix" && pwd -P)" = "$(cd "$prefix" && pwd -P)" ] ||
            fail "$label: $pc.pc's prefix $pc_prefix is not $prefix"
        pc_inc=$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=includedir "$pc")
        pc_lib=$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=libdir "$pc")
        [ -f "$pc_inc/acl/acl.h" ] || fail "$label: $pc.pc: no acl/acl.h under $pc_inc"
        case $pc in
        nnopbase)
            body='return aclInitTensor(NULL, NULL, 0, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 0, NULL) == ACLNN_ERR_PARAM_NULLPTR ? 0 : 1;'
            hdr='aclnn/aclnn_base.h' lib=nnopbase ;;
        opapi)
            body='return aclnnSoftmaxGetWorkspaceSize(NULL, 0, NULL, NULL, NULL) == ACLNN_ERR_PARAM_NULLPTR ? 0 : 1;'
            hdr='aclnnop/aclnn_softmax.h' lib=opapi ;;
        hccl)
            body='return HcclGetRootInfo(NULL) == HCCL_E_PTR ? 0 : 1;'
            hdr='hccl/hccl.h' lib=hccl ;;
        acl_op_compiler)
            body='return aclopSetCompileFlag((aclOpCompileFlag)7) == ACL_ERROR_INVALID_PARAM ? 0 : 1;'
            hdr='acl/acl_op_compiler.h' lib=acl_op_compiler ;;
        *)
            body='int32_t a = 0, b = 0, c = 0; return aclrtGetVersion(&a, &b, &c) == ACL_SUCCESS ? 0 : 1;'
            hdr='acl/acl.h' lib=ascendcl ;;
        esac
        [ -f "$pc_inc/$hdr" ] || fail "$label: $pc.pc: no $hdr under $pc_inc"
        [ -f "$pc_lib/lib$lib.so" ] || fail "$label: $pc.pc: no lib$lib.so in $pc_lib"
        printf '#include <%s>\nint main(void)\n{\n    %s\n}\n' "$hdr" "$body" >"$work/pc-$pc.c"
        flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs "$pc") ||
            fail "$label: pkg-config --cflags --libs $pc failed"
        # shellcheck disable=SC2086 # the flags are meant to split
        cc -std=c11 -Wall -Werror -o "$work/$label-pc-$pc" "$work/pc-$pc.c" $flags ||
            fail "$label: building against $pc.pc failed ($flags)"
        LD_LIBRARY_PATH="$libdir" "$work/$label-pc-$pc" ||
            fail "$label: the program built against $pc.pc did not get the expected result"
    done
    echo "check_install: $label pkg-config files (cannon ascendcl nnopbase opapi hccl acl_op_compiler): ok"

    # 2. CMake: find_package(cannon) + cannon::ascendcl.
    app="$work/$label-app"
    mkdir -p "$app"
    cp "$work/sample.c" "$app/sample.c"
    cat >"$app/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.16)
project(cannon_install_check C)
find_package(cannon REQUIRED)
add_executable(app sample.c)
target_link_libraries(app cannon::ascendcl)
add_executable(app_static sample.c)
target_link_libraries(app_static cannon::ascendcl_static)
EOF
    cmake -S "$app" -B "$app/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >"$app/configure.log" 2>&1 ||
        fail "$label: configuring the find_package(cannon) project failed: $(cat "$app/configure.log")"
    grep -q "$cmakedir" "$app/build/CMakeCache.txt" ||
        fail "$label: find_package(cannon) did not find the package in $cmakedir"
    cmake --build "$app/build" >"$app/build.log" 2>&1 ||
        fail "$label: building the find_package(cannon) project failed: $(cat "$app/build.log")"
    LD_LIBRARY_PATH="$libdir" "$app/build/app" >"$work/$label-cmake.out" 2>&1 ||
        fail "$label: the CMake build of the sample failed: $(cat "$work/$label-cmake.out")"
    check_output "$label cmake" "$work/$label-cmake.out"
    "$app/build/app_static" >"$work/$label-static.out" 2>&1 ||
        fail "$label: the CMake build of the sample with the static library failed: $(cat "$work/$label-static.out")"
    check_output "$label cmake static" "$work/$label-static.out"
}

# $1: label, $2: the installed prefix as seen on this machine, $3: the prefix it was installed for
# (what set_env.sh names when the shell cannot tell where the file is).
check_cann_layout() {
    label=$1
    prefix=$2
    final=$3
    for d in acl aclnn aclnnop hccl; do
        [ -d "$prefix/include/$d" ] || fail "$label: include/$d not installed"
    done
    for h in acl/acl.h acl/acl_rt.h acl/acl_mdl.h acl/acl_op.h acl/acl_op_compiler.h aclnn/aclnn_base.h \
        aclnnop/aclnn_add.h hccl/hccl.h; do
        [ -f "$prefix/include/$h" ] || fail "$label: include/$h not installed"
    done
    for dir in lib64 lib; do
        for l in ascendcl nnopbase opapi hccl acl_op_compiler; do
            [ -f "$prefix/$dir/lib$l.so" ] || fail "$label: $dir/lib$l.so missing"
        done
    done
    [ "$(cd "$prefix/lib64" && pwd -P)" = "$(cd "$prefix/lib" && pwd -P)" ] ||
        fail "$label: lib64 and lib are different directories"

    # pkg-config and CMake through lib64 as well.
    flags=$(PKG_CONFIG_PATH="$prefix/lib64/pkgconfig" pkg-config --cflags --libs opapi) ||
        fail "$label: pkg-config through lib64/pkgconfig failed"
    case "$flags" in
    *"$prefix"*) ;;
    *) fail "$label: pkg-config flags through lib64 do not point into $prefix: $flags" ;;
    esac
    app="$work/$label-app64"
    mkdir -p "$app"
    cp "$work/sample.c" "$app/sample.c"
    printf 'cmake_minimum_required(VERSION 3.16)\nproject(c64 C)\nfind_package(cannon REQUIRED)\nadd_executable(app sample.c)\ntarget_link_libraries(app cannon::ascendcl cannon::acl_op_compiler)\n' \
        >"$app/CMakeLists.txt"
    cmake -S "$app" -B "$app/build" -Dcannon_DIR="$prefix/lib64/cmake/cannon" >"$app/configure.log" 2>&1 ||
        fail "$label: find_package(cannon) through lib64/cmake/cannon failed: $(cat "$app/configure.log")"
    cmake --build "$app/build" >"$app/build.log" 2>&1 ||
        fail "$label: building through lib64/cmake/cannon failed: $(cat "$app/build.log")"

    # set_env.sh: under sh it names the install prefix; under bash it finds itself.
    [ -f "$prefix/set_env.sh" ] || fail "$label: set_env.sh not installed"
    # shellcheck disable=SC2016 # expanded by the inner shell
    show='. "$1/set_env.sh" && printf "%s\n" "$ASCEND_TOOLKIT_HOME" "$ASCEND_HOME_PATH" "$LD_LIBRARY_PATH" "$PATH" "$PYTHONPATH"'
    env -i PATH=/usr/bin:/bin sh -c "$show" sh "$prefix" >"$work/$label-env-sh" ||
        fail "$label: sourcing set_env.sh under sh failed"
    want_sh="$final
$final
$final/lib64
$final/bin:/usr/bin:/bin
$final/python/site-packages"
    [ "$(cat "$work/$label-env-sh")" = "$want_sh" ] ||
        fail "$label: set_env.sh under sh exported: $(cat "$work/$label-env-sh")"
    if command -v bash >/dev/null 2>&1; then
        real=$(cd "$prefix" && pwd)
        env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH=/x bash -c "$show" bash "$prefix" >"$work/$label-env-bash" ||
            fail "$label: sourcing set_env.sh under bash failed"
        want_bash="$real
$real
$real/lib64:/x
$real/bin:/usr/bin:/bin
$real/python/site-packages"
        [ "$(cat "$work/$label-env-bash")" = "$want_bash" ] ||
            fail "$label: set_env.sh under bash exported: $(cat "$work/$label-env-bash")"
        run_env() { env -i PATH=/usr/bin:/bin HOME="$work" CANNON_CPU_DEVICES=2 CANNON_CPU_DEVICE_MEMORY=1G \
            bash -c '. "$0/set_env.sh" && exec "$@"' "$prefix" "$@"; }

        # A program built as CANN clients build, run with set_env.sh's environment only.
        cat >"$work/cann_client.c" <<'EOF2'
#include <stdio.h>
#include "acl/acl.h"
#include "acl/acl_op_compiler.h"
#include "aclnnop/aclnn_add.h"
int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS)
        return 1;
    size_t g = 0;
    aclrtPhysicalMemProp p = {0};
    p.memAttr = ACL_HBM_MEM_HUGE;
    p.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    if (aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED, &g) != ACL_SUCCESS)
        return 2;
    char jit[256];
    if (aclGetCompileopt(ACL_OP_JIT_COMPILE, jit, sizeof(jit)) != ACL_SUCCESS)
        return 3;
    printf("%s %zu %s\n", aclrtGetSocName(), g, jit);
    aclrtResetDevice(0);
    return aclFinalize();
}
EOF2
        cc -std=c11 -o "$work/$label-cann-client" "$work/cann_client.c" -I"$prefix/include" -L"$prefix/lib64" \
            -lascendcl -lopapi -lnnopbase -lacl_op_compiler ||
            fail "$label: building a program with -I include -L lib64 failed"
        out=$(run_env "$work/$label-cann-client") || fail "$label: the CANN-style program failed: $out"
        [ "$out" = "Ascend910B3 2097152 disable" ] || fail "$label: the CANN-style program printed: $out"

        # npu-smi on PATH: the table, the SoC field build scripts read, the board query.
        run_env npu-smi info >"$work/$label-npu-smi" 2>&1 || fail "$label: npu-smi info failed: $(cat "$work/$label-npu-smi")"
        [ "$(awk 'NR == 7 { print $3 }' "$work/$label-npu-smi")" = "910B3" ] ||
            fail "$label: npu-smi info, line 7, field 3 is not 910B3: $(cat "$work/$label-npu-smi")"
        grep -q '^| 1     910B3  *| OK  *| ' "$work/$label-npu-smi" || fail "$label: npu-smi info lacks device 1"
        grep -q ' 0    / 1024  *|$' "$work/$label-npu-smi" || fail "$label: npu-smi info: no HBM 0 / 1024 MB"
        awk 'length($0) != 98 { bad = 1 } END { exit bad }' "$work/$label-npu-smi" ||
            fail "$label: npu-smi info: a line is not 98 columns wide"
        run_env npu-smi info -t board -i 0 -c 0 >"$work/$label-board" || fail "$label: npu-smi info -t board failed"
        grep -q '^ *Chip Name  *: 910B3$' "$work/$label-board" || fail "$label: no Chip Name 910B3: $(cat "$work/$label-board")"
        if run_env npu-smi info -t board -i 9 >/dev/null 2>&1; then
            fail "$label: npu-smi accepted device 9 of 2"
        fi

        # The Python package (Debian's interpreter, which has numpy).
        if [ -x /usr/bin/python3 ]; then
            out=$(run_env /usr/bin/python3 -c 'import cannon, os; print(os.path.dirname(cannon.__file__))') ||
                fail "$label: import cannon failed: $out"
            [ "$out" = "$real/python/site-packages/cannon" ] || fail "$label: cannon was imported from $out"
        fi
    fi
    echo "check_install: $label CANN layout (lib64, set_env.sh, npu-smi, python): ok"
}

# A relocated install.
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1 ||
    fail "cmake --install --prefix failed: $(tail -n 20 "$work/install.log")"
check_prefix prefix "$work/prefix"
check_cann_layout prefix "$work/prefix" "$work/prefix"

# A staged install: DESTDIR + a prefix the files are not really at.
DESTDIR="$work/stage" cmake --install "$build" --prefix /opt/cannon >"$work/install-destdir.log" 2>&1 ||
    fail "DESTDIR=... cmake --install failed: $(tail -n 20 "$work/install-destdir.log")"
[ -d "$work/stage/opt/cannon" ] || fail "DESTDIR install did not land in \$DESTDIR/opt/cannon"
check_prefix destdir "$work/stage/opt/cannon"
check_cann_layout destdir "$work/stage/opt/cannon" /opt/cannon

echo "check_install: all ok"
