"""A Twilio Media Streams agent for the media-stream tests: a WebSocket server (PyPI `websockets`)
on 127.0.0.1 (or --host) that logs every message it receives and plays a script once `start` arrived.

Usage: stream_agent.py [--script JSON] [--silent] [--pipecat] [--realtime [--echo]] [--cert PEM --key PEM]
Prints `LISTENING <port>` once bound (port 0: a free one), then one JSON line per event:
  {"t": <monotonic s>, "handshake": {"path": ..., "headers": {...}}}
  {"t": ..., "received": <the message, parsed>}   (or "receivedRaw" for what is not JSON)
  {"t": ..., "sent": <action>}
  {"t": ..., "closed": <code>}
The script is a JSON list of actions, run in order after `start`:
  {"tone": {"hz": 1000, "ms": 1000, "chunkMs": 20}}  agent media: a sine as base64 mu-law 8 kHz
      (all at once; with "paced": true one chunk per chunkMs, on a fixed schedule: real time)
  {"mark": "name"}  {"clear": true}  {"sleep": 0.5}  {"text": "raw text"}  {"binary": 12}
  {"textBytes": "hex"}  (a text frame of those bytes, UTF-8 or not)
  {"big": 1048576}  (one text message of that many bytes)  {"close": 1000}
  {"waitFor": "stop"}  (waits until a message with that event arrived)
  {"fragments": ["part", ...]}  (one text message sent as that many frames: continuations)
  {"ping": "payload"}  (a WebSocket ping; logs {"pong": <payload>, "ms": <round trip>})
  {"bigMarks": {"count": 20, "size": 60000}}  (marks named big<i>: padded to `size` bytes; their
  echoes are logged as {"bigEcho": i, "intact": <name as sent>, "seq": <sequenceNumber>} instead
  of the whole message)
--host ADDRESS listens there instead of 127.0.0.1 (an IPv4 address).
--cert PEM --key PEM serves wss:// (TLS). --rcvbuf BYTES shrinks the listening socket's receive
buffer (so a stopped agent pushes back on the sender within a few kilobytes).
--silent accepts TCP connections and never answers the WebSocket upgrade; --answer forbidden|bad-accept
answers it with a 403, or a 101 whose Sec-WebSocket-Accept is wrong.
--pipecat also decodes every message with pipecat's TwilioFrameSerializer and logs what it made
of it ({"pipecat": "InputAudioRawFrame" ...}), and encodes the script's audio and clears through it
(OutputAudioRawFrame, InterruptionFrame); --echo (implies --pipecat) sends every audio frame
pipecat decoded back through the serializer.
"""
import argparse
import asyncio
import base64
import json
import math
import socket
import sys
import time

from websockets.asyncio.server import serve


def ulaw(sample):
    """G.711 mu-law encoding of one 16-bit sample."""
    bias, clip = 0x84, 32635
    sign = 0x80 if sample < 0 else 0
    if sample < 0:
        sample = -sample
    sample = min(sample, clip) + bias
    exponent = 7
    mask = 0x4000
    while exponent > 0 and not sample & mask:
        exponent -= 1
        mask >>= 1
    mantissa = (sample >> (exponent + 3)) & 0x0F
    return ~(sign | (exponent << 4) | mantissa) & 0xFF


def emit(record):
    record["t"] = time.monotonic()
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


