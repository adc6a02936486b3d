#!/usr/bin/env bash
# The whole test suite, run by `make test`: every cmocka unit-test binary (normal build and
# the ASan+UBSan build), the GPU checks on emulated devices (ASan+UBSan too), then every
# CLI and screen test script. Each script gets the path
# of the binary to test as $1 and exits 0 (pass) or non-zero (fail). Ends with the closing
# line "N passed, N failed".
set -u
BUILD=${BUILD:-build}
BIN=$BUILD/collviz
ASAN_BIN=$BUILD/asan/collviz
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
passed=0
failed=0
failures=()

run() { # name, command...
    local name=$1
    shift
    echo "=== $name"
    if "$@"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        failures+=("$name")
    fi
}

for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] && run "unit: ${t##*/}" "$t"
done
for t in "$BUILD"/asan/tests/test_*; do
    [ -x "$t" ] && run "asan+ubsan: ${t##*/}" "$t"
done
# The GPU host code on emulated devices (tests/fakegpu), when `make test` could build it.
if [ -x "$BUILD/fakegpu/collviz" ]; then
    run "fakegpu: tests/gpu/run.sh on emulated devices" \
        env GPU_TEST_FAKE=1 BUILD="$BUILD/fakegpu" bash tests/gpu/run.sh "$BUILD/fakegpu/collviz"
    run "fakegpu: screen: fake_nccl_ui.sh" bash tests/screen/fake_nccl_ui.sh "$BUILD/fakegpu/collviz"
fi
# The lesson parser under libFuzzer for a few seconds (SKIP without clang).
run "fuzz: lesson parser (short run)" env BUILD="$BUILD" bash tests/fuzz/run.sh
for s in tests/cli/*.sh; do
    [ -f "$s" ] && run "cli: ${s##*/}" bash "$s" "$BIN" "$ASAN_BIN"
done
for s in tests/screen/test_*.sh; do
    [ -f "$s" ] && run "screen: ${s##*/}" bash "$s" "$BIN"
done

echo
for f in "${failures[@]+"${failures[@]}"}"; do echo "FAILED: $f"; done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
