package io.vibridge.iwarp.engine;

import io.vibridge.iwarp.mpa.MpaInitiator;
import io.vibridge.iwarp.mpa.MpaSettings;
import io.vibridge.iwarp.mpa.MpaV2Params;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * One engine with a recording handler and an {@link MpaInitiator} as its client: the MPA exchange in two
 * calls, then client bytes in and the engine's control output out.
 */
final class Session {

    final Recorder rec = new Recorder();
    final IwarpConnection engine;
    final MpaInitiator client;
    MpaSettings clientSettings;
    /** The gateway's Read Requests a test sent, decoded (see {@link #withReadRequests}). */
    List<Wire.Seg> readRequests = List.of();

    Session(boolean crcRequired, int maxFpdu, boolean clientCrc, MpaV2Params offer) {
        engine = new IwarpConnection(crcRequired, maxFpdu, rec);
        rec.engine = engine;
        client = new MpaInitiator(clientCrc, offer, new byte[0]);
    }

    /** CRC off, MTU 1500 FPDUs, client IRD/ORD 4/4, client/server mode. */
    static Session plain() {
        return new Session(false, 1448, false, MpaV2Params.of(4, 4));
    }

    /** Sends the client's Request; the engine must take it whole. */
    Session request() {
        ByteBuffer in = ByteBuffer.wrap(client.request());
        if (!engine.receive(in) || in.hasRemaining()) {
            throw new AssertionError("the Request was not taken: " + engine.state() + ", " + engine.failure());
        }
        return this;
    }

    /** Accepts with {@code ird}/{@code ord}, hands the Reply to the client, which must accept it. */
    Session accept(int ird, int ord) {
        engine.accept(ird, ord, new byte[0]);
        ByteBuffer reply = engine.pollControl();
        MpaInitiator.Verdict v = client.receive(reply);
        if (!(v instanceof MpaInitiator.Verdict.Accepted a) || reply.hasRemaining()) {
            throw new AssertionError("the client did not accept the Reply: " + v);
        }
        clientSettings = a.settings();
        return this;
    }

    /** Request and accept: the stream awaits the client's first FPDU. */
    Session open(int ird, int ord) {
        return request().accept(ird, ord);
    }

    Session withReadRequests(List<Wire.Seg> sent) {
        readRequests = sent;
        return this;
    }

    boolean crc() {
        return engine.settings().crc();
    }

    /** Feeds the concatenated bytes in one buffer; returns what receive() returned. */
    boolean feed(byte[]... parts) {
        return engine.receive(ByteBuffer.wrap(Wire.concat(parts)));
    }

    /** All control output queued now, concatenated. */
    byte[] drainControl() {
        List<byte[]> parts = new ArrayList<>();
        for (ByteBuffer b; (b = engine.pollControl()) != null; ) {
            parts.add(Wire.bytes(b));
        }
        return Wire.concat(parts.toArray(byte[][]::new));
    }

    /** The control output queued now, decoded as FPDUs. */
    List<Wire.Seg> control() {
        return Wire.decode(drainControl(), crc());
    }
}
