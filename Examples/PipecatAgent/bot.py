"""A pipecat pipeline behind the engine's media stream: an echo bot that speaks Twilio Media
Streams through pipecat's own WebSocket server transport and TwilioFrameSerializer.

    python bot.py [--port 8765]

Every audio frame the caller sends comes back (an OutputAudioRawFrame per InputAudioRawFrame);
a keyed digit is printed, and `*` interrupts (an InterruptionFrame: pipecat sends `clear`, the
engine drops what it had queued). To put a real model here, replace EchoProcessor with pipecat's
STT -> LLM -> TTS services (see README.md).
"""
import argparse
import asyncio

from pipecat.frames.frames import InputAudioRawFrame, InputDTMFFrame, InterruptionFrame, OutputAudioRawFrame
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.runner import PipelineRunner
from pipecat.pipeline.task import PipelineParams, PipelineTask
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.serializers.twilio import TwilioFrameSerializer
from pipecat.transports.websocket.server import SingleClientWebsocketServerParams, SingleClientWebsocketServerTransport


class EchoProcessor(FrameProcessor):
    """Turns the caller's audio into the bot's audio; digits print, `*` interrupts."""

    async def process_frame(self, frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        if isinstance(frame, InputAudioRawFrame):
            await self.push_frame(OutputAudioRawFrame(audio=frame.audio, sample_rate=frame.sample_rate, num_channels=1))
        elif isinstance(frame, InputDTMFFrame):
            print(f"digit {frame.button.value}", flush=True)
            if frame.button.value == "*":
                await self.push_frame(InterruptionFrame())
        else:
            await self.push_frame(frame, direction)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=8765)
    options = parser.parse_args()
    # The engine ignores the agent's streamSid; pipecat needs one to build its messages.
    serializer = TwilioFrameSerializer("MZpipecat", params=TwilioFrameSerializer.InputParams(auto_hang_up=False))
    transport = SingleClientWebsocketServerTransport(
        params=SingleClientWebsocketServerParams(serializer=serializer, audio_in_enabled=True, audio_out_enabled=True,
                                                 add_wav_header=False),
        host="127.0.0.1", port=options.port)
    pipeline = Pipeline([transport.input(), EchoProcessor(), transport.output()])
    task = PipelineTask(pipeline, params=PipelineParams(audio_in_sample_rate=8000, audio_out_sample_rate=8000))
    print(f"pipecat bot on ws://127.0.0.1:{options.port}", flush=True)
    await PipelineRunner(handle_sigint=True).run(task)


if __name__ == "__main__":
    asyncio.run(main())
