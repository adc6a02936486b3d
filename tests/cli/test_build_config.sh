#!/usr/bin/env bash
# test_build_config.sh - the Makefile's promises about build folders, in throw-away ones:
# the GPU emulation (FAKEGPU=1) is refused outside a folder named fakegpu and `make install`
# refuses a binary that carries it; a build folder remembers its configuration, so building
# it again with HAVE_NCCL= after a NCCL (emulated, and real when nvcc exists) build relinks
# without NCCL (checked with nm and ldd), prints "built backends: cpu" (and mpi when built), and a new CFLAGS
# recompiles; a binary with the test hooks (CV_TEST_HOOKS) is not installed either; a build
# with neither NCCL nor MPI succeeds with the CPU ranks alone; a NCCL build does not link
# cuBLAS (it is opened on use).
# Each full build costs seconds of CPU even from ccache, so a configuration is built once:
# the emulated and the real NCCL folders are copies of make test's own (BIN's folder and its
# fakegpu/, objects and times kept) where they are such builds, built here otherwise; the
# folder rebuilt without NCCL after the emulated one has no MPI either (the CPU ranks alone),
# and the one rebuilt after the real NCCL build has the test hooks (not installed).
# Usage: test_build_config.sh [BIN [ASAN_BIN]] (BIN's folder is copied, never changed)
. "$(dirname "$0")/lib.sh" --no-bin
MAIN_BUILD=$(cd "$(dirname "${1:-/nonexistent/collviz}")" 2>/dev/null && pwd)
cd "$(dirname "$0")/../.."
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
# Fast builds: no optimisation; the library and the program only (no tests).
M=(make --no-print-directory -j2 CUDA_HOME="$CUDA_HOME")
O0=(CFLAGS=-O0)

nccl_syms() { nm "$1" 2>/dev/null | grep -c ' [TtU] ncclAllReduce$'; }

# from_test_build DIR WANT DEST: when DIR is a build folder whose config.mk has every line
# of WANT (a grep -x pattern a line), copy its configuration, objects, library and program
# into DEST (times kept, so make sees them up to date; a copy, never links: a rebuild here
# must not write into DIR) and set the array "made" to the make arguments that give its
# configuration again (CC, CFLAGS, WERROR); 1 otherwise.
from_test_build() {
    local dir=$1 want=$2 dest=$3 w
    [ -f "$dir/config.mk" ] && [ -x "$dir/collviz" ] && [ -f "$dir/libcollviz.a" ] || return 1
    while read -r w; do
        grep -qx -- "$w" "$dir/config.mk" || return 1
    done <<<"$want"
    mkdir -p "$dest" && cp -pr "$dir/config.mk" "$dir/obj" "$dir/libcollviz.a" "$dir/collviz" "$dest/" ||
        return 1
    # each object's header dependencies (-MMD) name it under DIR: under DEST now
    find "$dest/obj" -name '*.d' -exec sed -i -E "s|^[^ :]*/obj/([^ :]*\.o):|$dest/obj/\1:|" {} +
    made=(CC="$(sed -n 's/^CC = //p' "$dir/config.mk")" CFLAGS="$(sed -n 's/^CFLAGS = //p' "$dir/config.mk")")
    grep -q '^WARN = .*-Werror' "$dir/config.mk" && made+=(WERROR=1)
    return 0
}

# The CPU ranks alone (HAVE_NCCL= HAVE_MPI=, in folder $1, make's output in $2): the build
# says so, and --backend mpi is refused in one line.
cpu_only_checks() {
    grep -Eq "built backends: cpu \(" "$2" ||
        fail "HAVE_NCCL= HAVE_MPI=: backends line: $(grep 'built backends' "$2")"
    "$1/collviz" bench all_reduce --backend mpi >/dev/null 2>"$tmp/err"
    local rc=$?
    [ "$rc" -eq 2 ] && grep -q "not built" "$tmp/err" ||
        fail "HAVE_MPI= build, --backend mpi: exit $rc: $(cat "$tmp/err")"
}
# A build with the test hooks (folder $1, its make arguments after): not installed.
hooks_checks() {
    local b=$1
    shift
    "${M[@]}" BUILD="$b" "$@" install DESTDIR="$tmp/dest2" >"$tmp/out" 2>&1 &&
        fail "make install of a build with the test hooks succeeded"
    grep -q "has the test hooks (CV_TEST_HOOKS): refusing to install it" "$tmp/out" ||
        fail "install refusal (hooks): $(tail -2 "$tmp/out")"
    [ ! -e "$tmp/dest2" ] || fail "the test-hooks binary was installed"
}
cpu_only_done=0
hooks_done=0

