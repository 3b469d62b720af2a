#!/bin/sh
# check_install.sh BUILD_DIR SOURCE_DIR
#
# Installs a built tree and builds README.md's sample against the installed copy, the two ways
# the README promises: with pkg-config (ascendcl.pc) and with CMake (find_package(cannon) +
# cannon::ascendcl, and cannon::ascendcl_static as well). Both programs must run and print the README's output. It installs twice:
# once with --prefix (a relocated install), once with DESTDIR (staged, as packagers do), so the
# .pc file and the CMake package must not depend on the configure-time prefix.
#
# Every library's pkg-config file (cannon, ascendcl, nnopbase, opapi, hccl) must resolve inside
# the installed prefix and give flags that build and run a program calling that library.
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
    for pc in cannon ascendcl nnopbase opapi hccl; do
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
    echo "check_install: $label pkg-config files (cannon ascendcl nnopbase opapi hccl): ok"

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

# A relocated install.
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1 ||
    fail "cmake --install --prefix failed: $(tail -n 20 "$work/install.log")"
check_prefix prefix "$work/prefix"

# A staged install: DESTDIR + a prefix the files are not really at.
DESTDIR="$work/stage" cmake --install "$build" --prefix /opt/cannon >"$work/install-destdir.log" 2>&1 ||
    fail "DESTDIR=... cmake --install failed: $(tail -n 20 "$work/install-destdir.log")"
[ -d "$work/stage/opt/cannon" ] || fail "DESTDIR install did not land in \$DESTDIR/opt/cannon"
check_prefix destdir "$work/stage/opt/cannon"

echo "check_install: all ok"
