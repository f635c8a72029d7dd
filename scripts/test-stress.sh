#!/bin/bash
# test-stress.sh: the flake hunt (make test-stress). Runs one pass of make test, or the tests a
# filter names, RUNS times in a row while stress-ng keeps one core busy, and prints a table: each
# test that failed, in how many runs, and the first line of each cause. The child logs of a run
# in which a test failed are kept whole (the logs of a run that passed are removed).
#
#   make test-stress PASS=main|main-own|asan|asan-own|ios [FILTER=regex] [RUNS=5] [LOAD=0]
#   make test-stress FILTER=regex [RUNS=5]       # the plain debug build, as `swift test` runs it
#
# PASS composes `swift test` as make test's pass does, from the Makefile's own variables (passed
# in by its test-stress target): main is MAIN_PASS_SKIP's complement, asan the engine suites
# under AddressSanitizer (ASAN, ASAN_TARGET, ASAN_ENGINE_SKIP), main-own and asan-own the suites
# each of those passes runs in a process of its own (OWN_PROCESS_FILTER, less SANITIZED_TESTS or
# UNSANITIZED_SUITES), ios the iOS profile's suites (IOS_ENV, IOS_SCRATCH, IOS_LINK,
# IOS_PROFILE_SUITES). FILTER narrows a pass (only its tests that FILTER matches) or, alone, picks tests of the plain build. Every run is bounded
# (scripts/bounded.sh, LIMIT seconds: make test's bound for the pass). LOAD=0 runs without load.
# Results in STRESS_DIR (default .build/test-stress/<date-time>): one directory per run with its
# console output, its xUnit file and, if a test failed, its child logs.
set -u
cd "$(dirname "$0")/.."

: "${SWIFT:=swift}" "${SWIFT_FLAGS:=}" "${RUNS:=5}" "${PASS:=}" "${FILTER:=}" "${LOAD:=1}"
say() { echo "test-stress: $*" >&2; }
die() { say "error: $*"; exit 2; }
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive number, not '$RUNS'"
[ -n "$PASS" ] || [ -n "$FILTER" ] || die "say what to run: PASS=main|asan|ios and/or FILTER=regex"

