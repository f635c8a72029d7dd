#!/usr/bin/env bash
# fresh-scratch.sh PREFIX DIR...: drops the build directories DIR... when they were built against
# another PJSIP than the one installed in PREFIX now (KL-55). Clang does not revalidate a system
# module's cached build when its headers change: Swift code compiled against an older PJSIP's
# config_site.h keeps that PJSIP's struct layouts (a changed PJSIP_MAX_PKT_LEN moved every field of
# pjsip_rx_data after its buffer, and an old build read pointers out of a message's bytes). Each DIR
# records the PJSIP it was made for (PREFIX and the checksum of its install stamp) in DIR.pjproject
# beside it; a DIR without that record, or with another, is removed and rebuilt from scratch.
# Called by the Makefile's deps targets after each install (idempotent, a few milliseconds).
set -euo pipefail
prefix=$1; shift
stamp="$prefix/share/swift-pjsua/pjproject.stamp"
[ -f "$stamp" ] || { echo "fresh-scratch: no PJSIP installed in $prefix ($stamp is missing)" >&2; exit 2; }
want="$prefix $(cksum <"$stamp")"
for dir in "$@"; do
    record="$dir.pjproject"
    if [ -e "$dir" ] && [ "$(cat "$record" 2>/dev/null)" != "$want" ]; then
        echo "==> $dir was built against another PJSIP than $prefix's: removing it (KL-55)"
        rm -rf "$dir"
    fi
    mkdir -p "$(dirname "$record")"
    printf '%s\n' "$want" >"$record"
done
