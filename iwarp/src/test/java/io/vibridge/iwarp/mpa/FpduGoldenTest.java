package io.vibridge.iwarp.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.iwarp.wire.DdpSegment;
import io.vibridge.iwarp.wire.IwarpProtocolException;
import io.vibridge.iwarp.wire.RdmapOpcode;
import io.vibridge.iwarp.wire.TerminateCode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** FPDU framing against recorded siw bytes and RFC 3720's CRC32C example (the byte order MPA takes). */
class FpduGoldenTest {

    private static final HexFormat HEX = HexFormat.of();

    /**
     * siw's first FPDU from {@code rping -c} (CRC off, docs/real-rdma-peers.md): ULPDU length 34, untagged
     * last Send, QN 0, MSN 1, MO 0, then rping's 16-byte {buf, rkey, size} and a zero CRC field. The note
     * records the header bytes; the 16 payload bytes here are made up in rping's layout.
     */
    static final String SIW_FIRST_SEND = "0022" + "41" + "43" + "00000000" + "00000000" + "00000001" + "00000000"
            + "00007f3c9a2e1000" + "00001a2b" + "00000040" + "00000000";

    @Test
    void siwFirstSendDecodes() {
        byte[] b = HEX.parseHex(SIW_FIRST_SEND);
        assertThat(b).hasSize(40);
        List<String> seen = new ArrayList<>();
        DdpSegment seg = new DdpSegment();
        FpduReader reader = new FpduReader((buf, off, len) -> {
            seg.wrap(buf, off, len);
            seen.add(seg.opcode() + " last=" + seg.last() + " qn=" + seg.queue() + " msn=" + seg.msn() + " mo="
                    + seg.messageOffset() + " payload=" + seg.payloadLength() + "@" + (seg.payloadOffset() - off));
            return true;
        });
        assertThat(reader.receive(ByteBuffer.wrap(b))).isTrue();
        assertThat(seen).containsExactly("SEND last=true qn=0 msn=1 mo=0 payload=16@18");
    }

    @Test
    void siwFirstSendReencodes() {
        byte[] want = HEX.parseHex(SIW_FIRST_SEND);
        ByteBuffer b = ByteBuffer.allocate(64);
        int h = DdpSegment.writeUntagged(b, 2, RdmapOpcode.SEND, true, 0, 1, 0);
        b.put(2 + h, want, 20, 16);
        int n = Fpdu.seal(b, 0, h + 16, null);
        assertThat(HEX.formatHex(b.array(), 0, n)).isEqualTo(SIW_FIRST_SEND);
    }

    @Test
    void crcIsCrc32cLeastSignificantByteFirst() {
        // RFC 3720 B.4: the CRC32C of 32 zero bytes is 0x8a9136aa, sent as aa 36 91 8a. An FPDU whose
        // covered bytes are 32 zeros: a ULPDU length field of 0 cannot be that, so check the CRC routine on
        // the same bytes through crcMatches with the expected field written in wire order.
        ByteBuffer b = ByteBuffer.allocate(36);
        b.put(32, HEX.parseHex("aa36918a"));
        assertThat(Fpdu.crcMatches(b, 0, 36, new CRC32C())).isTrue();
        assertThat(Fpdu.crcField(b, 0, 36)).isEqualTo(0x8a9136aa);
    }

    @Test
    void sealPadsToFourAndCrcCoversLengthHeadersPayloadAndPad() {
        for (int payload = 0; payload < 8; payload++) {
            ByteBuffer b = ByteBuffer.allocate(64);
            int h = DdpSegment.writeTagged(b, 2, RdmapOpcode.RDMA_WRITE, true, 0x1234, 0x10L);
            int n = Fpdu.seal(b, 0, h + payload, new CRC32C());
            assertThat(n % 4).isZero();
            assertThat(n).isEqualTo(2 + h + payload + Fpdu.padLength(h + payload) + 4);
            assertThat(Fpdu.crcMatches(b, 0, n, new CRC32C())).isTrue();
            b.put(n - 1, (byte) (b.get(n - 1) ^ 1));
            assertThat(Fpdu.crcMatches(b, 0, n, new CRC32C())).isFalse();
        }
    }

    @Test
    void badCrcEndsTheStreamWithAnMpaCrcTerminate() {
        ByteBuffer b = ByteBuffer.allocate(64);
        int h = DdpSegment.writeUntagged(b, 2, RdmapOpcode.SEND, true, 0, 1, 0);
        int n = Fpdu.seal(b, 0, h + 5, new CRC32C());
        b.put(25, (byte) 0x55).limit(n);        // a payload byte changed after the CRC
        FpduReader reader = new FpduReader((buf, off, len) -> {
            throw new AssertionError("nothing may be handed on");
        });
        reader.crc(true);
        assertThatThrownBy(() -> reader.receive(b)).isInstanceOfSatisfying(IwarpProtocolException.class,
                e -> assertThat(e.code()).isEqualTo(TerminateCode.MPA_CRC));
    }
}
