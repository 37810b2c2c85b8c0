package io.vibridge.iwarp.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.iwarp.wire.IwarpProtocolException;
import io.vibridge.iwarp.wire.TerminateCode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * MPA Request and Reply frames as Linux siw sends and accepts them (kernel 6.1, rdma-core 44: recorded in
 * docs/real-rdma-peers.md): decoded into the RFC 5044 / RFC 6581 fields and re-encoded to the same bytes.
 */
class MpaGoldenTest {

    private static final HexFormat HEX = HexFormat.of();

    /** siw's Request from {@code rping -c}: enhanced, revision 2, IRD 1, ORD 1, no RTR. */
    static final byte[] SIW_REQUEST = bytes("MPA ID Req Frame", "10020004" + "00010001");
    /** The Reply siw accepts (and sends itself as responder). */
    static final byte[] SIW_REPLY = bytes("MPA ID Rep Frame", "10020004" + "00010001");

    static byte[] bytes(String key, String hex) {
        byte[] k = key.getBytes(StandardCharsets.US_ASCII);
        byte[] rest = HEX.parseHex(hex);
        byte[] all = new byte[k.length + rest.length];
        System.arraycopy(k, 0, all, 0, k.length);
        System.arraycopy(rest, 0, all, k.length, rest.length);
        return all;
    }

    @Test
    void siwRequestDecodesAndReencodes() {
        MpaFrame f = MpaFrame.decode(ByteBuffer.wrap(SIW_REQUEST), 0, SIW_REQUEST.length, MpaKey.REQUEST);
        assertThat(f.key()).isEqualTo(MpaKey.REQUEST);
        assertThat(f.revision()).isEqualTo(2);
        assertThat(f.enhanced()).isTrue();
        assertThat(f.markers() || f.crc() || f.reject()).isFalse();
        assertThat(f.v2Params()).isEqualTo(MpaV2Params.of(1, 1));
        assertThat(f.ulpPrivateData()).isEmpty();
        assertThat(f.toBytes()).isEqualTo(SIW_REQUEST);
        assertThat(MpaFrame.enhanced(MpaKey.REQUEST, false, false, MpaV2Params.of(1, 1), new byte[0]).toBytes())
                .isEqualTo(SIW_REQUEST);
    }

    @Test
    void siwReplyDecodesAndReencodes() {
        MpaFrame f = MpaFrame.decode(ByteBuffer.wrap(SIW_REPLY), 0, SIW_REPLY.length, MpaKey.REPLY);
        assertThat(f.v2Params()).isEqualTo(MpaV2Params.of(1, 1));
        assertThat(MpaFrame.enhanced(MpaKey.REPLY, false, false, MpaV2Params.of(1, 1), new byte[0]).toBytes())
                .isEqualTo(SIW_REPLY);
    }

    @Test
    void flagsAndRtrBitsSitWhereLinuxPutsThem() {
        // iwarp.h: MPA_RR_FLAG_MARKERS 0x8000, _CRC 0x4000, _REJECT 0x2000, _ENHANCED 0x1000 over the flags
        // and revision; MPA_V2_PEER_TO_PEER / _ZERO_LENGTH_RTR 0x8000 / 0x4000 in IRD, _RDMA_WRITE_RTR /
        // _RDMA_READ_RTR 0x8000 / 0x4000 in ORD
        MpaFrame f = MpaFrame.enhanced(MpaKey.REPLY, true, true, new MpaV2Params(0x3FFF, 2, true, true, true, true),
                new byte[] {7});
        byte[] b = f.toBytes();
        assertThat(HEX.formatHex(b, 16, b.length)).isEqualTo("7002" + "0005" + "ffff" + "c002" + "07");
        MpaFrame m = new MpaFrame(MpaKey.REQUEST, true, false, false, false, 1, new byte[0]);
        assertThat(HEX.formatHex(m.toBytes(), 16, 20)).isEqualTo("80010000");
        assertThat(MpaFrame.decode(ByteBuffer.wrap(b), 0, b.length, MpaKey.REPLY)).isEqualTo(f);
    }

    @Test
    void incompleteFrameWaitsForMoreBytes() {
        ByteBuffer b = ByteBuffer.wrap(SIW_REQUEST);
        for (int n = 0; n < SIW_REQUEST.length; n++) {
            assertThat(MpaFrame.decode(b, 0, n, MpaKey.REQUEST)).as("%d bytes", n).isNull();
        }
    }

    @Test
    void wrongKeyIsRefusedAtTheFirstWrongByte() {
        byte[] http = "GET / HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII);
        assertThatThrownBy(() -> MpaFrame.decode(ByteBuffer.wrap(http), 0, 1, MpaKey.REQUEST))
                .isInstanceOfSatisfying(IwarpProtocolException.class, e -> {
                    assertThat(e.code()).isEqualTo(TerminateCode.MPA_INVALID_REQUEST_REPLY);
                    assertThat(e.field()).isEqualTo("Key");
                    assertThat(e.offset()).isZero();
                });
        assertThatThrownBy(() -> MpaFrame.decode(ByteBuffer.wrap(SIW_REPLY), 0, 20, MpaKey.REQUEST))
                .isInstanceOf(IwarpProtocolException.class).hasMessageContaining("offset 9");
    }

    @Test
    void privateDataOver512IsRefused() {
        byte[] b = bytes("MPA ID Req Frame", "10020201");
        assertThatThrownBy(() -> MpaFrame.decode(ByteBuffer.wrap(b), 0, b.length, MpaKey.REQUEST))
                .isInstanceOf(IwarpProtocolException.class).hasMessageContaining("Private Data Length");
    }

    @Test
    void enhancedWithoutItsFourBytesIsRefused() {
        byte[] b = bytes("MPA ID Req Frame", "10020002" + "0001");
        MpaFrame f = MpaFrame.decode(ByteBuffer.wrap(b), 0, b.length, MpaKey.REQUEST);
        assertThatThrownBy(f::v2Params).isInstanceOf(IwarpProtocolException.class)
                .hasMessageContaining("IRD/ORD");
    }

    @Test
    void revisionOneHasNoV2Params() {
        byte[] b = bytes("MPA ID Req Frame", "40010003" + "616263");
        MpaFrame f = MpaFrame.decode(ByteBuffer.wrap(b), 0, b.length, MpaKey.REQUEST);
        assertThat(f.revision()).isEqualTo(1);
        assertThat(f.crc()).isTrue();
        assertThat(f.v2Params()).isNull();
        assertThat(f.ulpPrivateData()).containsExactly('a', 'b', 'c');
    }
}
