#!/bin/bash
# bounded.sh SECONDS COMMAND...: runs COMMAND, and fails with one line if it is still running after
# SECONDS: SIGTERM to COMMAND and every process it started (in whatever process group: a test's
# peers run in groups of their own), SIGKILL 30 s later; processes COMMAND leaves behind when it
# exits by itself are ended too. make test bounds every `swift test` with it, so a test process
# that dies without `swift test` noticing fails the run in minutes and leaves no peer holding
# ports. The work is scripts/bounded.py's (a child subreaper, which a shell cannot be).
exec python3 "$(dirname "$0")/bounded.py" "$@"
