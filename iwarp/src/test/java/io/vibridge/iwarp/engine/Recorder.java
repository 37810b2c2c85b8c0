package io.vibridge.iwarp.engine;

import io.vibridge.iwarp.mpa.MpaFrame;
import io.vibridge.iwarp.mpa.MpaV2Params;
import io.vibridge.iwarp.wire.DdpSegment;
import io.vibridge.iwarp.wire.IwarpProtocolException;
import io.vibridge.iwarp.wire.RdmapOpcode;
import io.vibridge.iwarp.wire.ReadRequest;
import io.vibridge.iwarp.wire.Terminate;
import io.vibridge.iwarp.wire.TerminateCode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Test double for {@link IwarpConnection.Handler}: records every delivery as a value (payloads as hex, so
 * that events compare with equals), refuses the ones {@link #refuse} picks, and checks the engine's
 * promises on each call: data only while {@link IwarpConnection.State#ESTABLISHED}, each segment's payload
 * inside its buffer, {@code failed} and {@code terminated} at most once.
 */
final class Recorder implements IwarpConnection.Handler {

    sealed interface Event {
    }

    record Requested(MpaFrame request, MpaV2Params params) implements Event {
    }

    record Send(RdmapOpcode op, boolean last, int msn, int mo, int invalidateStag, String payload) implements Event {
    }

    record Write(int stag, long to, boolean last, String payload) implements Event {
    }

    record ReadReq(ReadRequest request) implements Event {
    }

    record ReadResp(Object token, long offset, int stag, long to, boolean last, String payload) implements Event {
    }

    record Terminated(Terminate terminate) implements Event {
    }

    record Failed(IwarpProtocolException cause) implements Event {
    }

    static final HexFormat HEX = HexFormat.of();

    final List<Event> events = new ArrayList<>();
    /** Deliveries the handler refused (each is offered again later). */
    final List<Event> refused = new ArrayList<>();
    /** Picks the deliveries to refuse; sees each candidate once per offer. */
    Predicate<Event> refuse = e -> false;
    /** Runs inside {@link #requested} (e.g. to accept at once). */
    Consumer<IwarpConnection> onRequested = c -> {
    };
    IwarpConnection engine;

    static String hex(ByteBuffer b, int off, int len) {
        byte[] a = new byte[len];
        b.get(off, a);
        return HEX.formatHex(a);
    }

    private static String payload(DdpSegment s) {
        ByteBuffer b = s.buffer();
        int off = s.payloadOffset();
        int len = s.payloadLength();
        if (len < 0 || off < 0 || off + len > b.limit()) {
            throw new AssertionError("payload [" + off + ", +" + len + ") outside its buffer's " + b.limit() + " bytes");
        }
        return hex(b, off, len);
    }

    private boolean offer(Event e) {
        if (engine != null && engine.state() != IwarpConnection.State.ESTABLISHED) {
            throw new AssertionError(e + " delivered while the stream is " + engine.state());
        }
        if (refuse.test(e)) {
            refused.add(e);
            return false;
        }
        events.add(e);
        return true;
    }

    @Override
    public void requested(MpaFrame request, MpaV2Params params) {
        events.add(new Requested(request, params));
        onRequested.accept(engine);
    }

    @Override
    public boolean send(DdpSegment s) {
        if (!s.opcode().isSend()) {
            throw new AssertionError(s.opcode() + " delivered as a Send");
        }
        return offer(new Send(s.opcode(), s.last(), s.msn(), s.messageOffset(), s.invalidateStag(), payload(s)));
    }

    @Override
    public boolean write(DdpSegment s) {
        if (s.opcode() != RdmapOpcode.RDMA_WRITE) {
            throw new AssertionError(s.opcode() + " delivered as a Write");
        }
        return offer(new Write(s.stag(), s.taggedOffset(), s.last(), payload(s)));
    }

    @Override
    public boolean readRequest(ReadRequest request) {
        return offer(new ReadReq(request));
    }

    @Override
    public boolean readResponse(Object token, long offset, DdpSegment s) {
        if (s.opcode() != RdmapOpcode.READ_RESPONSE) {
            throw new AssertionError(s.opcode() + " delivered as a Read Response");
        }
        return offer(new ReadResp(token, offset, s.stag(), s.taggedOffset(), s.last(), payload(s)));
    }

    @Override
    public void terminated(Terminate terminate) {
        if (events.stream().anyMatch(e -> e instanceof Terminated || e instanceof Failed)) {
            throw new AssertionError("terminated after " + events.getLast());
        }
        events.add(new Terminated(terminate));
    }

    @Override
    public void failed(IwarpProtocolException cause) {
        if (events.stream().anyMatch(e -> e instanceof Terminated || e instanceof Failed)) {
            throw new AssertionError("failed (" + cause + ") after " + events.getLast());
        }
        if (engine != null && engine.state() != IwarpConnection.State.TERMINATED) {
            throw new AssertionError("failed while the stream is " + engine.state());
        }
        events.add(new Failed(cause));
    }

    <T extends Event> List<T> of(Class<T> kind) {
        return events.stream().filter(kind::isInstance).map(kind::cast).toList();
    }

    /** The failure's Terminate code, or null. */
    TerminateCode failure() {
        List<Failed> f = of(Failed.class);
        return f.isEmpty() ? null : f.getFirst().cause().code();
    }
}
