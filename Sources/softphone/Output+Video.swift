import SwiftPJSUA

extension Output {
    /// Prints a video call's streams after a media change (the first stream's figures; calls
    /// carry one).
    func emit(video streams: [PJSUA.VideoStream], of call: PJSUA.Call) {
        guard let stream = streams.first(where: \.isActive) ?? streams.first else { return }
        emit("video", ["call": call.description, "index": stream.index, "state": stream.state.rawValue,
                       "direction": stream.direction.rawValue, "sending": stream.isSending, "receiving": stream.isReceiving,
                       "captureDevice": stream.captureDevice?.rawValue ?? -1],
             human: "\(call) \(stream)")
    }

    /// The video fields of a `stats` record (none for an audio-only call).
    func videoFields(_ video: PJSUA.VideoStatistics?) -> [(String, any Sendable)] {
        guard let video else { return [] }
        let kilobits: (Double) -> Double = { ($0 / 100).rounded() / 10 }
        return [("videoCodec", video.codec), ("videoDirection", video.direction.rawValue),
                ("videoSendSize", video.sendSize.description), ("videoReceiveSize", video.receiveSize.description),
                ("videoSendFps", video.sendFrameRate), ("videoFramesReceived", video.framesReceived),
                ("videoReceivedFps", (video.receivedFrameRate * 10).rounded() / 10),
                ("videoPacketsSent", video.sent.packets), ("videoPacketsReceived", video.received.packets),
                ("videoLostSent", video.sent.packetsLost), ("videoLostReceived", video.received.packetsLost),
                ("videoKbpsSent", kilobits(video.sendBitrate)), ("videoKbpsReceived", kilobits(video.receiveBitrate))]
    }

    /// The video part of a human-readable stats line.
    func videoSummary(_ video: PJSUA.VideoStatistics?) -> String {
        guard let video else { return "" }
        return "; video \(video.codec) \(video.direction), sending \(video.sendSize), receiving \(video.receiveSize), "
            + "\(video.framesReceived) frames in (\(Int(video.receivedFrameRate.rounded())) fps), "
            + "\(Int(video.sendBitrate / 1000)) kbit/s out, \(Int(video.receiveBitrate / 1000)) kbit/s in"
    }
}
