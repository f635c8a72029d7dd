#!/bin/bash
# bounded.sh SECONDS COMMAND...: runs COMMAND, and fails with one line if it is still running after
# SECONDS (TERM to its whole process group, KILL 30 s later). make test bounds every `swift test`
# with it, so a test process that dies without `swift test` noticing fails the run in minutes.
set -u
limit=$1
shift
timeout --kill-after=30 "$limit" "$@"
rc=$?
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    echo "bounded.sh: '$*' was still running after $limit s and was stopped (rc $rc)" >&2
fi
exit "$rc"
