package io.vibridge.gateway.bridge;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP relay for one VI/TCP connection that records the type of every segment in each
 * direction (VITCP-PROFILE §2: 24-byte header, type in bits 7..3 of byte 1, segment length in bytes
 * 2..3), in wire order.
 */
final class SegmentTap implements AutoCloseable {
    private final ServerSocket server;
    private final List<Integer> types = new CopyOnWriteArrayList<>();
    private final List<Integer> clientTypes = new CopyOnWriteArrayList<>();
    private volatile Socket client;
    private volatile Socket upstream;

    SegmentTap(int gatewayPort) throws IOException {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> {
            try {
                client = server.accept();
                upstream = new Socket();
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), gatewayPort));
                Thread.ofVirtual().start(() -> copy(client, upstream, clientTypes));
                copy(upstream, client, types);
            } catch (IOException e) {
                closeQuietly();
            }
        });
    }

    int port() {
        return server.getLocalPort();
    }

    /** The local port of the relay's connection to the gateway (the bridge sees it as the client port). */
    int upstreamPort() {
        Socket u = upstream;
        return u == null ? -1 : u.getLocalPort();
    }

    /** Segment types gateway -> client so far. */
    List<Integer> types() {
        return List.copyOf(types);
    }

    /** Segment types client -> gateway so far. */
    List<Integer> clientTypes() {
        return List.copyOf(clientTypes);
    }

    private void copy(Socket from, Socket to, List<Integer> record) {
        byte[] buf = new byte[64 * 1024];
        byte[] hdr = new byte[4];
        int hdrHave = 0;
        int skip = 0; // bytes of the current segment after its first 4
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) > 0) {
                int i = 0;
                while (i < n) {
                    if (skip > 0) {
                        int k = Math.min(skip, n - i);
                        skip -= k;
                        i += k;
                        continue;
                    }
                    hdr[hdrHave++] = buf[i++];
                    if (hdrHave == 4) {
                        record.add((hdr[1] & 0xFF) >>> 3);
                        skip = ((hdr[2] & 0xFF) << 8 | (hdr[3] & 0xFF)) - 4;
                        hdrHave = 0;
                    }
                }
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // connection ended
        } finally {
            closeQuietly();
        }
    }

    private void closeQuietly() {
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

    @Override
    public void close() {
        closeQuietly();
    }
}
