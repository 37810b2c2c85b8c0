package io.vibridge.iwarp.mpa;

import io.vibridge.iwarp.wire.IwarpProtocolException;
import io.vibridge.iwarp.wire.TerminateCode;
import java.nio.ByteBuffer;

/**
 * The active side of MPA connection setup (RFC 5044 §7.1, RFC 6581), sans I/O: the Request's bytes out,
 * the Reply's bytes in, a verdict. Checks the Reply as Linux siw does ({@code siw_proc_mpareply}): the
 * Reply key, revision 2 with the enhanced flag, no markers, CRC as agreed, the responder's ORD within our
 * IRD, an RTR message we offered. A refusal the responder sends (the R flag) is not an error of the
 * stream: {@link Verdict.Rejected}.
 */
public final class MpaInitiator {

    /** What the Reply said. */
    public sealed interface Verdict {
        /** More bytes are needed. */
        record NeedMore() implements Verdict {
        }

        /** Accepted: RDMA mode from here; in peer-to-peer mode send the RTR message first. */
        record Accepted(MpaSettings settings) implements Verdict {
        }

        /** The responder set the Reject flag; its private data often says why. */
        record Rejected(MpaFrame reply) implements Verdict {
        }
    }

    private static final Verdict NEED_MORE = new Verdict.NeedMore();

    private final boolean crc;
    private final MpaV2Params offer;
    private final byte[] ulpPrivateData;
    private final ByteBuffer collected = ByteBuffer.allocate(MpaFrame.HEADER_LENGTH + MpaFrame.MAX_PRIVATE_DATA);
    private boolean done;

    /**
     * @param crc   ask for CRCs
     * @param offer our IRD and ORD, and the peer-to-peer mode with the RTR messages we can send
     */
    public MpaInitiator(boolean crc, MpaV2Params offer, byte[] ulpPrivateData) {
        this.crc = crc;
        this.offer = offer;
        this.ulpPrivateData = ulpPrivateData.clone();
    }

    /** The Request to send first. */
    public byte[] request() {
        return MpaFrame.enhanced(MpaKey.REQUEST, crc, false, offer, ulpPrivateData).toBytes();
    }

    /**
     * Consumes the Reply's bytes from {@code in} (nothing after them).
     *
     * @throws IwarpProtocolException a Reply this side cannot work with (the Terminate code says why)
     */
    public Verdict receive(ByteBuffer in) {
        if (done) {
            throw new IllegalStateException("the Reply was already received");
        }
        MpaFrame reply = MpaFrames.collect(collected, in, MpaKey.REPLY);
        if (reply == null) {
            return NEED_MORE;
        }
        done = true;
        if (reply.reject()) {
            return new Verdict.Rejected(reply);
        }
        if (reply.revision() != 2 || !reply.enhanced()) {
            throw refused(TerminateCode.MPA_INVALID_REQUEST_REPLY, "Revision", MpaFrame.OFF_REVISION,
                    "the Reply must be revision 2 with the enhanced flag, is " + reply.revision()
                            + (reply.enhanced() ? "" : " without it"));
        }
        if (reply.markers()) {
            throw refused(TerminateCode.MPA_INVALID_REQUEST_REPLY, "M", MpaFrame.OFF_FLAGS,
                    "the responder asks for markers");
        }
        MpaV2Params p = reply.v2Params();
        if (p.ord() > offer.ird()) {
            throw refused(TerminateCode.MPA_INSUFFICIENT_IRD, "ORD", MpaFrame.HEADER_LENGTH + 2,
                    "responder ORD " + p.ord() + " > our IRD " + offer.ird());
        }
        Rtr rtr = Rtr.NONE;
        if (offer.peerToPeer()) {
            if (p.writeRtr() && offer.writeRtr()) {
                rtr = Rtr.WRITE;
            } else if (p.readRtr() && offer.readRtr()) {
                rtr = Rtr.READ;
            } else {
                throw refused(TerminateCode.MPA_NO_MATCHING_RTR, "RTR", MpaFrame.HEADER_LENGTH + 2,
                        "the responder picked no RTR message we offered");
            }
        }
        // our ORD is what the responder can take at once: at most its IRD
        return new Verdict.Accepted(new MpaSettings(reply.crc() || crc, offer.ird(), Math.min(offer.ord(), p.ird()),
                rtr, reply.ulpPrivateData()));
    }

    private static IwarpProtocolException refused(TerminateCode code, String field, int offset, String reason) {
        return new IwarpProtocolException(code, field, offset, reason);
    }
}
