#!/usr/bin/env bash
# Builds the libFuzzer target for the VoIP push payload parser and runs it for a bounded time.
# Usage: Fuzz/run.sh [seconds]   (default 30). Exits non-zero when the fuzzer finds a crash.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
seconds="${1:-30}"
work="${FUZZ_WORK:-$root/.build/fuzz}"
mkdir -p "$work/corpus" "$work/artifacts"

# Seed corpus: a few valid and nearly valid payloads.
printf '%s' '{"v":1,"call-id":"a84b4c76e66710@pc33.example.com"}' > "$work/corpus/minimal.json"
printf '%s' '{"v":1,"call-id":"x@y","uuid":"2ed6657d-e927-568b-95e1-2665a8aea6a2","caller":"sip:alice@example.com","display-name":"Alice","video":true,"cancelled":false}' > "$work/corpus/full.json"
printf '%s' '{"v":2,"call-id":7,"video":"yes"}' > "$work/corpus/wrong.json"

# lld: gold prints a page of "cannot export local symbol" warnings for the ASan runtime.
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -use-ld=lld \
    -module-name PushPayloadFuzz \
    "$here/PushPayloadFuzz/PushPayloadFuzz.swift" \
    "$root/Sources/SwiftPJSUAKit/Push/VoIPPushPayload.swift" \
    "$root/Sources/SwiftPJSUAKit/Push/PushPayloadError.swift" \
    -o "$work/push-payload-fuzz"

"$work/push-payload-fuzz" -max_total_time="$seconds" -max_len=9000 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" "$work/corpus"
