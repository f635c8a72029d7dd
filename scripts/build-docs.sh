#!/usr/bin/env bash
# make docs: build the DocC catalogs of SwiftPJSUA, SwiftPJSUAKit and SwiftPJSUAStreams with the toolchain's `docc`,
# from the symbol graphs of the current build, warnings as errors (a broken ``Symbol`` link, a
# link to an internal type, a missing <doc:Article> all fail). Writes under .build/docs only.
# Usage: scripts/build-docs.sh (dumps the symbol graphs, building what changed, then converts).
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
DOCC=${DOCC:-$(dirname "$(command -v "$SWIFT")")/docc}
[ -x "$DOCC" ] || DOCC=$(command -v docc) || { echo "build-docs: no docc next to $SWIFT or on PATH" >&2; exit 1; }
OUT=.build/docs
MODULES=(SwiftPJSUA SwiftPJSUAKit SwiftPJSUAStreams)
mkdir -p "$OUT"

# The same dump as make api-check. It also dumps the test bundles' modules, which exist only after
# `swift build --build-tests` (make test builds them first; a lone `make docs` does not): those
# two failures are expected and ignored, any other fails the docs.
GRAPHS=$("$SWIFT" build --show-bin-path)/../symbolgraph
stamp="$OUT/.dump-started"
touch "$stamp"
if ! "$SWIFT" package dump-symbol-graph --skip-synthesized-members --emit-extension-block-symbols >"$OUT/dump-symbol-graph.log" 2>&1; then
    if grep "error:" "$OUT/dump-symbol-graph.log" \
        | grep -Ev "Failed to emit symbol graph for 'swift_pjsuaPackage(Discovered)?Tests'" >&2; then
        echo "build-docs: swift package dump-symbol-graph failed (full output: $OUT/dump-symbol-graph.log)" >&2
        exit 1
    fi
fi

status=0
for module in "${MODULES[@]}"; do
    [ "$GRAPHS/$module.symbols.json" -nt "$stamp" ] || { echo "build-docs: swift package dump-symbol-graph wrote no fresh $GRAPHS/$module.symbols.json" >&2; exit 1; }
    # docc reads every graph in the directory: give it this module's only (its own and its
    # extensions of other modules, Module@Other.symbols.json), not the whole package's.
    graphs="$OUT/symbolgraph/$module"
    rm -rf "$graphs" "$OUT/$module.doccarchive"
    mkdir -p "$graphs"
    cp "$GRAPHS/$module.symbols.json" "$graphs/"
    find "$GRAPHS" -maxdepth 1 -name "$module@*.symbols.json" -exec cp {} "$graphs/" \;
    log="$OUT/$module.log"
    if ! "$DOCC" convert "Sources/$module/Documentation.docc" \
        --additional-symbol-graph-dir "$graphs" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "swift-pjsua.$module" \
        --output-path "$OUT/$module.doccarchive" \
        --warnings-as-errors >"$log" 2>&1; then
        status=1
    fi
    # --warnings-as-errors turns warnings into errors; fail on a stray "warning:" line too, in
    # case a docc without that flag's effect on some diagnostic runs here.
    if grep -Eq "(error|warning):" "$log"; then
        status=1
        grep -E "(error|warning):" "$log" | sed "s|^|build-docs: $module: |" >&2
        grep -Ec "(error|warning):" "$log" | sed "s|^|build-docs: $module: |; s|$| diagnostics (full output: $log)|" >&2
    else
        echo "build-docs: $module: no warnings ($OUT/$module.doccarchive)"
    fi
done
exit $status
