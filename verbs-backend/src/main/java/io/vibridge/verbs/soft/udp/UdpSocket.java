package io.vibridge.verbs.soft.udp;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The soft device's UDP socket: bound to {@code ip:port}, Don't Fragment set (Linux then sends IP ID 0,
 * which the ICRC covers: docs/roce-on-udp-sockets.md).
 *
 * <p>Two implementations. {@link LinuxUdpSocket} calls the kernel through the foreign-function API and
 * uses UDP segmentation offload both ways: {@code UDP_SEGMENT} hands the kernel up to 64 equal-size
 * datagrams in one {@code sendmsg}, {@code UDP_GRO} lets one {@code recvmsg} return several. On loopback
 * the kernel then moves a whole group as one buffer, much as TCP moves 64 KiB segments; on a wire every
 * datagram is still one RoCEv2 packet. {@link NioUdpSocket} is the portable fallback: one datagram per
 * call.
 */
public sealed interface UdpSocket extends Closeable permits LinuxUdpSocket, NioUdpSocket {

    Logger LOG = LoggerFactory.getLogger(UdpSocket.class);

    /** Most datagrams one segmented send may carry (UDP_MAX_SEGMENTS of kernels before 6.9; later ones allow 128). */
    int MAX_SEGMENTS = 64;
    /** Largest UDP payload over IPv4, which also bounds a whole segmented send. */
    int MAX_PAYLOAD = 65_507;

    /** How the device chooses its socket (device option {@code udp-offload}). */
    enum Offload {
        /** segmentation offload when the platform has it, else the portable socket */
        AUTO,
        /** segmentation offload or fail */
        ON,
        /** the portable socket */
        OFF;

        public static Offload parse(String v) {
            if (v == null) {
                return AUTO;
            }
            return switch (v.trim().toLowerCase(Locale.ROOT)) {
                case "auto" -> AUTO;
                case "on", "true" -> ON;
                case "off", "false" -> OFF;
                default -> throw new IllegalArgumentException("udp-offload must be auto, on or off, got " + v);
            };
        }
    }

    /** Opens and binds a socket, asking {@code bufferBytes} for SO_RCVBUF and SO_SNDBUF. */
    static UdpSocket open(InetAddress address, int port, int bufferBytes, Offload offload) throws IOException {
        if (offload != Offload.OFF) {
            String why = LinuxUdpSocket.unavailableReason();
            if (why == null) {
                try {
                    return LinuxUdpSocket.open(address, port, bufferBytes);
                } catch (OffloadUnavailableException e) {
                    why = e.getMessage();
                }
            }
            if (offload == Offload.ON) {
                throw new IOException("udp-offload=on, but segmentation offload is unavailable: " + why);
            }
            LOG.info("UDP segmentation offload unavailable ({}): one datagram per system call", why);
        }
        return NioUdpSocket.open(address, port, bufferBytes);
    }

    /** True when {@link Sender#send} passes a group of segments to the kernel in one call. */
    boolean segmentationOffload();

    /** A sender with its own scratch state: confine it to one thread at a time. */
    Sender newSender();

    /**
     * Blocks for the next datagram (or group of equal-size datagrams, see {@link #segmentSize()}) and
     * places it at {@code buf[0, n)}; returns n, or -1 once the socket is closed.
     */
    int receive(ByteBuffer buf) throws IOException;

    /** True when {@link #poll} does not block (the Linux socket); the portable one always blocks. */
    boolean canPoll();

    /**
     * As {@link #receive} without waiting: 0 when no datagram is queued (an empty datagram, never a RoCEv2
     * packet, reads as 0 too). Blocks as {@link #receive} does where {@link #canPoll} is false.
     */
    int poll(ByteBuffer buf) throws IOException;

    /**
     * Blocks until a datagram waits (or the socket closes) without taking it, so that whoever polls next does;
     * only where {@link #canPoll} is true.
     */
    void awaitReadable() throws IOException;

    /** Source IPv4 address (big-endian int) of the last receive. */
    int sourceIp();

    /** Source UDP port of the last receive. */
    int sourcePort();

    /** Size of each datagram in the last receive (the last one may be shorter); its length when alone. */
    int segmentSize();

    /** The granted SO_RCVBUF. */
    int receiveBufferSize();

    /** The granted SO_SNDBUF. */
    int sendBufferSize();

    /** Sends from one thread at a time; reusable, allocation-free on the Linux socket. */
    interface Sender {
        /**
         * Sends {@code buf[off, off + len)} to {@code to} ({@code toIp} its IPv4 address) as datagrams of
         * {@code segmentSize} bytes, the last one possibly shorter. At most {@link #MAX_SEGMENTS}
         * datagrams and {@link #MAX_PAYLOAD} bytes per call.
         */
        void send(ByteBuffer buf, int off, int len, int segmentSize, InetSocketAddress to, int toIp) throws IOException;
    }
}
