#!/usr/bin/env bash
# Prints the Debian archive this machine's apt already uses, so that install-pjproject.sh fetches
# sources through the same mirror or proxy as apt itself: the first URI of a deb822 `.sources`
# entry, or of a one-line `deb`/`deb-src` entry, whose suite is a release (not -security,
# -updates or -backports) and whose URI names debian. DEBIAN_MIRROR overrides; deb.debian.org is
# the fallback. APT_SOURCE_FILES (space-separated) replaces the files read (for the tests).
set -u
if [ -n "${DEBIAN_MIRROR:-}" ]; then echo "$DEBIAN_MIRROR"; exit 0; fi
existing=()
# shellcheck disable=SC2086
for file in ${APT_SOURCE_FILES:-/etc/apt/sources.list.d/*.sources /etc/apt/sources.list /etc/apt/sources.list.d/*.list}; do
    [ -f "$file" ] && existing+=("$file")  # mawk stops at the first file it cannot open
done
[ ${#existing[@]} -gt 0 ] || { echo "http://deb.debian.org/debian"; exit 0; }
found=$(awk '
    function flush() { if (uri != "" && ok && uri ~ /debian/) { print uri; exit } uri = ""; ok = 0 }
    FNR == 1 { flush() }
    /^[[:space:]]*#/ { next }
    /^deb(-src)?[[:space:]]/ {  # one-line format: deb [options] URI suite components
        i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
        if ($(i+1) !~ /-(security|updates|backports)$/ && $i ~ /debian/) { print $i; exit }
        next
    }
    /^[[:space:]]*$/ { flush(); next }
    /^URIs:/ { uri = $2 }
    /^Suites:/ { for (j = 2; j <= NF; j++) if ($j !~ /-(security|updates|backports)$/) ok = 1 }
    END { flush() }
' "${existing[@]}" 2>/dev/null | head -n1)
echo "${found:-http://deb.debian.org/debian}"