class Agent:
    def __init__(self, script, pipecat, echo):
        self.script = script
        self.pipecat = pipecat
        self.echo = echo
        self.phase = 0.0
        self.events = {}
        self.serializer = None
        self.big_names = []

    async def handler(self, ws):
        emit({"handshake": {"path": ws.request.path, "headers": dict(ws.request.headers.raw_items())}})
        started = asyncio.Event()
        stream_sid = {"sid": ""}

        async def receive():
            try:
                async for message in ws:
                    if isinstance(message, bytes):
                        emit({"receivedBinary": len(message)})
                        continue
                    try:
                        parsed = json.loads(message)
                    except ValueError:
                        emit({"receivedRaw": message[:200]})
                        continue
                    event = parsed.get("event")
                    name = (parsed.get("mark") or {}).get("name", "") if event == "mark" else ""
                    if name.startswith("big") and ":" in name:
                        index = int(name[3:name.index(":")])
                        emit({"bigEcho": index, "intact": index < len(self.big_names) and name == self.big_names[index],
                              "seq": parsed.get("sequenceNumber")})
                    else:
                        emit({"received": parsed})
                    self.events.setdefault(event, asyncio.Event()).set()
                    if event == "start":
                        stream_sid["sid"] = parsed.get("streamSid", "")
                        if self.pipecat:
                            await self.make_serializer(parsed)
                        started.set()
                    if self.serializer is not None:
                        frame = await self.serializer.deserialize(message)
                        if frame is not None:
                            detail = {"pipecat": type(frame).__name__}
                            if hasattr(frame, "button"):
                                detail["digit"] = frame.button.value
                            if hasattr(frame, "audio"):
                                detail["bytes"] = len(frame.audio)
                                detail["sampleRate"] = frame.sample_rate
                            emit(detail)
                            if self.echo and type(frame).__name__ == "InputAudioRawFrame":
                                await self.pipecat_audio(ws, frame.audio)
            finally:
                emit({"closed": ws.close_code})

        receiver = asyncio.create_task(receive())
        try:
            await asyncio.wait_for(started.wait(), 10)
            for action in self.script:
                await self.run(ws, action, stream_sid["sid"])
        except Exception as error:  # the call side may close first; log it and end
            emit({"error": repr(error)})
        await receiver

    async def make_serializer(self, start):
        from types import SimpleNamespace
        from pipecat.serializers.twilio import TwilioFrameSerializer
        params = TwilioFrameSerializer.InputParams(auto_hang_up=False, sample_rate=8000)
        self.serializer = TwilioFrameSerializer(start["start"]["streamSid"], start["start"].get("callSid"), params=params)
        # setup() reads only the pipeline's input rate.
        await self.serializer.setup(SimpleNamespace(audio_in_sample_rate=8000, audio_out_sample_rate=8000))

    async def pipecat_audio(self, ws, pcm):
        """Sends PCM16 8 kHz through pipecat's serializer (an OutputAudioRawFrame)."""
        from pipecat.frames.frames import OutputAudioRawFrame
        message = await self.serializer.serialize(OutputAudioRawFrame(audio=pcm, sample_rate=8000, num_channels=1))
        if message:
            await ws.send(message)

    async def run(self, ws, action, sid):
        if "tone" in action:
            tone = action["tone"]
            rate = 8000
            chunk = int(rate * tone.get("chunkMs", 20) / 1000)
            total = int(rate * tone["ms"] / 1000)
            step = 2 * math.pi * tone["hz"] / rate
            sent = 0
            begun = time.monotonic()
            while sent < total:
                if tone.get("paced"):
                    due = begun + sent / rate
                    if due > time.monotonic():
                        await asyncio.sleep(due - time.monotonic())
                count = min(chunk, total - sent)
                samples = []
                for _ in range(count):
                    samples.append(int(0.5 * 32767 * math.sin(self.phase)))
                    self.phase += step
                if self.serializer is not None:
                    await self.pipecat_audio(ws, b"".join(s.to_bytes(2, "little", signed=True) for s in samples))
                else:
                    payload = base64.b64encode(bytes(ulaw(s) for s in samples)).decode()
                    await ws.send(json.dumps({"event": "media", "streamSid": sid, "media": {"payload": payload}}))
                sent += count
        elif "mark" in action:
            await ws.send(json.dumps({"event": "mark", "streamSid": sid, "mark": {"name": action["mark"]}}))
        elif "clear" in action:
            if self.serializer is not None:
                from pipecat.frames.frames import InterruptionFrame
                await ws.send(await self.serializer.serialize(InterruptionFrame()))
            else:
                await ws.send(json.dumps({"event": "clear", "streamSid": sid}))
        elif "sleep" in action:
            await asyncio.sleep(action["sleep"])
        elif "text" in action:
            await ws.send(action["text"])
        elif "binary" in action:
            await ws.send(bytes(action["binary"]))
        elif "textBytes" in action:
            await ws.send(bytes.fromhex(action["textBytes"]), text=True)
        elif "big" in action:
            await ws.send("x" * action["big"])
        elif "close" in action:
            await ws.close(action["close"], "agent done")
        elif "fragments" in action:
            await ws.send(iter(action["fragments"]))
        elif "ping" in action:
            started = time.monotonic()
            waiter = await ws.ping(action["ping"])
            await asyncio.wait_for(waiter, 5)
            emit({"pong": action["ping"], "ms": (time.monotonic() - started) * 1000})
        elif "bigMarks" in action:
            spec = action["bigMarks"]
            for i in range(spec["count"]):
                head = f"big{i}:"
                self.big_names.append(head + "x" * (spec["size"] - len(head)))
                await ws.send(json.dumps({"event": "mark", "streamSid": sid, "mark": {"name": self.big_names[-1]}}))
            action = {"bigMarks": spec}
        elif "waitFor" in action:
            await asyncio.wait_for(self.events.setdefault(action["waitFor"], asyncio.Event()).wait(), 15)
        emit({"sent": action if "tone" not in action else {"tone": action["tone"]}})


