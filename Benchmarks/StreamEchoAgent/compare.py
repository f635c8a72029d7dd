"""Checks that stream-echo-agent answers as Tests/Peers/stream_agent.py --bench does.

Usage: compare.py PATH/TO/stream-echo-agent   (with the peers' venv Python, which has `websockets`)
Starts both agents, sends each the same session (connected, start, media frames with quiet tone
and clicks, a payload with an escaped slash, a fragmented media message, a ping, a close) as a
client, and compares what came back (echoes, pong, close code) and their `click` lines (callSid,
sign changes; the times differ). Also: a second connection that sends a message that is not JSON
gets the same close code from both. Exits 1 on a difference.
"""
import asyncio
import base64
import math
import os
import subprocess
import sys

from websockets.asyncio.client import connect

PEERS = os.path.join(os.path.dirname(__file__), "..", "..", "Tests", "Peers")


def ulaw(sample):
    bias, clip = 0x84, 32635
    sign = 0x80 if sample < 0 else 0
    sample = min(abs(sample), clip) + bias
    exponent, mask = 7, 0x4000
    while exponent > 0 and not sample & mask:
        exponent -= 1
        mask >>= 1
    return ~(sign | (exponent << 4) | ((sample >> (exponent + 3)) & 0x0F)) & 0xFF


def frame(hz, amplitude):
    return base64.b64encode(bytes(ulaw(int(amplitude * math.sin(2 * math.pi * hz * n / 8000))) for n in range(160))).decode()


def media(sid, payload, escaped=False):
    if escaped:
        payload = payload.replace("/", "\\/")
    return ('{"event":"media","sequenceNumber":"3","media":{"track":"inbound","chunk":"1","timestamp":"0",'
            '"payload":"%s"},"streamSid":"%s"}' % (payload, sid))


async def session(port):
    got = []
    async with connect(f"ws://127.0.0.1:{port}/bench", compression=None, ping_interval=None) as ws:
        await ws.send('{"event":"connected","protocol":"Call","version":"1.0.0"}')
        await ws.send('{"event":"start","sequenceNumber":"1","start":{"accountSid":"AC1","streamSid":"MZ1",'
                      '"callSid":"call-7@127.0.0.1","tracks":["inbound"],"customParameters":{},'
                      '"mediaFormat":{"encoding":"audio/x-mulaw","sampleRate":8000,"channels":1}},"streamSid":"MZ1"}')
        frames = [frame(400, 1000)] * 3 + [frame(1000, 20000)] + [frame(400, 1000)] * 2 + [frame(2000, 20000)] * 2
        for payload in frames:
            await ws.send(media("MZ1", payload))
            got.append(await ws.recv())
        with_slash = next(f for f in (frame(hz, 20000) for hz in range(900, 1200, 7)) if "/" in f)
        await ws.send(media("MZ1", with_slash, escaped=True))
        got.append(await ws.recv())
        text = media("MZ1", frame(400, 1000))
        await ws.send([text[:40], text[40:100], text[100:]])  # fragments
        got.append(await ws.recv())
        pong = await ws.ping(b"abc")
        await asyncio.wait_for(pong, 5)
        got.append("pong")
        await ws.close(4001, "bye")
        got.append(("closed", ws.close_code))
    async with connect(f"ws://127.0.0.1:{port}/bench", compression=None, ping_interval=None) as ws:
        await ws.send("not json")
        try:
            await asyncio.wait_for(ws.recv(), 5)
        except Exception:
            pass
        got.append(("bad json closed", ws.close_code))
    return got


def start(command):
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    assert line.startswith("LISTENING "), line
    return process, int(line.split()[1])


def clicks(process):
    process.terminate()
    out, _ = process.communicate(timeout=5)
    return [line.split()[1:2] + line.split()[2:3] + line.split()[5:] for line in out.splitlines() if line.startswith("click ")]


async def main():
    python, c_agent = sys.executable, sys.argv[1]
    results = {}
    for name, command in (("python", [python, "-u", "-W", "ignore", os.path.join(PEERS, "stream_agent.py"), "--bench"]),
                          ("c", [c_agent])):
        process, port = start(command)
        try:
            got = await session(port)
        finally:
            lines = clicks(process)
        results[name] = (got, lines)
        print(name, "clicks:", lines, "last:", got[-3:])
    same = results["python"] == results["c"]
    print("same" if same else "DIFFERENT")
    if not same:
        for a, b in zip(results["python"][0], results["c"][0]):
            if a != b:
                print("python:", a, "\nc:     ", b)
    sys.exit(0 if same else 1)


asyncio.run(main())
