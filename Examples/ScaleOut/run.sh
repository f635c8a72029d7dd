#!/usr/bin/env bash
# Starts the scale-out example on loopback: N bots (`softphone answer`, each its own engine on its
# own port) behind kamailio's dispatcher. Ctrl-C stops everything.
#
#   Examples/ScaleOut/run.sh [BOTS] [PORT]      # defaults: 2 bots, kamailio on 127.0.0.1:5060
#
# Then call sip:anything@127.0.0.1:PORT (e.g. `softphone call sip:bot@127.0.0.1:5060`); the
# bots' extra flags (e.g. --echo 200, --play greeting.wav) go in BOT_FLAGS.
set -euo pipefail
BOTS="${1:-2}"
PORT="${2:-5060}"
HOST=127.0.0.1
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
SOFTPHONE="${SOFTPHONE:-$(cd "$ROOT" && swift build --product softphone --show-bin-path)/softphone}"
[ -x "$SOFTPHONE" ] || (cd "$ROOT" && swift build --product softphone)
WORK="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

: > "$WORK/dispatcher.list"
for i in $(seq 1 "$BOTS"); do
    bot_port=$((PORT + i))
    # shellcheck disable=SC2086
    # Each bot's media in a range of its own (1,000 ports: 500 audio calls): bots that all started
    # at 4000 would take each other's ports under load (docs/KNOWN-LIMITS.md, KL-46).
    rtp_first=$((20000 + (i - 1) * 1000))
    "$SOFTPHONE" answer --listen "udp:$HOST:$bot_port" --rtp-ports "$rtp_first-$((rtp_first + 999))" --quiet ${BOT_FLAGS:-} &
    pids+=($!)
    echo "1 sip:$HOST:$bot_port" >> "$WORK/dispatcher.list"
done
kamailio -f "$HERE/dispatcher.cfg" -l "udp:$HOST:$PORT" -A "DS_LIST=\"$WORK/dispatcher.list\"" \
    -A "DS_FROM=\"sip:dispatcher@$HOST\"" -DD -E -Y "$WORK" &
pids+=($!)
echo "scale-out: kamailio on sip:$HOST:$PORT in front of $BOTS bot(s) on ports $((PORT + 1))-$((PORT + BOTS)); Ctrl-C stops"
wait
