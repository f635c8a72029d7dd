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

/* The input screen's cost per message (`pjsua-bench screen`): each of the `count` messages
 * (`lengths[i]` bytes, a whole SIP message as one datagram carries it) is parsed `rounds` times as
 * PJSIP's UDP transport parses it (pjsip_parse_rdata into a fresh pool) and screened `rounds`
 * times by the engine's screen module (its on_rx_request or on_rx_response, found by name in the
 * endpoint's module list), the two alternating in 20 blocks; the nanoseconds per message of each
 * one's fastest block go to parse_ns[i] and screen_ns[i]. Needs
 * a started SwiftPJSUA engine in this process (its endpoint and its screen); runs on a thread of
 * its own, registered with PJLIB and joined before it returns. The messages must be ones the
 * screen passes (a message it takes is an error). Returns 0, or a negative number naming the step
 * that failed: -2 no screen module, -5 a message did not parse, -6 the screen took a message. */
int cpjsua_baseline_screen_cost(const char *const *messages, const unsigned *lengths, unsigned count, unsigned rounds,
                                double *parse_ns, double *screen_ns);

#endif