# shellcheck disable=SC2206  # the flag variables are lists of words, as in the Makefile
flags=($SWIFT_FLAGS)
need() { for name in "$@"; do [ -n "${!name:-}" ] || die "$name is not set (run it as make test-stress)"; done; }
case "$PASS" in
    main)
        need MAIN_PASS_SKIP
        build=("$SWIFT build ${flags[*]}" "$SWIFT build ${flags[*]} --build-tests")
        test=("$SWIFT" test "${flags[@]}" --skip-build --skip "$MAIN_PASS_SKIP")
        [ -z "$FILTER" ] || test+=(--filter "$FILTER")
        limit=600 ;;
    main-own)
        need OWN_PROCESS_FILTER SANITIZED_TESTS
        build=("$SWIFT build ${flags[*]}" "$SWIFT build ${flags[*]} --build-tests")
        test=("$SWIFT" test "${flags[@]}" --skip-build --filter "$OWN_PROCESS_FILTER" --skip "$SANITIZED_TESTS")
        # FILTER narrows by a skip: two --filter options select either's tests.
        [ -z "$FILTER" ] || test+=(--skip "^(?!.*(?:$FILTER))")
        limit=300 ;;
    asan|asan-own)
        need ASAN ASAN_TARGET ASAN_ENGINE_SKIP OWN_PROCESS_FILTER UNSANITIZED_SUITES ASAN_CHILDREN
        # shellcheck disable=SC2206
        asan=($ASAN) asan_children=($ASAN_CHILDREN)
        # Every product too: the tests run softphone and the examples as child processes; the
        # softphone children are the sanitized build's, as in make test's pass (ASAN_CHILDREN).
        build=("$SWIFT build ${flags[*]}" "$SWIFT build ${flags[*]} --build-tests ${asan[*]}")
        test=(env "${asan_children[@]}" "$SWIFT" test "${flags[@]}" --skip-build --disable-xctest "${asan[@]}")
        if [ "$PASS" = asan-own ]; then
            test+=(--filter "$OWN_PROCESS_FILTER" --skip "$UNSANITIZED_SUITES")
            [ -z "$FILTER" ] || test+=(--skip "^(?!.*(?:$FILTER))")
            limit=300
        else
            test+=(--skip "$ASAN_ENGINE_SKIP")
            if [ -z "$FILTER" ]; then test+=(--filter "$ASAN_TARGET")
            else test+=(--filter "$FILTER" --skip "^(?!$ASAN_TARGET\\.)"); fi
            limit=1500
        fi ;;
    ios)
        need IOS_ENV IOS_SCRATCH IOS_LINK IOS_PROFILE_SUITES
        # shellcheck disable=SC2206
        ios_env=($IOS_ENV) ios=($IOS_SCRATCH $IOS_LINK)
        build=("env ${ios_env[*]} $SWIFT build ${flags[*]} ${ios[*]} --product softphone"
               "env ${ios_env[*]} $SWIFT build ${flags[*]} ${ios[*]} --build-tests")
        test=(env "${ios_env[@]}" "$SWIFT" test "${flags[@]}" "${ios[@]}" --skip-build --disable-xctest)
        if [ -z "$FILTER" ]; then test+=(--filter "$IOS_PROFILE_SUITES")
        else test+=(--filter "$FILTER" --skip "^(?!(?:$IOS_PROFILE_SUITES))"); fi
        limit=600 ;;
    "")
        build=("$SWIFT build ${flags[*]}" "$SWIFT build ${flags[*]} --build-tests")
        test=("$SWIFT" test "${flags[@]}" --skip-build --filter "$FILTER")
        limit=600 ;;
    *) die "PASS is main, main-own, asan, asan-own or ios, not '$PASS'" ;;
esac
limit=${LIMIT:-$limit}

out=${STRESS_DIR:-.build/test-stress/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out" || die "cannot make $out"
out=$(cd "$out" && pwd)

for command in "${build[@]}"; do
    say "$command"
    $command || die "the build failed"
done

if [ "$LOAD" != 0 ]; then
    if ! command -v stress-ng >/dev/null; then
        say "installing stress-ng (apt-get install -y stress-ng)"
        as_root=(); [ "$(id -u)" = 0 ] || as_root=(sudo)
        "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends stress-ng >"$out/stress-ng-install.log" 2>&1 \
            || die "cannot install stress-ng (see $out/stress-ng-install.log)"
    fi
    # One core busy for as long as the runs last (ended below, and bounded by its own timeout).
    stress-ng --cpu 1 --timeout "$((RUNS * (limit + 60)))s" --quiet &
    load=$!
    trap 'kill "$load" 2>/dev/null; wait "$load" 2>/dev/null' EXIT
    say "stress-ng --cpu 1 keeps one core busy (pid $load)"
fi

say "${RUNS} runs of: ${test[*]}"
for run in $(seq 1 "$RUNS"); do
    dir="$out/run-$run"
    mkdir -p "$dir"
    started=$(date +%s)
    SWIFT_PJSUA_LOG_DIR="$dir/child-logs" bash scripts/bounded.sh "$limit" "${test[@]}" --xunit-output "$dir/xunit.xml" \
        >"$dir/console.log" 2>&1
    echo $? >"$dir/status"
    failed=$(python3 scripts/test-stress-table.py --failed "$dir")
    if [ -z "$failed" ]; then
        rm -rf "$dir/child-logs"
        say "run $run/$RUNS: passed in $(( $(date +%s) - started )) s"
    else
        say "run $run/$RUNS: $(echo "$failed" | wc -l) failed in $(( $(date +%s) - started )) s, child logs kept in $dir/child-logs"
    fi
done
python3 scripts/test-stress-table.py "$out"/run-*
