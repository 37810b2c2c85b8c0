package io.vibridge.vitcp.provider;

import io.vibridge.vitcp.wire.SegmentType;
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
 * A loopback TCP relay between two providers for one VI/TCP connection that records the type of every
 * segment in each direction, in wire order (VITCP-PROFILE §2: type in bits 7..3 of byte 1, Segment Length
 * in bytes 2..3). Each segment is recorded before its first byte is forwarded, so whatever the far side
 * has seen is already recorded.
 */
final class WireTap implements AutoCloseable {
    private final ServerSocket server;
    private final List<SegmentType> toServer = new CopyOnWriteArrayList<>();
    private final List<SegmentType> toClient = new CopyOnWriteArrayList<>();
    private volatile Socket client;
    private volatile Socket upstream;

    WireTap(InetSocketAddress target) throws IOException {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> {
            try {
                client = server.accept();
                client.setTcpNoDelay(true);
                upstream = new Socket();
                upstream.setTcpNoDelay(true);
                upstream.connect(target);
                Thread.ofVirtual().start(() -> copy(client, upstream, toServer));
                copy(upstream, client, toClient);
            } catch (IOException e) {
                close();
            }
        });
    }

    /** Where the client connects instead of the server. */
    ViNetAddress address(io.vibridge.vitcp.wire.Discriminator called) {
        return new ViNetAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()), called);
    }

    /** Segment types client -> server so far. */
    List<SegmentType> toServer() {
        return List.copyOf(toServer);
    }

    /** Segment types server -> client so far. */
    List<SegmentType> toClient() {
        return List.copyOf(toClient);
    }

    private void copy(Socket from, Socket to, List<SegmentType> types) {
        byte[] buf = new byte[64 * 1024];
        byte[] hdr = new byte[4];
        int hdrHave = 0;
        int skip = 0; // bytes of the current segment after its first 4
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) > 0) {
                for (int i = 0; i < n;) {
                    if (skip > 0) {
                        int k = Math.min(skip, n - i);
                        skip -= k;
                        i += k;
                        continue;
                    }
                    hdr[hdrHave++] = buf[i++];
                    if (hdrHave == 4) {
                        types.add(SegmentType.of((hdr[1] & 0xFF) >>> 3, 1));
                        skip = ((hdr[2] & 0xFF) << 8 | (hdr[3] & 0xFF)) - 4;
                        hdrHave = 0;
                    }
                }
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException | RuntimeException e) {
            // connection ended (or a reserved type, which the far side refuses anyway)
        } finally {
            close();
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
