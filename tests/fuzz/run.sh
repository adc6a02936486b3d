#!/usr/bin/env bash
# run.sh - a short libFuzzer run on the lesson parser and formulas, on the job protocol's
# decoder and on the reader of NCCL's records (part of `make test`; `make fuzz` is the long
# run). Builds $BUILD/fuzz/fuzz_lesson, fuzz_proto and fuzz_records with clang (make
# fuzz-build), then runs each over a scratch copy of its corpus (tests/fuzz/corpus,
# corpus_proto, tests/records, tests/hostile-records and tests/fuzz/corpus_records: the
# reader's line forms) for FUZZ_SHORT_SECONDS (default 5): a smoke test that the targets
# build and run their corpus clean; the search for new inputs is `make fuzz`.
# Prints a SKIP line and succeeds when clang or its libFuzzer runtime is missing.
set -u
BUILD=${BUILD:-build}
FUZZ_CC=${FUZZ_CC:-clang}
SECONDS_TO_RUN=${FUZZ_SHORT_SECONDS:-5}
if ! command -v "$FUZZ_CC" >/dev/null 2>&1; then
    echo "SKIP: fuzz: $FUZZ_CC not found (install clang and libclang-rt-dev)"
    exit 0
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }\n' >"$probe/p.c"
if ! "$FUZZ_CC" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" 2>/dev/null; then
    echo "SKIP: fuzz: $FUZZ_CC cannot link -fsanitize=fuzzer (libclang-rt missing)"
    exit 0
fi
if ! make --no-print-directory -s BUILD="$BUILD" FUZZ_CC="$FUZZ_CC" fuzz-build >"$probe/build.log" 2>&1; then
    echo "FAIL: fuzz: build failed"
    tail -20 "$probe/build.log"
    exit 1
fi
# target corpus max_len [more corpus folders]
fuzz_one() {
    local t=$1 corpus=$2 maxlen=$3 more
    mkdir -p "$probe/$t"
    # (files only: tests/records has folders)
    find "$corpus" -maxdepth 1 -type f -exec cp -t "$probe/$t/" {} +
    for more in "${@:4}"; do find "$more" -maxdepth 1 -type f -exec cp -t "$probe/$t/" {} +; done
    "$BUILD/fuzz/$t" -max_total_time="$SECONDS_TO_RUN" -max_len="$maxlen" -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 "$probe/$t" >"$probe/$t.log" 2>&1
    local rc=$?
    grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$probe/$t.log" | tail -2
    if [ $rc -ne 0 ]; then
        echo "FAIL: $t exit $rc"
        grep -E 'ERROR|SUMMARY|Test unit written' "$probe/$t.log" | head -10
        # keep the input that broke it where a developer finds it
        mkdir -p "$BUILD/fuzz"
        cp crash-* leak-* timeout-* oom-* "$BUILD/fuzz/" 2>/dev/null && rm -f crash-* leak-* timeout-* oom-*
        return 1
    fi
    echo "$t: ${SECONDS_TO_RUN}s without a finding"
}
fail=0
fuzz_one fuzz_lesson tests/fuzz/corpus 16384 || fail=1
fuzz_one fuzz_proto tests/fuzz/corpus_proto 65536 || fail=1
fuzz_one fuzz_records tests/records 65536 tests/hostile-records tests/fuzz/corpus_records || fail=1
exit $fail
