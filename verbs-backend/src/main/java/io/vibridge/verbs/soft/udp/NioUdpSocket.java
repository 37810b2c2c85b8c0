package io.vibridge.verbs.soft.udp;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import jdk.net.ExtendedSocketOptions;

/** The portable socket: a {@link DatagramChannel}, one datagram per call. */
final class NioUdpSocket implements UdpSocket {
    private final DatagramChannel channel;
    private SocketAddress lastSource;
    private int sourceIp;
    private int sourcePort;
    private int segmentSize;

    private NioUdpSocket(DatagramChannel channel) {
        this.channel = channel;
    }

    static NioUdpSocket open(InetAddress address, int port, int bufferBytes) throws IOException {
        DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET);
        try {
            ch.setOption(StandardSocketOptions.SO_RCVBUF, bufferBytes);
            ch.setOption(StandardSocketOptions.SO_SNDBUF, bufferBytes);
            ch.setOption(ExtendedSocketOptions.IP_DONTFRAGMENT, true);
            ch.bind(new InetSocketAddress(address, port));
            return new NioUdpSocket(ch);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    @Override
    public boolean segmentationOffload() {
        return false;
    }

    @Override
    public Sender newSender() {
        return this::send;
    }

    private void send(ByteBuffer buf, int off, int len, int segmentSize, InetSocketAddress to, int toIp)
            throws IOException {
        int savedPosition = buf.position();
        int savedLimit = buf.limit();
        try {
            for (int at = off, end = off + len; at < end; at += segmentSize) {
                buf.limit(Math.min(end, at + segmentSize)).position(at);
                channel.send(buf, to);
            }
        } finally {
            buf.limit(savedLimit).position(savedPosition);
        }
    }

    @Override
    public int receive(ByteBuffer buf) throws IOException {
        SocketAddress from;
        do {
            buf.clear();
            try {
                from = channel.receive(buf);
            } catch (ClosedChannelException e) {            // also AsynchronousCloseException
                return -1;
            }
        } while (from == null || !isIpv4(from));
        if (from != lastSource) {
            InetSocketAddress isa = (InetSocketAddress) from;
            byte[] a = isa.getAddress().getAddress();
            sourceIp = (a[0] & 0xFF) << 24 | (a[1] & 0xFF) << 16 | (a[2] & 0xFF) << 8 | a[3] & 0xFF;
            sourcePort = isa.getPort();
            lastSource = from;
        }
        int n = buf.position();
        segmentSize = n;
        return n;
    }

    @Override
    public boolean canPoll() {
        return false;
    }

    @Override
    public int poll(ByteBuffer buf) throws IOException {
        return receive(buf);                                 // a blocking channel: a poll waits as receive does
    }

    @Override
    public void awaitReadable() {
        throw new UnsupportedOperationException("the portable socket cannot poll");
    }

    private static boolean isIpv4(SocketAddress a) {
        return ((InetSocketAddress) a).getAddress() instanceof Inet4Address;
    }

    @Override
    public int sourceIp() {
        return sourceIp;
    }

    @Override
    public int sourcePort() {
        return sourcePort;
    }

    @Override
    public int segmentSize() {
        return segmentSize;
    }

    @Override
    public int receiveBufferSize() {
        return option(StandardSocketOptions.SO_RCVBUF);
    }

    @Override
    public int sendBufferSize() {
        return option(StandardSocketOptions.SO_SNDBUF);
    }

    private int option(SocketOption<Integer> o) {
        try {
            return channel.getOption(o);
        } catch (IOException e) {
            return -1;
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
