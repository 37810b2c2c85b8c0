package io.vibridge.gateway.bridge;

import io.vibridge.gateway.bridge.client.ClientSocket;
import io.vibridge.vitcp.engine.ViConnection;
import java.nio.ByteBuffer;

/**
 * The VI engine on the client's socket: client bytes go to {@link ViConnection#receive} as Netty read
 * them; the engine's segments ({@link ViConnection#produce}: a header and gather views) are copied into
 * the socket's output batch. The engine stops taking input when a new message finds no free staging slot;
 * the socket then holds the rest until a slot comes back.
 */
final class ViStream implements ClientSocket.Stream {
    private final ViConnection engine;
    private final ClientSocket socket;
    /** Runs after each {@link ViConnection#written()}, outside the engine (its callbacks must not call back in). */
    private final Runnable afterWritten;
    /** Runs once the socket closed (either end). */
    private final Runnable onClosed;
    private final ByteBuffer header = ByteBuffer.allocate(ViConnection.MAX_HEADER);
    private final ByteBuffer[] io = new ByteBuffer[4];

    ViStream(ViConnection engine, ClientSocket socket, Runnable afterWritten, Runnable onClosed) {
        this.engine = engine;
        this.socket = socket;
        this.afterWritten = afterWritten;
        this.onClosed = onClosed;
    }

    @Override
    public void receive(ByteBuffer in) {
        engine.receive(in);
    }

    @Override
    public boolean takesMore() {
        return !engine.closeRequested(); // the engine refused a new message: it waits for a free staging slot
    }

    @Override
    public void writeOutput() {
        while (engine.hasOutput() && !socket.writeQueueFull()) {
            int n = engine.produce(header, io, 0);
            if (n < 0) {
                break;
            }
            int total = header.remaining();
            for (int i = 0; i < n; i++) {
                total += io[i].remaining();
            }
            ByteBuffer dst = socket.reserve(total);
            dst.put(header);
            for (int i = 0; i < n; i++) {
                dst.put(io[i]);
                io[i] = null;
            }
            socket.commit(dst);
            engine.written();
            afterWritten.run();
        }
    }

    @Override
    public void outputWritten() {
        if (engine.closeRequested() && !engine.hasOutput()) {
            socket.end();
        }
    }

    @Override
    public void closed() {
        onClosed.run();
    }
}
