package io.vibridge.vitcp.cli;

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
 * before it is forwarded, so an answer is never recorded before what caused it.
 */
final class TeeRelay implements AutoCloseable {

    /** Bytes read from one side in one read. */
    record Chunk(boolean fromClient, byte[] bytes) {
    }

    private final ServerSocket server;
    private final List<Chunk> chunks = new ArrayList<>();
    private final CountDownLatch directionsEnded = new CountDownLatch(2);
    private volatile Socket client;
    private volatile Socket upstream;

    TeeRelay(InetSocketAddress target) throws IOException {
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
    InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
    }

    /** Waits until both directions ended (each side closed), then returns every chunk in order. */
    List<Chunk> awaitChunks(long timeout, TimeUnit unit) throws InterruptedException {
        if (!directionsEnded.await(timeout, unit)) {
            throw new IllegalStateException("the relayed connection did not close");
        }
        close();
        synchronized (chunks) {
            return List.copyOf(chunks);
        }
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
