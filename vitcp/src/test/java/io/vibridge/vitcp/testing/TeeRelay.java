package io.vibridge.vitcp.testing;

import io.vibridge.vitcp.wire.SegmentType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A loopback TCP relay for one connection that records every chunk it forwards, in each direction, in
 * the order it read them: what a capture on the wire between the two would hold. A chunk is recorded
 * before it is forwarded, so an answer is never recorded before what caused it, and whatever the far side
 * has seen is already recorded.
 */
public final class TeeRelay implements AutoCloseable {

    /** Bytes read from one side in one read. */
    public record Chunk(boolean fromClient, byte[] bytes) {
    }

    private final ServerSocket server;
    private final List<Chunk> chunks = new ArrayList<>();
    private final CountDownLatch directionsEnded = new CountDownLatch(2);
    private volatile Socket client;
    private volatile Socket upstream;

    public TeeRelay(InetSocketAddress target) throws IOException {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> {
            try {
                client = server.accept();
                client.setTcpNoDelay(true);
                upstream = new Socket();
                upstream.setTcpNoDelay(true);
                upstream.connect(target);
                Thread.ofVirtual().start(() -> copy(client, upstream, true));
                copy(upstream, client, false);
            } catch (IOException e) {
                directionsEnded.countDown();
                directionsEnded.countDown();
                close();
            }
        });
    }

    /** Where the client connects instead of the target. */
    public InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
    }

    /** Waits until both directions ended (each side closed), then returns every chunk in order. */
    public List<Chunk> awaitChunks(long timeout, TimeUnit unit) throws InterruptedException {
        if (!directionsEnded.await(timeout, unit)) {
            throw new IllegalStateException("the relayed connection did not close");
        }
        close();
        return chunks();
    }

    /** The chunks forwarded so far, in order, while the connection lasts. */
    public List<Chunk> chunks() {
        synchronized (chunks) {
            return List.copyOf(chunks);
        }
    }

    /**
     * The VI/TCP segment types forwarded in one direction so far, in wire order (VITCP-PROFILE §2: type in bits
     * 7..3 of byte 1, Segment Length in bytes 2..3), up to an incomplete segment or a type the profile reserves.
     */
    public List<SegmentType> segmentTypes(boolean fromClient) {
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        for (Chunk c : chunks()) {
            if (c.fromClient() == fromClient) {
                stream.writeBytes(c.bytes());
            }
        }
        byte[] b = stream.toByteArray();
        List<SegmentType> types = new ArrayList<>();
        for (int off = 0; off + 4 <= b.length; ) {
            int length = (b[off + 2] & 0xFF) << 8 | (b[off + 3] & 0xFF);
            if (length < 4) {
                break;
            }
            try {
                types.add(SegmentType.of((b[off + 1] & 0xFF) >>> 3, 1));
            } catch (RuntimeException reserved) {
                break;
            }
            off += length;
        }
        return types;
    }

    /** Forwards one direction; at its end of stream, half-closes the other side as TCP does. */
    private void copy(Socket from, Socket to, boolean fromClient) {
        byte[] buf = new byte[64 * 1024];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            int n;
            while ((n = in.read(buf)) > 0) {
                synchronized (chunks) {
                    chunks.add(new Chunk(fromClient, Arrays.copyOf(buf, n)));
                }
                out.write(buf, 0, n);
                out.flush();
            }
            to.shutdownOutput();
        } catch (IOException e) {
            close(); // a reset: end the other direction too
        } finally {
            directionsEnded.countDown();
        }
    }

    @Override
    public void close() {
        for (AutoCloseable c : new AutoCloseable[] {client, upstream, server}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception ignored) {
                // closing
            }
        }
    }
}
