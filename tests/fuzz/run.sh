#!/usr/bin/env bash
# run.sh - a short libFuzzer run on the lesson parser and formulas (part of `make test`;
# `make fuzz` is the long run). Builds $BUILD/fuzz/fuzz_lesson with clang (make fuzz-build),
# then runs it over a scratch copy of tests/fuzz/corpus for FUZZ_SHORT_SECONDS (default 20).
# Prints a SKIP line and succeeds when clang or its libFuzzer runtime is missing.
set -u
BUILD=${BUILD:-build}
FUZZ_CC=${FUZZ_CC:-clang}
SECONDS_TO_RUN=${FUZZ_SHORT_SECONDS:-20}
if ! command -v "$FUZZ_CC" >/dev/null 2>&1; then
    echo "SKIP: fuzz_lesson: $FUZZ_CC not found (install clang and libclang-rt-dev)"
    exit 0
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }\n' >"$probe/p.c"
if ! "$FUZZ_CC" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" 2>/dev/null; then
    echo "SKIP: fuzz_lesson: $FUZZ_CC cannot link -fsanitize=fuzzer (libclang-rt missing)"
    exit 0
fi
if ! make --no-print-directory -s BUILD="$BUILD" FUZZ_CC="$FUZZ_CC" fuzz-build >"$probe/build.log" 2>&1; then
    echo "FAIL: fuzz_lesson: build failed"
    tail -20 "$probe/build.log"
    exit 1
fi
mkdir -p "$probe/corpus"
cp tests/fuzz/corpus/* "$probe/corpus/"
"$BUILD/fuzz/fuzz_lesson" -max_total_time="$SECONDS_TO_RUN" -max_len=16384 -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 "$probe/corpus" >"$probe/log" 2>&1
rc=$?
grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$probe/log" | tail -2
if [ $rc -ne 0 ]; then
    echo "FAIL: fuzz_lesson exit $rc"
    grep -E 'ERROR|SUMMARY|Test unit written' "$probe/log" | head -10
    # keep the input that broke it where a developer finds it
    mkdir -p "$BUILD/fuzz"
    cp crash-* leak-* timeout-* oom-* "$BUILD/fuzz/" 2>/dev/null && rm -f crash-* leak-* timeout-* oom-*
    exit 1
fi
echo "fuzz_lesson: ${SECONDS_TO_RUN}s without a finding"
