package io.vibridge.iwarp.mpa;

import io.vibridge.iwarp.wire.IwarpProtocolException;
import io.vibridge.iwarp.wire.TerminateCode;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Finds the FPDUs in the TCP byte stream after the MPA Request and Reply (RFC 5044 §4) and hands each
 * whole ULPDU on once its CRC checks out, before any byte of it is placed. An FPDU wholly inside one read
 * is checked and handed on in place; one split across reads (siw's are MSS-sized and span TCP segments)
 * is collected first. Without markers the stream is self-describing: a wrong length is not recoverable,
 * and a CRC that does not match ends the stream (RFC 5044 §8: a Terminate, then close).
 *
 * <p>The handler may refuse an FPDU (no buffer for it yet): the reader then stops where that FPDU starts
 * and hands it again on the next {@link #receive}, so nothing accepted is lost and nothing is read ahead
 * beyond the TCP receive window.
 */
public final class FpduReader {

    /** Receives each verified ULPDU; false refuses it for now. */
    @FunctionalInterface
    public interface Handler {
        boolean onUlpdu(ByteBuffer buf, int off, int length);
    }

    private final Handler handler;
    private final CRC32C crc32c = new CRC32C();
    private boolean crc;

    /** The collecting buffer's first size: an MPA-sized FPDU header and a short message fit. */
    private static final int INITIAL = 256;

    /** An FPDU arriving across reads, collected whole (allocated on first need, grown by {@link #grow}). */
    private ByteBuffer partial;
    private int partialNeed;
    /** A collected FPDU the handler refused, to hand again. */
    private boolean pending;

    public FpduReader(Handler handler) {
        this.handler = handler;
    }

    /** Whether FPDUs carry a CRC to check (negotiated in the MPA Request and Reply, RFC 5044 §7.1). */
    public void crc(boolean on) {
        this.crc = on;
    }

    /**
     * Consumes {@code in}: every whole FPDU is verified and handed on; the bytes of an incomplete one are
     * kept. Returns false when the handler refused an FPDU: {@code in}'s position is then at the first
     * byte not consumed.
     *
     * @throws IwarpProtocolException a CRC mismatch ({@link TerminateCode#MPA_CRC})
     */
    public boolean receive(ByteBuffer in) {
        if (pending && !deliverPartial()) {
            return false;
        }
        while (in.hasRemaining()) {
            if (partial == null || partial.position() == 0) {
                int at = in.position();
                if (in.remaining() >= Fpdu.LENGTH_FIELD) {
                    int length = Fpdu.length(Fpdu.ulpduLength(in, at));
                    if (in.remaining() >= length) {
                        verify(in, at, length);
                        if (!handler.onUlpdu(in, at + Fpdu.LENGTH_FIELD, Fpdu.ulpduLength(in, at))) {
                            return false;
                        }
                        in.position(at + length);
                        continue;
                    }
                }
            }
            if (!collect(in)) {
                return false;
            }
        }
        return true;
    }

    /** Whether part of an FPDU is held (a stream that ends now ends mid-FPDU). */
    public boolean midFpdu() {
        return partial != null && partial.position() > 0;
    }

    private boolean collect(ByteBuffer in) {
        if (partial == null) {
            partial = ByteBuffer.allocate(INITIAL);
        }
        if (partial.position() < Fpdu.LENGTH_FIELD) {
            copy(in, partial, Fpdu.LENGTH_FIELD - partial.position());
            if (partial.position() < Fpdu.LENGTH_FIELD) {
                return true;
            }
            partialNeed = Fpdu.length(Fpdu.ulpduLength(partial, 0));
        }
        int n = Math.min(in.remaining(), partialNeed - partial.position());
        grow(partial.position() + n);
        copy(in, partial, n);
        if (partial.position() < partialNeed) {
            return true;
        }
        verify(partial, 0, partialNeed);
        return deliverPartial();
    }

    /**
     * Room for {@code needed} bytes of the FPDU being collected: the buffer doubles with the bytes that
     * arrived, never to the length the ULPDU Length field claims before they are here (a peer
     * that sends 2 bytes claiming 65,535 costs what it sent). Kept for the next FPDU once grown.
     */
    private void grow(int needed) {
        if (partial.capacity() < needed) {
            ByteBuffer grown = ByteBuffer.allocate(Math.min(partialNeed, Math.max(needed, partial.capacity() * 2)));
            partial = grown.put(partial.flip());
        }
    }

    /** Bytes of buffer held for an FPDU collected across reads (tests: it grows with what arrived). */
    public int heldCapacity() {
        return partial == null ? 0 : partial.capacity();
    }

    private boolean deliverPartial() {
        if (!handler.onUlpdu(partial, Fpdu.LENGTH_FIELD, Fpdu.ulpduLength(partial, 0))) {
            pending = true;
            return false;
        }
        pending = false;
        partial.clear();
        return true;
    }

    private void verify(ByteBuffer b, int at, int length) {
        if (crc && !Fpdu.crcMatches(b, at, length, crc32c)) {
            throw new IwarpProtocolException(TerminateCode.MPA_CRC, "CRC", at + length - Fpdu.CRC_LENGTH,
                    String.format("FPDU of %d bytes carries 0x%08x, its bytes give 0x%08x", length,
                            Fpdu.crcField(b, at, length), Fpdu.compute(crc32c, b, at, length - Fpdu.CRC_LENGTH)));
        }
    }

    private static void copy(ByteBuffer from, ByteBuffer to, int max) {
        int n = Math.min(max, from.remaining());
        to.put(to.position(), from, from.position(), n);
        to.position(to.position() + n);
        from.position(from.position() + n);
    }
}
