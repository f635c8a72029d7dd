#ifndef CPJSUA_BASELINE_H
#define CPJSUA_BASELINE_H

/* The benchmark baseline: the same self-call loop as `pjsua-bench setup`, written in plain C
 * against the same libpjsua, with the same structure (the main thread waits for each state the
 * callbacks report, then acts), so the difference is what the Swift engine adds. */

/* Runs `calls` sequential loopback self-calls (make -> both legs CONFIRMED -> hangup -> both
 * DISCONNECTED) with the engine's default call settings and codec choice (audio only, Opus first
 * at the bridge's rate) and writes each call's time to both CONFIRMED to `setup_ms` and its whole
 * duration to `durations_ms`, in milliseconds. Takes PJLIB up and down itself (pj_init, then
 * this thread, then pjsua); callers keep other users of PJLIB from doing so meanwhile.
 * Returns 0 on success, or a negative number naming the step that failed. */
int cpjsua_baseline_setup(int calls, double *setup_ms, double *durations_ms);

#endif
