#!/usr/bin/env bash
# Builds the libFuzzer targets and runs each for a bounded time: the VoIP push payload parser
# (Swift) and the PJSIP targets (Fuzz/PJSIP/*.c, C, linked against the AddressSanitizer-
# instrumented PJSIP of make deps-asan): what a datagram reaches.
#
# Usage: Fuzz/run.sh [SECONDS] [TARGET...]   (default 30 s each, every target)
#   ASAN_PREFIX  the instrumented PJSIP (default /opt/pjproject-asan)
#   FUZZ_WORK    where binaries, corpora, artifacts and logs go (default .build/fuzz)
#   FUZZ_SEED    libFuzzer's -seed (default: a new one each run)
#   FUZZ_RUNS=smoke  a fixed number of inputs per target (runs_of below) instead of SECONDS, from
#                the committed seeds only (the corpus learned by earlier runs is emptied first):
#                with FUZZ_SEED, a run gets as far on a busy machine as on a quiet one, and runs
#                differ only by libFuzzer's own scheduling; SECONDS is then only a safety net
# Prints one line per target (executions, rate, coverage, result) and exits non-zero when any
# target crashed, aborted, leaked, timed out or ran out of memory; its reproducer is kept in
# FUZZ_WORK/artifacts/TARGET/ and its log in FUZZ_WORK/logs/TARGET.log (replay: the binary in
# FUZZ_WORK/bin with the artifact as its argument).
#
# Corpora: Fuzz/corpus/TARGET/ holds the committed seeds (read only); what a run learns goes to
# FUZZ_WORK/corpus/TARGET/ and is kept for the next run (a smoke's, FUZZ_RUNS=smoke, goes to
# FUZZ_WORK/smoke-corpus/TARGET/ and is not). Fuzz/PJSIP/*.dict are the dictionaries.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
seconds="${1:-30}"
[ "$#" -gt 0 ] && shift
work="${FUZZ_WORK:-$root/.build/fuzz}"
prefix="${ASAN_PREFIX:-/opt/pjproject-asan}"
all_targets=(push_payload sip_parser sip_endpoint sdp multipart xml_bodies stun rtp_payload)
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=("${all_targets[@]}")

die() { echo "fuzz: $*" >&2; exit 2; }
[[ "$seconds" =~ ^[0-9]+$ ]] && [ "$seconds" -gt 0 ] || die "SECONDS must be a positive integer, not '$seconds'"
case "${FUZZ_RUNS:-}" in
    "" | smoke) ;;
    *) die "FUZZ_RUNS is 'smoke' or unset, not '${FUZZ_RUNS}'" ;;
esac
for t in "${targets[@]}"; do
    [[ " ${all_targets[*]} " == *" $t "* ]] || die "no target '$t' (targets: ${all_targets[*]})"
done
mkdir -p "$work/bin" "$work/logs"

# ---- build -------------------------------------------------------------------------------------

# Rebuilt when a source is newer than the binary, or when the PJSIP it was linked against changed
# (another prefix, or the prefix's stamp: a rebuilt PJSIP).
newer_than() {  # newer_than BINARY FILE... : true when BINARY is missing or older than a FILE
    local binary=$1; shift
    [ -e "$binary" ] || return 0
    local f
    for f in "$@"; do [ "$f" -nt "$binary" ] && return 0; done
    return 1
}

if [[ " ${targets[*]} " == *" push_payload "* ]]; then
    push_sources=("$here/PushPayloadFuzz/PushPayloadFuzz.swift"
                  "$root/Sources/SwiftPJSUAKit/Push/VoIPPushPayload.swift"
                  "$root/Sources/SwiftPJSUAKit/Push/PushPayloadError.swift")
    if newer_than "$work/bin/push_payload" "${push_sources[@]}"; then
        # lld: gold prints a page of "cannot export local symbol" warnings for the ASan runtime.
        swiftc -sanitize=fuzzer,address -parse-as-library -O -g -use-ld=lld \
            -module-name PushPayloadFuzz "${push_sources[@]}" -o "$work/bin/push_payload"
    fi
