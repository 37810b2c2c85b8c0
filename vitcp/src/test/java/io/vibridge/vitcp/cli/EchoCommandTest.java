package io.vibridge.vitcp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.engine.Status;
import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.MemoryAttributes;
import io.vibridge.vitcp.provider.MemoryRegion;
import io.vibridge.vitcp.provider.NicConfig;
import io.vibridge.vitcp.provider.ProtectionTag;
import io.vibridge.vitcp.provider.Vi;
import io.vibridge.vitcp.provider.ViAttributes;
import io.vibridge.vitcp.provider.ViNetAddress;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.provider.ViState;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.Encapsulation;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** Acceptance 5: the echo endpoint echoes Sends (immediate included) and exposes its printed RDMA region. */
class EchoCommandTest {
    static final Duration T = Duration.ofSeconds(20);

    @ParameterizedTest
    @CsvSource({"RELIABLE_DELIVERY,false,VITCP", "RELIABLE_RECEPTION,true,VITCP", "UNRELIABLE_DELIVERY,false,VITCP",
        "1,true,VITCP", "RELIABLE_DELIVERY,false,RDMATCP", "RELIABLE_RECEPTION,true,RDMATCP",
        "UNRELIABLE_DELIVERY,true,RDMATCP"})
    void echoesSendsAndServesItsRegion(String level, boolean flowControl, Encapsulation framing) throws Exception {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        EchoCommand echo = new EchoCommand(new PrintStream(text, true, StandardCharsets.UTF_8));
        String[] args = flowControl
                ? new String[] {"--port", "0", "--rdmatcp-port", "0", "--discriminator", "echo-test", "--reliability",
                    level, "--flow-control"}
                : new String[] {"--port", "0", "--rdmatcp-port", "0", "--discriminator", "echo-test", "--reliability",
                    level};
        new CommandLine(echo).parseArgs(args);
        echo.start();
        Thread server = Thread.ofVirtual().start(() -> {
            try {
                echo.serve();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Matcher m = Pattern.compile("region address=0x([0-9a-f]+) handle=0x([0-9a-f]+) length=(\\d+)")
                .matcher(text.toString(StandardCharsets.UTF_8));
        assertThat(m.find()).isTrue();
        long address = Long.parseUnsignedLong(m.group(1), 16);
        int handle = Integer.parseUnsignedInt(m.group(2), 16);
        ReliabilityLevel lvl = ReliabilityConverter.parse(level);
        try (ViNic client = ViNic.open(NicConfig.loopback().withListen(null))) {
            ProtectionTag tag = client.createPtag();
            Vi vi = client.createVi(ViAttributes.of(lvl, tag).withFlowControl(flowControl), null, null);
            MemoryRegion mem = client.registerMemory(ByteBuffer.allocateDirect(8192), new MemoryAttributes(tag, true, true));
            vi.postRecv(Descriptor.receive().data(mem, 4096, 4096));
            vi.connectRequest(Discriminator.ofUtf8("client"), echo.nic().address(Discriminator.ofUtf8("echo-test"), framing),
                    T);
            mem.buffer().put(0, "hello vi".getBytes(StandardCharsets.US_ASCII));
            vi.postSend(Descriptor.send().data(mem, 0, 8).immediate(0x1234));
            assertThat(vi.sendWait(T).isError()).isFalse();
            Descriptor back = vi.recvWait(T);
            assertThat(back.status()).isEqualTo(Status.DONE | Status.OP_RECEIVE | Status.IMMEDIATE);
            assertThat(back.immediateData()).isEqualTo(0x1234);
            byte[] got = new byte[8];
            mem.buffer().get(4096, got);
            assertThat(new String(got, StandardCharsets.US_ASCII)).isEqualTo("hello vi");
            if (lvl != ReliabilityLevel.UNRELIABLE_DELIVERY) {
                mem.buffer().put(100, (byte) 42);
                vi.postSend(Descriptor.rdmaWrite(address + 10, handle).data(mem, 100, 1));
                vi.postSend(Descriptor.rdmaRead(address + 10, handle).data(mem, 200, 1));
                assertThat(vi.sendWait(T).isError()).isFalse();
                assertThat(vi.sendWait(T).status()).isEqualTo(Status.DONE | Status.OP_RDMA_READ);
                assertThat(mem.buffer().get(200)).isEqualTo((byte) 42);
                assertThat(echo.region().buffer().get(10)).isEqualTo((byte) 42);
            }
            vi.disconnect();
        } finally {
            server.interrupt();
            echo.nic().close();
        }
    }

    /**
     * An RDMA Write with immediate data consumes one of the echo's receives (VIA 10.2: completed
     * operation "remote RDMA Write"); the echo answers only Sends, so it sends nothing back for it, and it
     * reposts that receive (one receive, flow control on: the following Send needs the credit back).
     */
    @ParameterizedTest
    @CsvSource({"RELIABLE_DELIVERY", "RELIABLE_RECEPTION"})
    void writeWithImmediateIsNotEchoedAndItsReceiveIsReposted(String level) throws Exception {
        EchoCommand echo = new EchoCommand(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        new CommandLine(echo).parseArgs("--port", "0", "--rdmatcp-port", "off", "--discriminator", "echo-wi",
                "--reliability", level,
                "--flow-control", "--receives", "1");
        echo.start();
        Thread server = Thread.ofVirtual().start(() -> {
            try {
                echo.serve();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        MemoryRegion region = echo.region();
        try (ViNic client = ViNic.open(NicConfig.loopback().withListen(null))) {
            ProtectionTag tag = client.createPtag();
            Vi vi = client.createVi(ViAttributes.of(ReliabilityConverter.parse(level), tag).withFlowControl(true), null,
                    null);
            MemoryRegion mem = client.registerMemory(ByteBuffer.allocateDirect(8192), new MemoryAttributes(tag, true, true));
            vi.postRecv(Descriptor.receive().data(mem, 4096, 4096)); // room for one answer only
            vi.connectRequest(Discriminator.ofUtf8("client"),
                    new ViNetAddress(echo.nic().localAddress(), Discriminator.ofUtf8("echo-wi")), T);
            mem.buffer().put(0, "wi".getBytes(StandardCharsets.US_ASCII));
            vi.postSend(Descriptor.rdmaWrite(region.address() + 64, region.handle()).data(mem, 0, 2).immediate(0x5151));
            assertThat(vi.sendWait(T).status()).isEqualTo(Status.DONE | Status.OP_RDMA_WRITE);
            for (int round = 0; round < 2; round++) {
                byte[] text = ("send" + round).getBytes(StandardCharsets.US_ASCII);
                mem.buffer().put(100, text);
                vi.postSend(Descriptor.send().data(mem, 100, text.length).immediate(0x7000 + round));
                assertThat(vi.sendWait(T).isError()).isFalse();
                Descriptor back = vi.recvWait(T);
                // the answer is the Send's echo, not an empty Send for the write
                assertThat(back.status()).isEqualTo(Status.DONE | Status.OP_RECEIVE | Status.IMMEDIATE);
                assertThat(back.immediateData()).isEqualTo(0x7000 + round);
                assertThat(back.transferred()).isEqualTo(text.length);
                byte[] got = new byte[text.length];
                mem.buffer().get(4096, got);
                assertThat(got).isEqualTo(text);
                vi.postRecv(back);
            }
            assertThat(region.buffer().get(64)).isEqualTo((byte) 'w');
            assertThat(vi.state()).isEqualTo(ViState.CONNECTED);
            vi.disconnect();
        } finally {
            server.interrupt();
            echo.nic().close();
        }
    }
}
