#!/usr/bin/env python3
"""make test runs each test once: the engine suites under AddressSanitizer (asan-engine's
--filter/--skip), the rest in the main pass (its --skip). Reads `swift test list` on stdin and
fails unless the two selections, as Makefile spells them, split the list exactly: no test in
both, none in neither.

usage: swift test list --skip-build | check-test-split.py ASAN_FILTER ASAN_SKIP MAIN_SKIP
"""
import re
import sys


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    asan_filter, asan_skip, main_skip = (re.compile(p) for p in sys.argv[1:])
    tests = [line.strip() for line in sys.stdin if line.strip()]
    if not tests:
        print("check-test-split: no tests listed", file=sys.stderr)
        return 1
    asan = {t for t in tests if asan_filter.search(t) and not asan_skip.search(t)}
    main_pass = {t for t in tests if not main_skip.search(t)}
    both = sorted(asan & main_pass)
    neither = sorted(set(tests) - asan - main_pass)
    for t in both:
        print(f"check-test-split: runs twice: {t}", file=sys.stderr)
    for t in neither:
        print(f"check-test-split: never runs: {t}", file=sys.stderr)
    if both or neither:
        return 1
    print(f"check-test-split: {len(tests)} tests, {len(asan)} under AddressSanitizer, {len(main_pass)} in the main pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())
