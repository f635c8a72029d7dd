#!/usr/bin/env python3
"""test-stress-table.py RUN_DIR...: the table scripts/test-stress.sh prints after its runs: each
test that failed, in how many of the runs, and the first line of each cause (with how often it
was the cause; causes that differ only in their numbers count as one). `--failed RUN_DIR` prints the tests that failed in one run, one a line.

A run directory holds what test-stress.sh wrote: `status` (the exit status of the bounded
`swift test`), `xunit-swift-testing.xml` (Swift Testing's results: a <failure> per issue; `xunit.xml`
itself in a pass run with --disable-xctest) and
`console.log`. A test process that crashed, or was stopped by bounded.sh, writes no xUnit file (or
half of one): it is one row, with its ending as cause and the tests its console shows started
and not finished.
"""
import os
import re
import sys
import xml.etree.ElementTree as ElementTree

WIDTH = 150


def first_line(text):
    line = next((part.strip() for part in (text or "").splitlines() if part.strip()), "(no message)")
    return line if len(line) <= WIDTH else line[:WIDTH - 3] + "..."


def read(path):
    try:
        with open(path, errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def failures(run):
    """{test: [cause, ...]} of one run directory."""
    found = {}
    status = read(os.path.join(run, "status")).strip()
    # Swift Testing's results: xunit-swift-testing.xml beside XCTest's xunit.xml, or xunit.xml
    # itself when the pass runs with --disable-xctest (the ASan and iOS passes).
    name = "xunit-swift-testing.xml" if os.path.exists(os.path.join(run, "xunit-swift-testing.xml")) else "xunit.xml"
    try:
        cases = list(ElementTree.parse(os.path.join(run, name)).getroot().iter("testcase"))
    except (OSError, ElementTree.ParseError):
        cases = None  # none written, or cut short: the process was stopped while it wrote it
    for case in cases or []:
        problems = [child for child in case if child.tag in ("failure", "error")]
        if problems:
            test = f"{case.get('classname', '')}/{case.get('name', '')}"
            found[test] = [first_line(problem.get("message") or problem.text) for problem in problems]
    if status == "0" or (found and cases is not None):
        return found
    # No results, or a failure they do not show: the process ended early. Its console says what
    # had started and how it ended (bounded.sh's line for a timeout).
    console = read(os.path.join(run, "console.log"))
    started, finished = [], set()
    for match in re.finditer(r"^. Test (\S+?\(.*?\)) (started|passed|failed)", console, re.M):
        name, what = match.groups()
        if what == "started":
            started.append(name)
        else:
            finished.add(name)
    # bounded.sh's own lines (one may follow a test's unfinished line).
    ending = [line[line.index("bounded.sh: "):] for line in console.splitlines() if "bounded.sh: " in line]
    cause = first_line(ending[-1] if ending else f"the test process exited with status {status or '?'} before it finished")
    # Tests start together and wait for their turn (the engine is one per process): all those
    # unfinished are named, without a claim about which of them was running.
    unfinished = [name for name in started if name not in finished]
    found["(the test process)"] = [cause] + ([first_line(f"{len(unfinished)} tests unfinished: " + ", ".join(unfinished))]
                                             if unfinished else [])
    return found


def main(arguments):
    if arguments[:1] == ["--failed"]:
        for test in sorted(failures(arguments[1])):
            print(test)
        return 0
    runs = [run for run in arguments if os.path.isdir(run)]
    tally = {}
    for run in runs:
        for test, causes in failures(run).items():
            entry = tally.setdefault(test, {"runs": 0, "causes": {}, "where": []})
            entry["runs"] += 1
            entry["where"].append(os.path.basename(run))
            for cause in causes:
                # Causes that differ only in numbers (pids, ports, times) are one cause.
                key = re.sub(r"\d+", "N", cause)
                shown, times = entry["causes"].get(key, (cause, 0))
                entry["causes"][key] = (shown, times + 1)
    print(f"\n{len(runs)} runs, {len(tally)} tests failed" + (":" if tally else "."))
    if not tally:
        return 0
    width = min(max(len(test) for test in tally), 100)
    print(f"{'test':<{width}}  failed  cause (first line; how often)")
    for test, entry in sorted(tally.items(), key=lambda item: (-item[1]["runs"], item[0])):
        causes = sorted(entry["causes"].values(), key=lambda item: -item[1])
        label = test if len(test) <= width else test[:width - 3] + "..."
        count = f"{entry['runs']}/{len(runs)}"
        for index, (cause, times) in enumerate(causes):
            print(f"{label if index == 0 else '':<{width}}  {count if index == 0 else '':>6}  {cause}" + (f" ({times}x)" if times > 1 else ""))
        print(f"{'':<{width}}          in {', '.join(entry['where'])}")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