async def bench(ws):
    """--bench: echoes every media payload back at once and prints a `click` line for each click
    onset it saw (pjsua-bench stream): callSid, 0, received and sent (CLOCK_MONOTONIC ns, the
    clock the callers use) and the onset frame's sign changes."""
    import audioop  # C speed for 50 frames a second per call (Python 3.11 still has it)
    call_sid, was_loud = "?", False
    async for message in ws:
        received = time.monotonic_ns()
        parsed = json.loads(message)
        event = parsed.get("event")
        if event == "start":
            call_sid = parsed["start"].get("callSid", "?")
        elif event == "media":
            payload = parsed["media"]["payload"]
            await ws.send('{"event":"media","streamSid":"%s","media":{"payload":"%s"}}' % (parsed.get("streamSid", ""), payload))
            sent = time.monotonic_ns()
            pcm = audioop.ulaw2lin(base64.b64decode(payload), 2)
            loud = audioop.rms(pcm, 2) / 32767 > 0.15
            if loud and not was_loud:
                samples = memoryview(pcm).cast("h")
                crossings = sum(1 for a, b in zip(samples, samples[1:]) if (a < 0) != (b < 0))
                print(f"click {call_sid} 0 {received} {sent} {crossings}", flush=True)
            was_loud = loud


class Realtime:
    """--realtime: a local stand-in for OpenAI Realtime's GA interface, speaking its documented
    events. On connect it sends session.created and answers every session.update with
    session.updated; it logs every message but input_audio_buffer.append, which it logs as
    {"append": <bytes>} and keeps (PCM16 LE 24 kHz). Then it runs --script's actions, in order:
      {"afterAudio": 1000}  waits until that many ms of the caller's audio arrived
      {"heard": 500}  logs {"heard": <Hz>} of the last 500 ms of the caller's audio (zero crossings)
      {"answer": {"hz": 1000, "ms": 300, "chunkMs": 100, "item": "item_1", "beta": false}}
          response.created, the tone as response.output_audio.delta (response.audio.delta with
          "beta") in chunks, two transcript deltas ("Hello", " there"), response.done
      {"event": {...}}  sends that JSON event as it is (input_audio_buffer.speech_started, error)
      {"sleep": 0.5}  {"waitFor": "conversation.item.truncate"}  {"text": "raw text"}  {"close": 1000}
    Without a script: after 1 s of audio it logs what it heard and sends speech_started/stopped
    and a 500 ms answer of 1000 Hz. --echo answers every append with a delta of the same audio
    (the measurements' steady two-way load)."""

    def __init__(self, script, echo):
        self.script = script or [{"afterAudio": 1000}, {"heard": 500},
                                 {"event": {"type": "input_audio_buffer.speech_started", "item_id": "item_in"}},
                                 {"event": {"type": "input_audio_buffer.speech_stopped", "item_id": "item_in"}},
                                 {"answer": {"hz": 1000, "ms": 500, "chunkMs": 20}}]
        self.echo = echo

    async def handler(self, ws):
        emit({"handshake": {"path": ws.request.path, "headers": dict(ws.request.headers.raw_items())}})
        await ws.send(json.dumps({"type": "session.created", "session": {"id": "sess_local", "type": "realtime"}}))
        samples = []
        audio_event = asyncio.Event()
        types = {}

        async def receive():
            try:
                async for message in ws:
                    try:
                        parsed = json.loads(message)
                    except ValueError:
                        emit({"receivedRaw": message[:200]})
                        continue
                    kind = parsed.get("type")
                    if kind == "input_audio_buffer.append":
                        pcm = base64.b64decode(parsed.get("audio", ""))
                        emit({"append": len(pcm)})
                        samples.extend(memoryview(pcm).cast("h"))
                        audio_event.set()
                        if self.echo:
                            await ws.send('{"type":"response.audio.delta","item_id":"echo","delta":"%s"}' % parsed.get("audio", ""))
                        continue
                    emit({"received": parsed})
                    types.setdefault(kind, asyncio.Event()).set()
                    if kind == "session.update":
                        await ws.send(json.dumps({"type": "session.updated", "session": parsed.get("session", {})}))
            finally:
                emit({"closed": ws.close_code})

        receiver = asyncio.create_task(receive())
        try:
            for action in self.script:
                if "afterAudio" in action:
                    while len(samples) < action["afterAudio"] * 24:
                        audio_event.clear()
                        await asyncio.wait_for(audio_event.wait(), 10)
                elif "heard" in action:
                    tail = samples[-action["heard"] * 24:]
                    crossings = sum(1 for a, b in zip(tail, tail[1:]) if (a < 0) != (b < 0))
                    emit({"heard": crossings / 2 / (len(tail) / 24000) if tail else 0})
                    continue
                elif "answer" in action:
                    await self.answer(ws, action["answer"])
                elif "event" in action:
                    await ws.send(json.dumps(action["event"]))
                elif "sleep" in action:
                    await asyncio.sleep(action["sleep"])
                elif "waitFor" in action:
                    await asyncio.wait_for(types.setdefault(action["waitFor"], asyncio.Event()).wait(), 15)
                elif "text" in action:
                    await ws.send(action["text"])
                elif "close" in action:
                    await ws.close(action["close"], "agent done")
                emit({"sent": action})
        except Exception as error:  # the call side may close first; log it and end
            emit({"error": repr(error)})
        await receiver

    async def answer(self, ws, spec):
        item = spec.get("item", "item_1")
        kind = "response.audio.delta" if spec.get("beta") else "response.output_audio.delta"
        transcript = "response.audio_transcript.delta" if spec.get("beta") else "response.output_audio_transcript.delta"
        # Every delta is made before the first goes, so that they go back to back as a service's
        # do (faster than real time): made between sends, 3 s of tone took this Python 50-150 ms
        # on a loaded machine while the call already played the first delta, and every action
        # after the answer came that much later in the caller's audio.
        chunk = 24 * spec.get("chunkMs", 100)
        total = 24 * spec["ms"]
        step = 2 * math.pi * spec["hz"] / 24000
        pcm = b"".join(int(0.5 * 32767 * math.sin(step * index)).to_bytes(2, "little", signed=True) for index in range(total))
        deltas = [json.dumps({"type": kind, "response_id": "resp_1", "item_id": item, "output_index": 0, "content_index": 0,
                              "delta": base64.b64encode(pcm[2 * start:2 * (start + chunk)]).decode()})
                  for start in range(0, total, chunk)]
        await ws.send(json.dumps({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}}))
        emit({"firstDelta": item})
        for delta in deltas:
            await ws.send(delta)
        for text in ("Hello", " there"):
            await ws.send(json.dumps({"type": transcript, "item_id": item, "delta": text}))
        await ws.send(json.dumps({"type": "response.done", "response": {"id": "resp_1", "status": "completed"}}))


