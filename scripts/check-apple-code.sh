#!/usr/bin/env bash
# Typechecks the Apple-only code of SwiftPJSUAKit on Linux: Sources/SwiftPJSUAKit/Apple/*.swift
# (compiled only on iOS by SwiftPM) and every ```swift block of the DocC article
# CallKitIntegration.md, against stand-in modules of CallKit, PushKit, AVFAudio, AVFoundation, Network and os
# (Tests/AppleSDKStandIns, Apple's documented signatures) and the SwiftPJSUA module `swift build`
# produced. Fails when an adapter or the sample stops matching the declared API.
#
# Needs a prior `swift build` (the Makefile's `apple-check` runs one). Usage:
#   bash scripts/check-apple-code.sh
set -euo pipefail

cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-swift}"
SWIFTC="${SWIFTC:-swiftc}"

BIN="$("$SWIFT" build --show-bin-path)"
MODULES="$BIN/Modules"
if [[ ! -d "$MODULES" ]]; then MODULES="$BIN"; fi  # SwiftPM before 6.0 put modules in the bin path
if [[ ! -e "$MODULES/SwiftPJSUA.swiftmodule" ]]; then
    echo "check-apple-code: no SwiftPJSUA.swiftmodule in $MODULES; run 'swift build' first" >&2
    exit 1
fi

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
STANDINS=Tests/AppleSDKStandIns

# Flags every compilation shares: Swift 6 mode, warnings are errors.
COMMON=(-swift-version 6 -parse-as-library -warnings-as-errors -module-cache-path "$WORK/cache" -I "$WORK")

# SwiftPJSUA imports C modules. Every module map of a C target: the ones in Sources/ (PJSIP, and
# any C target with an include/ dir) and the ones SwiftPM generates under the bin path. Skipped:
# the maps SwiftPM writes for Swift targets' `-Swift.h` headers, which would declare a Clang
# module with the same name as the Swift module.
CFLAGS=()
while IFS= read -r map; do
    if grep -q -- '-Swift.h"' "$map"; then continue; fi
    CFLAGS+=(-Xcc "-fmodule-map-file=$map")
done < <(find Sources "$BIN" -name module.modulemap -not -path '*/checkouts/*' | sort)
for include in Sources/*/include; do
    [[ -d "$include" ]] && CFLAGS+=(-Xcc "-I$include")
done
for flag in $(pkg-config --cflags-only-I libpjproject 2>/dev/null); do
    CFLAGS+=(-Xcc "$flag")
done

# 1. The stand-in modules, in dependency order.
emit_standin() {
    local name="$1"
    "$SWIFTC" -emit-module -module-name "$name" "${COMMON[@]}" \
        -emit-module-path "$WORK/$name.swiftmodule" "$STANDINS/$name"/*.swift
}
for module in DispatchStandIn AVFAudio AVFoundation CallKit PushKit Network os; do
    emit_standin "$module"
done

# 2. The whole Kit as one module, Apple adapters included (SWIFTPJSUA_APPLE_STANDINS opens their
#    `#if`s). Compiled to an object, not just typechecked, so that the SIL diagnostics of Swift 6
#    (region-based isolation, definite initialisation) run too.
mapfile -t KIT_SOURCES < <(find Sources/SwiftPJSUAKit -name '*.swift' | sort)
"$SWIFTC" -module-name SwiftPJSUAKit "${COMMON[@]}" -D SWIFTPJSUA_APPLE_STANDINS \
    -I "$MODULES" "${CFLAGS[@]}" -wmo -c -o "$WORK/SwiftPJSUAKit.o" \
    -emit-module -emit-module-path "$WORK/SwiftPJSUAKit.swiftmodule" \
    "${KIT_SOURCES[@]}"
echo "check-apple-code: SwiftPJSUAKit (${#KIT_SOURCES[@]} files, Apple adapters included) compiles against the stand-ins"

# 3. The DocC sample: every ```swift block of the article, in order, as one file. The blocks are
#    written as declarations (types, extensions, functions), so they go at file scope as they are.
ARTICLE=Sources/SwiftPJSUAKit/Documentation.docc/CallKitIntegration.md
SAMPLE="$WORK/CallKitIntegrationSample.swift"
awk '
    /^```swift[[:space:]]*$/ { inside = 1; blocks++; printf "// ---- block %d (line %d)\n", blocks, NR; next }
    /^```/ && inside { inside = 0; next }
    inside { print }
    END { if (blocks == 0) exit 1 }
' "$ARTICLE" > "$SAMPLE" || { echo "check-apple-code: no swift blocks in $ARTICLE" >&2; exit 1; }
"$SWIFTC" -module-name CallKitIntegrationSample "${COMMON[@]}" -I "$MODULES" "${CFLAGS[@]}" \
    -wmo -c -o "$WORK/sample.o" "$SAMPLE" || {
    echo "check-apple-code: the swift blocks of $ARTICLE do not compile (joined in the order above)" >&2
    exit 1
}
echo "check-apple-code: the $(grep -c '^// ---- block' "$SAMPLE") swift blocks of CallKitIntegration.md compile"
