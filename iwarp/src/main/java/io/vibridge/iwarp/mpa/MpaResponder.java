package io.vibridge.iwarp.mpa;

import io.vibridge.iwarp.wire.IwarpProtocolException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The passive side of MPA connection setup (RFC 5044 §7.1, RFC 6581), sans I/O: bytes in, a decision,
 * the Reply's bytes out. One state per step, one method per event.
 *
 * <ol>
 * <li>{@link #receive}: collects the Request. A Request this project does not serve is refused at once
 * with a Reject Reply ({@link Outcome.Refused}): revision 1, a revision 2 Request without the enhanced
 * IRD/ORD exchange, any other revision, markers asked for. Anything that is not a Request at all is a
 * protocol error.</li>
 * <li>{@link Outcome.Requested}: the upper layer decides; the gateway first connects the InfiniBand side,
 * so that the Reply can carry the target's read depths and is sent only once there is somewhere for
 * the client's traffic to go ({@link #accept}, {@link #reject}).</li>
 * <li>After an accept the responder may send nothing until the initiator's first FPDU (RFC 6581 §3; a
 * Send packed behind the Reply got siw to reset the connection, docs/real-rdma-peers.md): in
 * peer-to-peer mode that FPDU is the RTR message {@link MpaSettings#rtr()} names.</li>
 * </ol>
 *
 * CRC: used when the Request asks for it or this side requires it. Peer-to-peer: this side confirms and
 * picks the RTR message as Linux siw does (siw_cm.c {@code siw_proc_mpareq}): a zero-length Write when
 * offered, else a zero-length Read, else Write; a Send RTR would need a posted receive and is never chosen.
 */
public final class MpaResponder {

    /** What {@link #receive} found. */
    public sealed interface Outcome {
        /** More bytes are needed. */
        record NeedMore() implements Outcome {
        }

        /** A Request this side can serve: decide with {@link #accept} or {@link #reject}. */
        record Requested(MpaFrame request, MpaV2Params params) implements Outcome {
        }

        /** A Request this side cannot serve: send {@code reply}, then close. */
        record Refused(MpaFrame request, String reason, byte[] reply) implements Outcome {
        }
    }

    private enum State { AWAIT_REQUEST, DECIDING, REPLIED, REFUSED }

    private static final Outcome NEED_MORE = new Outcome.NeedMore();

    private final boolean crcRequired;
    private final ByteBuffer collected = ByteBuffer.allocate(MpaFrame.HEADER_LENGTH + MpaFrame.MAX_PRIVATE_DATA);
    private State state = State.AWAIT_REQUEST;
    private MpaFrame request;
    private MpaV2Params requestParams;

    /** @param crcRequired ask for CRCs even when the initiator does not (RFC 5044 §7.1: either side may) */
    public MpaResponder(boolean crcRequired) {
        this.crcRequired = crcRequired;
    }

    /**
     * Consumes the Request's bytes from {@code in} (and nothing after them: whatever follows is the
     * initiator's, to be read once the Reply is out).
     *
     * @throws IwarpProtocolException not an MPA Request
     */
    public Outcome receive(ByteBuffer in) {
        if (state != State.AWAIT_REQUEST) {
            throw new IllegalStateException("the Request was already received (" + state + ")");
        }
        MpaFrame f = MpaFrames.collect(collected, in, MpaKey.REQUEST);
        return f == null ? NEED_MORE : decide(f);
    }

    private Outcome decide(MpaFrame f) {
        request = f;
        String refusal = null;
        if (f.revision() != 2 || !f.enhanced()) {
            // a revision above 2 with the enhanced flag is not RFC 6581's: its private data is no IRD/ORD word
            refusal = "MPA revision " + f.revision() + (f.revision() == 2 ? " without the enhanced IRD/ORD exchange" : "")
                    + ": this gateway speaks revision 2 with RFC 6581 setup";
        } else if (f.markers()) {
            refusal = "the initiator asks for markers, which this gateway does not send";
        }
        if (refusal == null) {
            requestParams = f.v2Params();  // throws when the enhanced flag comes without its 4 bytes
            state = State.DECIDING;
            return new Outcome.Requested(f, requestParams);
        }
        state = State.REFUSED;
        int revision = Math.min(Math.max(f.revision(), 1), 2);
        byte[] reason = refusal.getBytes(StandardCharsets.US_ASCII);
        byte[] reply = new MpaFrame(MpaKey.REPLY, false, f.crc() || crcRequired, true, false, revision,
                Arrays.copyOf(reason, Math.min(reason.length, MpaFrame.MAX_PRIVATE_DATA))).toBytes();
        return new Outcome.Refused(f, refusal, reply);
    }

    /**
     * Accepts: the Reply's bytes and what it settles. {@code ird} and {@code ord} are this side's depths
     * (the gateway's come from the target's REP); the Reply's ORD is capped at the initiator's IRD, since
     * an initiator must not be promised more Read Requests than it can hold (siw terminates with
     * "insufficient IRD" otherwise).
     */
    public Accepted accept(int ird, int ord, byte[] ulpPrivateData) {
        requireDeciding();
        Rtr rtr = Rtr.NONE;
        if (requestParams.peerToPeer()) {
            rtr = requestParams.writeRtr() || !requestParams.readRtr() ? Rtr.WRITE : Rtr.READ;
        }
        int replyOrd = Math.min(ord, requestParams.ird());
        int replyIrd = Math.min(ird, MpaV2Params.MAX_DEPTH);
        MpaV2Params params = new MpaV2Params(replyIrd, replyOrd, rtr != Rtr.NONE, false, rtr == Rtr.WRITE,
                rtr == Rtr.READ);
        boolean crc = request.crc() || crcRequired;
        byte[] reply = MpaFrame.enhanced(MpaKey.REPLY, crc, false, params, ulpPrivateData).toBytes();
        state = State.REPLIED;
        return new Accepted(reply, new MpaSettings(crc, replyIrd, replyOrd, rtr, ulpPrivateData));
    }

    /** Rejects (e.g. the InfiniBand side refused): the Reject Reply's bytes; then close. */
    public byte[] reject(byte[] ulpPrivateData) {
        requireDeciding();
        state = State.REFUSED;
        return MpaFrame.enhanced(MpaKey.REPLY, request.crc() || crcRequired, true, MpaV2Params.of(0, 0),
                ulpPrivateData).toBytes();
    }

    /** The Reply to send and the settings it makes. */
    public record Accepted(byte[] reply, MpaSettings settings) {
    }

    private void requireDeciding() {
        if (state != State.DECIDING) {
            throw new IllegalStateException("no Request awaits a decision (" + state + ")");
        }
    }
}