async def silent(listener):
    async def hold(reader, writer):
        await asyncio.sleep(30)
        writer.close()
    server = await asyncio.start_server(hold, sock=listener)
    async with server:
        await server.serve_forever()


ANSWERS = {
    "forbidden": "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n",
    "bad-accept": "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  "Sec-WebSocket-Accept: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
}


async def answer(listener, name):
    async def handle(reader, writer):
        await reader.readuntil(b"\r\n\r\n")
        writer.write(ANSWERS[name].encode())
        await writer.drain()
        emit({"answered": name})
        await asyncio.sleep(10)
        writer.close()
    server = await asyncio.start_server(handle, sock=listener)
    async with server:
        await server.serve_forever()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--script", default="[]")
    parser.add_argument("--silent", action="store_true")
    parser.add_argument("--pipecat", action="store_true")
    parser.add_argument("--echo", action="store_true")
    parser.add_argument("--bench", action="store_true")
    parser.add_argument("--realtime", action="store_true")
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--rcvbuf", type=int)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--answer", choices=sorted(ANSWERS))
    options = parser.parse_args()
    tls = None
    if options.cert:
        import ssl
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(options.cert, options.key)
        # Logs the name the client asked for (SNI): none for an IP address.
        tls.sni_callback = lambda _socket, name, _context: emit({"sni": name})
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if options.rcvbuf:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, options.rcvbuf)
    listener.bind((options.host, 0))
    listener.listen(16)
    print(f"LISTENING {listener.getsockname()[1]}", flush=True)
    if options.silent:
        await silent(listener)
        return
    if options.answer:
        await answer(listener, options.answer)
        return
    if options.realtime:
        agent = Realtime(json.loads(options.script), options.echo)
        async with serve(agent.handler, sock=listener, ping_interval=None, max_size=2 ** 24, ssl=tls):
            await asyncio.Future()
        return
    if options.bench:
        async with serve(bench, sock=listener, ping_interval=None, compression=None):
            await asyncio.Future()
        return
    if options.pipecat or options.echo:
        # pipecat takes a second or more to import: before LISTENING, not while the call streams.
        import pipecat.serializers.twilio  # noqa: F401
        import pipecat.frames.frames  # noqa: F401
    agent = Agent(json.loads(options.script), options.pipecat or options.echo, options.echo)
    async with serve(agent.handler, sock=listener, max_size=2 ** 24, ping_interval=None, ssl=tls):
        await asyncio.Future()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
