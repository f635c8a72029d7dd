#!/usr/bin/env python3
"""make test runs each test exactly once, in one of its `swift test` runs: the main pass, the
engine suites under AddressSanitizer (asan-engine), and the suites that read the whole process's
figures, each in a process of its own (main-own, asan-own). Reads `swift test list` on stdin and
fails unless the runs, as Makefile spells their --filter and --skip, split the list exactly: no
test in two runs, none in none.

usage: swift test list --skip-build | check-test-split.py NAME FILTER SKIP [NAME FILTER SKIP ...]
(an empty FILTER selects every test; an empty SKIP skips none)
"""
import re
import sys


def main() -> int:
    arguments = sys.argv[1:]
    if not arguments or len(arguments) % 3:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    tests = [line.strip() for line in sys.stdin if line.strip()]
    if not tests:
        print("check-test-split: no tests listed", file=sys.stderr)
        return 1
    runs = {}
    for name, filter_, skip in zip(arguments[0::3], arguments[1::3], arguments[2::3]):
        selects = re.compile(filter_) if filter_ else None
        skips = re.compile(skip) if skip else None
        runs[name] = {t for t in tests
                      if (selects is None or selects.search(t)) and (skips is None or not skips.search(t))}
    failed = False
    for test in tests:
        where = [name for name, selected in runs.items() if test in selected]
        if len(where) > 1:
            print(f"check-test-split: runs {len(where)} times ({', '.join(where)}): {test}", file=sys.stderr)
            failed = True
        elif not where:
            print(f"check-test-split: never runs: {test}", file=sys.stderr)
            failed = True
    for name, selected in runs.items():
        if not selected:
            print(f"check-test-split: {name} selects no test", file=sys.stderr)
            failed = True
    if failed:
        return 1
    counts = ", ".join(f"{len(selected)} in {name}" for name, selected in runs.items())
    print(f"check-test-split: {len(tests)} tests: {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