# --- FAKEGPU=1 outside a fakegpu folder: refused before anything is built ------------------
"${M[@]}" "${O0[@]}" BUILD="$tmp/plain" FAKEGPU=1 >"$tmp/out" 2>&1 && fail "FAKEGPU=1 BUILD=$tmp/plain accepted"
grep -q "FAKEGPU=1 builds the test-only GPU emulation.*BUILD=$tmp/plain refused" "$tmp/out" ||
    fail "FAKEGPU=1 in a plain folder: message: $(tail -2 "$tmp/out")"
[ ! -e "$tmp/plain/collviz" ] || fail "FAKEGPU=1 in a plain folder built a binary"

if ! [ -f "$CUDA_HOME/include/nccl.h" ] || ! [ -f "$CUDA_HOME/include/cublas_v2.h" ]; then
    echo "SKIP: the emulated NCCL build then HAVE_NCCL= (no nccl.h or cublas_v2.h)"
else
    B=$tmp/fakegpu
    # --- the emulated build: NCCL inside, install refused --------------------------------
    # (make test's build/fakegpu when BIN's folder has one: make finds it up to date)
    F=("${O0[@]}")
    from_test_build "$MAIN_BUILD/fakegpu" "FAKEGPU = 1" "$B" && F=("${made[@]}")
    if "${M[@]}" "${F[@]}" BUILD="$B" FAKEGPU=1 >"$tmp/out" 2>&1; then
        [ "$(nccl_syms "$B/collviz")" -ge 1 ] || fail "FAKEGPU build: no ncclAllReduce in nm"
        grep -q "built backends: cpu nccl (on fakegpu" "$tmp/out" ||
            fail "FAKEGPU build: backends line: $(grep 'built backends' "$tmp/out")"
        "${M[@]}" "${F[@]}" BUILD="$B" FAKEGPU=1 install DESTDIR="$tmp/dest" PREFIX=/usr >"$tmp/out" 2>&1 &&
            fail "make install of an emulated build succeeded"
        grep -q "carries the GPU emulation (tests/fakegpu): refusing to install it" "$tmp/out" ||
            fail "install refusal message: $(tail -2 "$tmp/out")"
        [ ! -e "$tmp/dest/usr/bin/collviz" ] || fail "the emulated binary was installed"

        # --- the same folder without NCCL (nor MPI): rebuilt, relinked, nothing of NCCL left
        if "${M[@]}" "${O0[@]}" BUILD="$B" HAVE_NCCL= HAVE_MPI= >"$tmp/out" 2>&1; then
            grep -Eq "built backends: cpu( mpi)? \(nccl skipped" "$tmp/out" ||
                fail "HAVE_NCCL= rebuild: backends line: $(grep 'built backends' "$tmp/out")"
            [ "$(nccl_syms "$B/collviz")" -eq 0 ] || fail "HAVE_NCCL= rebuild: ncclAllReduce still in nm"
            grep -aq 'collviz-fakegpu:''host-emulation' "$B/collviz" &&
                fail "HAVE_NCCL= rebuild: the emulation is still linked in"
            grep -q "^HAVE_NCCL = $" "$B/config.mk" || fail "config.mk: $(grep HAVE_NCCL "$B/config.mk")"
            cpu_only_checks "$B" "$tmp/out"
            cpu_only_done=1
            "${M[@]}" "${O0[@]}" BUILD="$B" HAVE_NCCL= HAVE_MPI= install DESTDIR="$tmp/dest" PREFIX=/usr \
                >"$tmp/out" 2>&1 || fail "install of the rebuilt CPU binary: $(tail -2 "$tmp/out")"
            [ -x "$tmp/dest/usr/bin/collviz" ] || fail "install: no $tmp/dest/usr/bin/collviz"
            # Unchanged configuration: nothing to do. New CFLAGS: everything recompiles.
            [ "$("${M[@]}" "${O0[@]}" BUILD="$B" HAVE_NCCL= HAVE_MPI= -n "$B/collviz" | grep -c -- '-c ')" -eq 0 ] ||
                fail "same configuration recompiles"
            [ "$(make -n BUILD="$B" HAVE_NCCL= HAVE_MPI= CFLAGS=-O1 "$B/collviz" | grep -c -- '-c src/main.c')" -eq 1 ] ||
                fail "a new CFLAGS does not recompile src/main.c"
        else
            fail "HAVE_NCCL= rebuild failed: $(tail -3 "$tmp/out")"
        fi
    else
        fail "FAKEGPU build failed: $(tail -3 "$tmp/out")"
    fi
fi

