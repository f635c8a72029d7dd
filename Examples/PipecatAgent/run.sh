#!/usr/bin/env bash
# Starts the pipecat example on loopback: the pipecat bot (bot.py, from the venv that
# scripts/install-peers.sh makes: pipecat-ai and websockets from PyPI) and `softphone answer`
# bridging every call to it. Ctrl-C stops both.
#
#   Examples/PipecatAgent/run.sh [SIP_PORT] [WS_PORT]     # defaults: 5070, 8765
#
# Then call sip:bot@127.0.0.1:SIP_PORT, e.g.
#   softphone call sip:bot@127.0.0.1:5070 --play hello.wav --record heard.wav --dtmf 12* --seconds 5
set -euo pipefail
SIP_PORT="${1:-5070}"
WS_PORT="${2:-8765}"
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PYTHON="${SWIFT_PJSUA_PEERS_VENV:-/opt/swift-pjsua-peers/venv}/bin/python"
[ -x "$PYTHON" ] || { echo "run.sh: no $PYTHON: run scripts/install-peers.sh first" >&2; exit 1; }
SOFTPHONE="${SOFTPHONE:-$(cd "$ROOT" && swift build --product softphone --show-bin-path)/softphone}"
[ -x "$SOFTPHONE" ] || (cd "$ROOT" && swift build --product softphone)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
}
trap cleanup EXIT INT TERM
"$PYTHON" -u "$HERE/bot.py" --port "$WS_PORT" &
pids+=($!)
for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$WS_PORT") 2>/dev/null && break
    sleep 0.1
done
# --clock-rate 8000: a PCMU call and the stream's 8 kHz mu-law need no resampling.
"$SOFTPHONE" answer --listen "udp:127.0.0.1:$SIP_PORT" --clock-rate 8000 --no-device-link \
    --stream "ws://127.0.0.1:$WS_PORT/bot" --stream-on-close keep ${ANSWER_FLAGS:-} &
pids+=($!)
echo "pipecat example: call sip:bot@127.0.0.1:$SIP_PORT (the bot on ws://127.0.0.1:$WS_PORT); Ctrl-C stops"
wait