fi

c_targets=()
for t in "${targets[@]}"; do [ "$t" != push_payload ] && c_targets+=("$t"); done
if [ "${#c_targets[@]}" -gt 0 ]; then
    stamp="$prefix/share/swift-pjsua/pjproject.stamp"
    [ -f "$stamp" ] || die "no instrumented PJSIP in $prefix ($stamp is missing): run make deps-asan, or set ASAN_PREFIX"
    clang="$(dirname "$(readlink -f "$(command -v swift)")")/clang"
    [ -x "$clang" ] || die "the Swift toolchain's clang is not at $clang"
    # libpjproject's Libs start with -lpjsua2, the C++ API: none of the targets uses it.
    pj_flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs libpjproject | sed 's/ -lpjsua2 / /; s/^-lpjsua2 //')
    [ -n "$pj_flags" ] || die "pkg-config found no libpjproject in $prefix/lib/pkgconfig"
    built_for="$prefix $(cksum <"$stamp")"
    if [ "$(cat "$work/bin/.pjsip" 2>/dev/null)" != "$built_for" ]; then
        for t in "${all_targets[@]}"; do [ "$t" != push_payload ] && rm -f "$work/bin/$t"; done
    fi
    support="$root/Sources/CPJSUASupport"
    for t in "${c_targets[@]}"; do
        sources=("$here/PJSIP/$t.c")
        extra=()
        if [ "$t" = sip_endpoint ]; then
            # Our own modules on the path of a request: the answers to unhandled requests, and
            # the input screen where it exists.
            sources+=("$support/UnhandledRequests.c")
            extra+=(-I"$support/include")
            if [ -f "$support/InputScreen.c" ]; then
                sources+=("$support/InputScreen.c")
                extra+=(-DFUZZ_WITH_INPUT_SCREEN=1)
            fi
        fi
        if newer_than "$work/bin/$t" "${sources[@]}" "$here/PJSIP/common.h" "$here/run.sh"; then
            # shellcheck disable=SC2086 # pj_flags is a list of flags
            "$clang" -fsanitize=fuzzer,address -g -O1 -Wall -Wextra -fuse-ld=lld -I"$here/PJSIP" "${extra[@]}" \
                "${sources[@]}" $pj_flags -Wl,-rpath,"$prefix/lib" -Wl,--disable-new-dtags \
                -o "$work/bin/$t"
        fi
    done
    echo "$built_for" >"$work/bin/.pjsip"
    # grep -c reads all of nm's output (grep -q stops early: nm's SIGPIPE fails the pipe).
    if [ "$(nm -D "$prefix/lib/libpjsip.so" 2>/dev/null | grep -c __sanitizer_cov)" = 0 ]; then
        echo "fuzz: note: $prefix is not built with -fsanitize=fuzzer-no-link: coverage (cov) counts the targets' own code, and guides the mutations by it alone"
    fi
fi

# ---- run ---------------------------------------------------------------------------------------

# PJSIP_MAX_PKT_LEN of this PJSIP (config_site, else pjsip's default): the largest datagram.
pkt_len=$(sed -n 's/^#define[[:space:]]*PJSIP_MAX_PKT_LEN[[:space:]]*\([0-9][0-9]*\).*/\1/p' \
    "$prefix/include/pj/config_site.h" 2>/dev/null | head -n1)
pkt_len="${pkt_len:-4000}"

