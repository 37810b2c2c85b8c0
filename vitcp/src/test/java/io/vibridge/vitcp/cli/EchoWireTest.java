package io.vibridge.vitcp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.wire.ConnectAccept;
import io.vibridge.vitcp.wire.ConnectRequest;
import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.ConnectionHeader;
import io.vibridge.vitcp.wire.ControlSegment;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import io.vibridge.vitcp.wire.SegmentView;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The echo endpoint seen byte by byte, as an independent implementation of the profile sees it:
 * Connect Accept fields, message numbers, Message ACK, credits, immediate data (Reliable Reception,
 * flow control on).
 */
class EchoWireTest {

    @Test
    void echoAtReliableReceptionWithFlowControl_followsTheProfileOnTheWire() throws Exception {
        EchoCommand echo = new EchoCommand(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        new CommandLine(echo).parseArgs("--port", "0", "--rdmatcp-port", "off", "--discriminator", "wire", "--reliability", "2", "--flow-control",
                "--receives", "1");
        echo.start();
        Thread server = Thread.ofVirtual().start(() -> {
            try {
                echo.serve();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try (Socket s = new Socket(echo.nic().localAddress().getAddress(), echo.nic().localAddress().getPort())) {
            s.setSoTimeout(20_000);
            DataInputStream in = new DataInputStream(s.getInputStream());
            OutputStream out = s.getOutputStream();
            int imn = 0xFFFF_FFFE; // wraps after two messages
            ConnectionHeader h = ConnectionHeader.unsigned(ConnectionAttributes.of(ReliabilityLevel.RELIABLE_RECEPTION,
                    false, false, true, false, false), Discriminator.ofUtf8("me"), 65536, 2, Discriminator.ofUtf8("wire"));
            write(out, new ConnectRequest(imn, 1, h));

            ConnectAccept ca = (ConnectAccept) ControlSegment.decode(ByteBuffer.wrap(readSegment(in)), 0,
                    lastLength);
            assertThat(ca.messageAck()).isEqualTo(imn - 1); // §9.3
            assertThat(ca.rxDescriptorsPosted()).isEqualTo(1); // §9.4 initial credits
            assertThat(ca.header().mtu()).isEqualTo(65536); // lesser of both
            assertThat(ca.header().calling()).isEqualTo(Discriminator.ofUtf8("wire"));
            assertThat(ca.header().called()).isEqualTo(Discriminator.ofUtf8("me"));
            assertThat(ca.header().attributes().reliability()).isEqualTo(ReliabilityLevel.RELIABLE_RECEPTION);
            assertThat(ca.header().attributes().flowControl()).isTrue();
            assertThat(ca.header().attributes().reservedBitsSet()).isFalse();
            int echoImn = ca.initialMessageNumber();

            // Send "ping" with immediate data (the echo's only credit)
            byte[] ping = "ping".getBytes(StandardCharsets.US_ASCII);
            ByteBuffer seg = ByteBuffer.allocate(24 + 4);
            SegmentHeader.write(seg, 0, SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE | SegmentHeader.FLAG_IMMEDIATE,
                    28, 0, 0xBEEF, imn, echoImn - 1, 1, 0, 0);
            seg.put(24, ping);
            out.write(seg.array());
            out.flush();

            SegmentView echoed = null;
            while (echoed == null) {
                SegmentView v = new SegmentView().wrap(ByteBuffer.wrap(readSegment(in)), 0, lastLength);
                assertThat(v.viErrorType()).isZero();
                if (v.type() == SegmentType.NOP) {
                    assertThat(v.messageNumber()).isEqualTo(echoImn - 1); // §9.2
                    assertThat(v.isEndOfMessage()).isTrue(); // §9.1
                } else {
                    echoed = v;
                }
            }
            assertThat(echoed.type()).isEqualTo(SegmentType.SEND);
            assertThat(echoed.messageNumber()).isEqualTo(echoImn);
            assertThat(echoed.messageAck()).isEqualTo(imn); // our Send was placed and its receive completed
            assertThat(echoed.isEndOfMessage()).isTrue();
            assertThat(echoed.isImmediateValid()).isTrue();
            assertThat(echoed.immediateData()).isEqualTo(0xBEEF);
            assertThat(echoed.dataOffset()).isZero();
            byte[] got = new byte[echoed.payloadLength()];
            echoed.buffer().get(echoed.payloadOffset(), got);
            assertThat(got).isEqualTo(ping);

            // acknowledge it (Reliable Reception): a NOP whose Message ACK covers the echo's Send
            ByteBuffer nop = ByteBuffer.allocate(24);
            SegmentHeader.write(nop, 0, SegmentType.NOP, SegmentHeader.FLAG_END_OF_MESSAGE, 24, 0, 0, imn, echoImn, 1, 0, 0);
            out.write(nop.array());
            out.flush();
            // the echo re-posts its receive after its Send completed; we have no credit left, so it
            // announces the new one in a NOP at once (§6)
            int rx = -1;
            while (rx != 2) {
                SegmentView v = new SegmentView().wrap(ByteBuffer.wrap(readSegment(in)), 0, lastLength);
                assertThat(v.type()).isEqualTo(SegmentType.NOP);
                rx = v.rxDescriptorsPosted();
            }
        } finally {
            server.interrupt();
            echo.nic().close();
        }
    }

    private static int lastLength;

    private static void write(OutputStream out, ControlSegment c) throws Exception {
        ByteBuffer b = ByteBuffer.allocate(c.encodedLength());
        c.encode(b, 0);
        out.write(b.array());
        out.flush();
    }

    private static byte[] readSegment(DataInputStream in) throws Exception {
        byte[] head = new byte[4];
        in.readFully(head);
        int len = ((head[2] & 0xFF) << 8) | (head[3] & 0xFF);
        byte[] all = new byte[len];
        System.arraycopy(head, 0, all, 0, 4);
        in.readFully(all, 4, len - 4);
        lastLength = len;
        return all;
    }
}
