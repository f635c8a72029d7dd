#!/usr/bin/env bash
# usage: side-by-side.sh NAME COMMAND NAME COMMAND
# Runs two test passes at once (make test: the main pass and the engine's ASan pass), each into its
# own log under .build/test-logs, prints a line a minute while they run, then each whole log and
# how it ended; fails if either failed. Each pass is its own process with its own pjsua engine:
# the engine tests of one process take turns (EngineTurns), so a pass is a chain of turns that
# mostly waits on the network (the main pass used half a core), and two chains side by side take
# little more than the longer one.
set -uo pipefail
[ $# -eq 4 ] || { echo "usage: side-by-side.sh NAME COMMAND NAME COMMAND" >&2; exit 2; }
dir=.build/test-logs
mkdir -p "$dir"
names=("$1" "$3")
commands=("$2" "$4")
pids=()
for i in 0 1; do
    rm -f "$dir/pass$i.log" "$dir/pass$i.status"
    (
        start=$(date +%s)
        bash -c "${commands[$i]}" >"$dir/pass$i.log" 2>&1
        rc=$?
        echo "$rc $(( $(date +%s) - start ))" >"$dir/pass$i.status"
    ) &
    pids+=($!)
    echo "==> ${names[$i]}: ${commands[$i]} (log: $dir/pass$i.log)"
done
# Stopping make stops both passes.
trap 'kill "${pids[@]}" 2>/dev/null; exit 130' INT TERM
while [ ! -f "$dir/pass0.status" ] || [ ! -f "$dir/pass1.status" ]; do
    sleep 60
    for i in 0 1; do
        if [ -f "$dir/pass$i.status" ]; then state="done"; else
            state="$(grep -c '^✔ Test .* passed after' "$dir/pass$i.log" 2>/dev/null) tests passed, $(grep -c '^✘ Test .* failed after' "$dir/pass$i.log" 2>/dev/null) failed so far"
        fi
        echo "==> ${names[$i]}: $state (load average $(cut -d' ' -f1 /proc/loadavg))"
    done
done
wait
failed=0
for i in 0 1; do
    read -r rc seconds <"$dir/pass$i.status"
    echo "==> ${names[$i]}: whole log"
    cat "$dir/pass$i.log"
    echo "==> ${names[$i]}: exit status $rc after $seconds s"
    [ "$rc" = 0 ] || failed=1
done
for i in 0 1; do
    read -r rc seconds <"$dir/pass$i.status"
    echo "==> ${names[$i]}: $( [ "$rc" = 0 ] && echo passed || echo FAILED ) in $seconds s"
    grep -E '^✘ Test .* (recorded an issue|failed after)' "$dir/pass$i.log" | head -n 20
done
exit $failed
