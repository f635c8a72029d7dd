#!/usr/bin/env bash
# Installs the real SIP peers the tests talk to, from Debian: sipp (sip-tester), kamailio (with its
# TLS and presence modules), baresip, coturn (TURN), openssl (the tests' throwaway CA) and iproute2 (the
# network namespaces of the network-change tests), and xvfb, x11-apps (xwd) and x11-utils
# (xwininfo): the virtual display, screenshot and window lookup of the video demo's test.
# Idempotent: does nothing (and says so) when they are already installed.
set -euo pipefail
PACKAGES=(sip-tester kamailio kamailio-tls-modules kamailio-presence-modules baresip coturn openssl iproute2 xvfb x11-apps x11-utils
    python3-venv)
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
missing=()
for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# The media-stream tests' WebSocket agent (Tests/Peers/stream_agent.py) runs on PyPI's
# `websockets`, in a venv of its own so the system Python stays untouched; pipecat-ai provides
# TwilioFrameSerializer and the example bot's pipeline. Versions pinned; idempotent.
PEERS_VENV="${SWIFT_PJSUA_PEERS_VENV:-/opt/swift-pjsua-peers/venv}"
WEBSOCKETS_VERSION=17.4
PIPECAT_VERSION=1.14.0
install_agent_venv() {
    if [ -x "$PEERS_VENV/bin/python" ] && "$PEERS_VENV/bin/python" -c "import websockets, sys; sys.exit(websockets.__version__ != '$WEBSOCKETS_VERSION')" 2>/dev/null; then
        echo "==> stream agent venv ready ($PEERS_VENV, websockets $WEBSOCKETS_VERSION)"
    else
        echo "==> making the stream agent venv ($PEERS_VENV)"
        as_root mkdir -p "$(dirname "$PEERS_VENV")"
        as_root python3 -m venv "$PEERS_VENV"
        as_root "$PEERS_VENV/bin/pip" install --quiet "websockets==$WEBSOCKETS_VERSION"
    fi
    if ! "$PEERS_VENV/bin/python" -c "import pipecat.serializers.twilio" 2>/dev/null; then
        echo "==> installing pipecat-ai $PIPECAT_VERSION into $PEERS_VENV"
        as_root "$PEERS_VENV/bin/pip" install --quiet "pipecat-ai==$PIPECAT_VERSION" "websockets==$WEBSOCKETS_VERSION" \
            || { echo "install-peers: error: pip could not install pipecat-ai $PIPECAT_VERSION into $PEERS_VENV" >&2; exit 1; }
    fi
}
if [ ${#missing[@]} -eq 0 ]; then
    echo "==> test peers already installed (${PACKAGES[*]}); nothing to do"
    install_agent_venv
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
install_agent_venv  # after apt: a fresh Debian needs python3-venv for it
echo "==> test peers installed"
