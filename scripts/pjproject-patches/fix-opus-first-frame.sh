# KL-51: the first Opus frame an endpoint decodes was the conference bridge's stale buffer, most
# often the endpoint's own outgoing audio. pjmedia's Opus decoder keeps each packet back one frame
# (for in-band FEC): on the first it decodes nothing and returns 0 bytes (opus.c codec_decode,
# "First packet, buffer it"). The stream's get_frame (stream.c) counts a whole frame for every
# successful decode whatever size came back, and returns the frame as audio. When the codec runs
# at the bridge's rate, the bridge reads the stream straight into its shared frame buffer
# (conference.c read_port), which still holds the port read before it in that tick: a player or
# frame writer sending into the call. So 20 ms of it went to the call's listeners as what the far
# end said. Seen as a pjsua app calling `softphone answer` over Opus at 16 kHz and recording 700 Hz
# (its own tone) at 20-40 ms while the wire carried only silence; at another codec rate the
# bridge resamples from a buffer of the stream's own, which hides it. The samples a decoder did
# not write are now zeroed (silence: the decoder's one-frame delay). Upstream has no fix (master
# b7317ffca, 2026-08-20): a pjproject upgrade reviews this (the build stops if the anchor moved).
# Test: FirstOpusFrameTests.
FIRST_FRAME_FILE="$SRC/pjmedia/src/pjmedia/stream.c"
hunk KL-51 "$FIRST_FRAME_FILE" before '            } else if (use_dec_buf) {' \
'            } else if (!use_dec_buf &&
                       frame_out.size < samples_per_frame * BYTES_PER_SAMPLE)
            {
                /* swift-pjsua: KL-51, a decoder that wrote less than a frame (Opus holds
                 * its first packet back) leaves the rest of the frame counted below: zero
                 * it, or the bridge gets whatever its buffer held (its last port'"'"'s frame). */
                unsigned written = (unsigned)frame_out.size / BYTES_PER_SAMPLE;
                unsigned room = samples_required - samples_count;
                if (room > samples_per_frame)
                    room = samples_per_frame;
                if (written < room)
                    pjmedia_zero_samples(p_out_samp + samples_count + written,
                                         room - written);'
applied KL-51
