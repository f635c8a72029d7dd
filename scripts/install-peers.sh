#!/usr/bin/env bash
# Installs the real SIP peers the tests talk to, from Debian: sipp (sip-tester) and kamailio.
# Idempotent: does nothing (and says so) when they are already installed.
set -euo pipefail
PACKAGES=(sip-tester kamailio)
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
missing=()
for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "==> test peers already installed (${PACKAGES[*]}); nothing to do"
    exit 0
fi
LOG="${TMPDIR:-/tmp}/swift-pjsua-peers.log"
echo "==> installing test peers: ${missing[*]} (log: $LOG)"
install() { as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >>"$LOG" 2>&1; }
if ! install; then
    as_root apt-get update >>"$LOG" 2>&1 || true
    install || { echo "install-peers: error: apt-get could not install ${missing[*]}; last lines of $LOG:" >&2; tail -n 20 "$LOG" >&2; exit 1; }
fi
# kamailio's Debian package starts a system service on the default port; the tests start their
# own instances on free ports, so keep the packaged one from holding port 5060.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet kamailio 2>/dev/null; then
    as_root systemctl stop kamailio >/dev/null 2>&1 || true
fi
echo "==> test peers installed"