max_len_of() {
    case "$1" in
        push_payload) echo 9000 ;;
        sip_parser|sip_endpoint) echo "$pkt_len" ;;
        sdp|multipart) echo 8192 ;;
        xml_bodies) echo 16000 ;;   # the iOS binary's PJSIP_MAX_PKT_LEN: what a body can be there
        stun) echo 3000 ;;          # PJ_TURN_MAX_PKT_LEN
        rtp_payload) echo 1501 ;;   # the codec's byte, then a payload of up to PJMEDIA_MAX_MTU
    esac
}
# The smoke's inputs per target: about 8 s each on a quiet 2-core machine (the rates of
# make fuzz-smoke's table), enough to get past the seeds' first mutations.
runs_of() {
    case "$1" in
        push_payload) echo 400000 ;;
        sip_parser|sip_endpoint) echo 25000 ;;
        sdp) echo 16000 ;;
        multipart) echo 80000 ;;
        xml_bodies) echo 30000 ;;
        stun) echo 250000 ;;
        rtp_payload) echo 100000 ;;
    esac
}
dict_of() {
    case "$1" in
        sip_parser|sip_endpoint|multipart) echo "$here/PJSIP/sip.dict" ;;
        sdp) echo "$here/PJSIP/sdp.dict" ;;
        xml_bodies) echo "$here/PJSIP/xml.dict" ;;
        *) echo "" ;;
    esac
}

failed=0
printf '%-13s %10s %8s %7s %7s  %s\n' target execs exec/s cov ft result
for t in "${targets[@]}"; do
    learned="$work/corpus/$t"
    if [ "${FUZZ_RUNS:-}" = smoke ]; then
        learned="$work/smoke-corpus/$t"   # emptied: the smoke starts from the committed seeds only
        rm -rf "$learned"
    fi
    mkdir -p "$learned" "$work/artifacts/$t"
    corpora=("$learned")
    [ -d "$here/corpus/$t" ] && corpora+=("$here/corpus/$t")
    dict=$(dict_of "$t")
    options=(-max_total_time="$seconds" -max_len="$(max_len_of "$t")" -timeout=10 -rss_limit_mb=2560
             -print_final_stats=1 -artifact_prefix="$work/artifacts/$t/")
    if [ "${FUZZ_RUNS:-}" = smoke ]; then options+=(-runs="$(runs_of "$t")"); fi
    if [ -n "${FUZZ_SEED:-}" ]; then options+=(-seed="$FUZZ_SEED"); fi
    # FUZZ_REPLAY_ONLY="t1 t2": those targets replay their committed seeds once, without mutating
    # them: make test's smoke for a target with an open finding (Fuzz/findings/README.md), which a
    # few seconds of fuzzing would find again; the seeds keep every fixed advisory's and finding's
    # input (SEC-2, 3, 4, 6, 10, KL-53) checked.
    case " ${FUZZ_REPLAY_ONLY:-} " in
        *" $t "*) options=(-runs=0 -max_len="$(max_len_of "$t")" -timeout=10 -rss_limit_mb=2560 -print_final_stats=1
                           -artifact_prefix="$work/artifacts/$t/"); corpora=("$here/corpus/$t") ;;
    esac
    [ -n "$dict" ] && options+=(-dict="$dict")
    log="$work/logs/$t.log"
    status=0
    "$work/bin/$t" "${options[@]}" "${corpora[@]}" >"$log" 2>&1 || status=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n1)
    cov=$( (grep -o 'cov: [0-9]*' "$log" || true) | tail -n1 | cut -d' ' -f2)
    ft=$( (grep -o 'ft: [0-9]*' "$log" || true) | tail -n1 | cut -d' ' -f2)
    if [ "$status" -eq 0 ]; then
        result=ok
    else
        failed=1
        artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n1)
        kind=$( (grep -o -m1 'ERROR: [A-Za-z]*Sanitizer: [a-z-]*\|^fuzz: [^(]*\|runtime error: [a-z ]*\|ERROR: libFuzzer: [a-z -]*\|Assertion .* failed' "$log" || true) | head -n1)
        result="FAILED (exit $status: ${kind:-see log}) ${artifact:-no artifact}; log: $log"
    fi
    printf '%-13s %10s %8s %7s %7s  %s\n' "$t" "${execs:--}" "${rate:--}" "${cov:--}" "${ft:--}" "$result"
done
exit "$failed"
