#!/usr/bin/env python3
"""bounded.py SECONDS COMMAND...: runs COMMAND and ends it, with every process it started, if it
is still running after SECONDS (SIGTERM to each, SIGKILL to what is left 30 s later; exit status
124, or 137 if COMMAND itself needed SIGKILL, as timeout(1) says). Processes COMMAND leaves behind
when it exits by itself are ended too, and named. scripts/bounded.sh runs it; make test bounds
every `swift test` with it, so that a test process that dies without `swift test` noticing fails
the run in minutes and leaves no peer holding ports.

A test's peers run in process groups of their own (ChildProcess puts each in one, so that a test
can signal a peer and everything it forked), so the timeout(1) this replaces, which signals its
own process group, missed them; and a process whose parent has exited is adopted by init, out of
reach of a walk down from COMMAND. So this process makes itself a child subreaper
(prctl(PR_SET_CHILD_SUBREAPER), Linux 3.4): every process COMMAND starts, in whatever group or
session, stays its descendant, orphaned or not, and is found by walking /proc from here.
"""
import ctypes
import os
import signal
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
KILL_AFTER = float(os.environ.get("BOUNDED_KILL_AFTER", "30"))
POLL = 0.1


def say(text):
    print(f"bounded.sh: {text}", file=sys.stderr, flush=True)


def descendants():
    """Every live descendant of this process, parents before children, as (pid, name)."""
    children = {}
    names = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                text = stat.read()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after the last ')'.
        fields = text[text.rindex(")") + 2:].split()
        if fields[0] == "Z":
            continue  # a zombie: gone, only waiting to be reaped
        pid = int(entry)
        names[pid] = text[text.index("(") + 1:text.rindex(")")]
        children.setdefault(int(fields[1]), []).append(pid)
    found, queue = [], [os.getpid()]
    while queue:
        for child in children.get(queue.pop(0), []):
            found.append((child, names[child]))
            queue.append(child)
    return found


def reap(command_pid, statuses):
    """Reaps every child that has exited (orphans adopted here included); records COMMAND's status."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        if pid == command_pid:
            statuses.append(status)


def end_all(command_pid, statuses, why):
    """SIGTERM to every descendant (and to those that appear meanwhile), SIGKILL to what is left
    after KILL_AFTER seconds. Returns whether COMMAND needed SIGKILL."""
    signalled = set()
    deadline = time.monotonic() + KILL_AFTER
    while True:
        reap(command_pid, statuses)
        alive = descendants()
        if not alive:
            return False
        fresh = [(pid, name) for pid, name in alive if pid not in signalled]
        if fresh and why:
            say(f"{why}: ending " + ", ".join(f"{name} ({pid})" for pid, name in fresh[:20])
                + (f" and {len(fresh) - 20} more" if len(fresh) > 20 else ""))
        for pid, _ in fresh:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            signalled.add(pid)
        if time.monotonic() >= deadline:
            break
        time.sleep(POLL)
    killed_command = False
    for _ in range(50):
        alive = descendants()
        if not alive:
            break
        for pid, _name in alive:
            killed_command |= pid == command_pid
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(POLL)
        reap(command_pid, statuses)
    reap(command_pid, statuses)
    return killed_command


def main():
    if len(sys.argv) < 3:
        print("usage: bounded.sh SECONDS COMMAND...", file=sys.stderr)
        return 2
    limit = float(sys.argv[1])
    command = sys.argv[2:]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        say(f"prctl(PR_SET_CHILD_SUBREAPER) failed (errno {ctypes.get_errno()}): orphaned processes may escape")

    interrupted = []

    def on_signal(number, _frame):
        interrupted.append(number)

    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, on_signal)
    # COMMAND stays in this process group: a Ctrl-C at the terminal reaches it as it did before.
    child = subprocess.Popen(command, restore_signals=True)
    statuses = []
    deadline = time.monotonic() + limit
    timed_out = False
    while not statuses and not interrupted:
        if time.monotonic() >= deadline:
            timed_out = True
            break
        time.sleep(POLL)
        reap(child.pid, statuses)

    text = " ".join(command)
    if timed_out:
        killed = end_all(child.pid, statuses, f"'{text}' was still running after {limit:g} s")
        rc = 137 if killed else 124
        say(f"'{text}' was still running after {limit:g} s and was stopped (rc {rc})")
        return rc
    if interrupted:
        end_all(child.pid, statuses, f"interrupted by signal {interrupted[0]}")
        return 128 + interrupted[0]
    status = statuses[0]
    rc = os.waitstatus_to_exitcode(status)
    rc = 128 - rc if rc < 0 else rc
    # What COMMAND left running (a peer a crashed test process never stopped) holds ports and
    # CPU: end it, and say so.
    end_all(child.pid, statuses, f"'{text}' exited ({rc}) leaving processes behind")
    return rc


if __name__ == "__main__":
    sys.exit(main())
