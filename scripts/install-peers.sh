#!/usr/bin/env bash
# Installs the real SIP peers the tests talk to, from Debian: sipp (sip-tester), kamailio (with its
# TLS and presence modules), baresip, coturn (TURN), openssl (the tests' throwaway CA) and iproute2 (the
# network namespaces of the network-change tests), and xvfb, x11-apps (xwd) and x11-utils
# (xwininfo): the virtual display, screenshot and window lookup of the video demo's test.
# Idempotent: does nothing (and says so) when they are already installed.
set -euo pipefail
PACKAGES=(sip-tester kamailio kamailio-tls-modules kamailio-presence-modules baresip coturn openssl iproute2 xvfb x11-apps x11-utils)
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
# kamailio's and coturn's Debian packages start system services on the default ports; the tests
# start their own instances on free ports, so keep the packaged ones from holding 5060 and 3478.
for service in kamailio coturn; do
    if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet "$service" 2>/dev/null; then
        as_root systemctl stop "$service" >/dev/null 2>&1 || true
    fi
done
echo "==> test peers installed"