# --- NCCL older than README's minimum (2.13): the backend refuses to build, saying so ------
if [ -f "$CUDA_HOME/include/cuda_runtime_api.h" ]; then
    mkdir -p "$tmp/oldnccl"
    printf '#define NCCL_VERSION(X, Y, Z) ((X)*10000 + (Y)*100 + (Z))\n#define NCCL_VERSION_CODE 21205\n' \
        >"$tmp/oldnccl/nccl.h"
    cc -fsyntax-only -DHAVE_NCCL -I"$tmp/oldnccl" -isystem "$CUDA_HOME/include" -Isrc \
        src/backend/nccl/nccl_backend.c >"$tmp/out" 2>&1 && fail "nccl_backend.c built against NCCL 2.12.5"
    grep -q "needs NCCL >= 2.13" "$tmp/out" || fail "NCCL 2.12: no version message: $(head -3 "$tmp/out")"
else
    echo "SKIP: the NCCL minimum-version check (no CUDA runtime headers)"
fi

# --- the real NCCL build then HAVE_NCCL= with the test hooks (-DCV_TEST_HOOKS, as make
# test's ASan build): libnccl gone, and not installed ---------------------------------------
if [ -x "$CUDA_HOME/bin/nvcc" ] && [ -f "$CUDA_HOME/include/nccl.h" ]; then
    B=$tmp/real
    # make test's main build when BIN's folder is one (a real NCCL build, not the emulation);
    # else built here, one GPU architecture to keep it short, and nvcc through ccache
    # (tools/deps.sh) when there is one: the kernels are the same every run.
    G=("NVCC_GENCODE=-gencode arch=compute_90,code=sm_90")
    command -v ccache >/dev/null && G+=("NVCC=ccache $CUDA_HOME/bin/nvcc")
    built=1
    if ! from_test_build "$MAIN_BUILD" $'HAVE_NCCL = 1\nFAKEGPU = ' "$B"; then
        "${M[@]}" "${O0[@]}" BUILD="$B" HAVE_NCCL=1 "${G[@]}" >"$tmp/out" 2>&1 || built=0
    fi
    if [ "$built" -eq 1 ]; then
        ldd "$B/collviz" | grep -q libnccl || fail "NCCL build: libnccl not in ldd"
        # cuBLAS is opened when a GPU device is made, never at start (its loading alone
        # costs each start half a second of CPU)
        ldd "$B/collviz" | grep -q libcublas && fail "NCCL build: libcublas linked (ldd), not opened on use"
        H=(CFLAGS="-O0 -DCV_TEST_HOOKS" HAVE_NCCL= "${G[@]}")
        if "${M[@]}" BUILD="$B" "${H[@]}" >"$tmp/out" 2>&1; then
            ldd "$B/collviz" | grep -q libnccl && fail "HAVE_NCCL= after a NCCL build: libnccl still in ldd"
            [ "$(nccl_syms "$B/collviz")" -eq 0 ] || fail "HAVE_NCCL= after a NCCL build: ncclAllReduce in nm"
            grep -Eq "built backends: cpu( mpi)? \(nccl skipped" "$tmp/out" ||
                fail "HAVE_NCCL= after a NCCL build: $(grep 'built backends' "$tmp/out")"
            hooks_checks "$B" "${H[@]}"
            hooks_done=1
        else
            fail "HAVE_NCCL= after a NCCL build failed: $(tail -3 "$tmp/out")"
        fi
    else
        fail "NCCL build failed: $(tail -3 "$tmp/out")"
    fi
else
    echo "SKIP: the real NCCL build then HAVE_NCCL= (no nvcc or nccl.h)"
fi

# --- what no rebuild above covered, in one build: the test hooks (not installed) and
# neither CUDA nor MPI (a machine with neither: the CPU ranks alone) ----------------------
if [ "$hooks_done" -eq 0 ] || [ "$cpu_only_done" -eq 0 ]; then
    B=$tmp/rest
    R=(HAVE_NCCL=)
    [ "$cpu_only_done" -eq 0 ] && R+=(HAVE_MPI=)
    [ "$hooks_done" -eq 0 ] && R+=(CFLAGS="-O0 -DCV_TEST_HOOKS") || R+=("${O0[@]}")
    if "${M[@]}" BUILD="$B" "${R[@]}" >"$tmp/out" 2>&1; then
        [ "$cpu_only_done" -eq 0 ] && cpu_only_checks "$B" "$tmp/out"
        [ "$hooks_done" -eq 0 ] && hooks_checks "$B" "${R[@]}"
    else
        fail "the build ${R[*]} failed: $(grep -m3 -E 'error|Error' "$tmp/out")"
    fi
fi

[ "$fails" -eq 0 ] && echo "test_build_config: ok"
[ "$fails" -eq 0 ]
