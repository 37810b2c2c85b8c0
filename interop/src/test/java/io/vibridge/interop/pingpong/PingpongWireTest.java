package io.vibridge.interop.pingpong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** Golden bytes, computed by hand from libibverbs/examples/rc_pingpong.c and pingpong.c. */
class PingpongWireTest {
    private static final byte[] GID_127_0_0_92 = HexFormat.of().parseHex("00000000000000000000ffff7f00005c");

    @Test
    void addressMessage_isSprintfOfLidQpnPsnWireGid_andANul() {
        // sprintf(msg, "%04x:%06x:%06x:%s", lid, qpn, psn, gid) into char msg[sizeof "0000:...:0...0"], written whole
        byte[] msg = new PingpongDest(0, 0x11, 0x123456, GID_127_0_0_92).toMessage();
        String text = "0000:000011:123456:00000000000000000000ffff7f00005c";
        assertThat(text).hasSize(51);
        byte[] want = new byte[52];
        System.arraycopy(text.getBytes(StandardCharsets.US_ASCII), 0, want, 0, 51);
        assertThat(msg).isEqualTo(want);
        assertThat(PingpongDest.MESSAGE_LENGTH)
                .isEqualTo("0000:000000:000000:00000000000000000000000000000000".length() + 1);
    }

    @Test
    void addressMessage_fromAnRxePeer_parses() {
        // what ibv_rc_pingpong -g 1 on rxe at 10.99.0.2 sends: LID 0 on Ethernet, its QPN and PSN
        byte[] msg = "0000:0000a3:c0ffee:00000000000000000000ffff0a630002\0".getBytes(StandardCharsets.US_ASCII);
        PingpongDest d = PingpongDest.parse(msg);
        assertThat(d.lid()).isZero();
        assertThat(d.qpn()).isEqualTo(0xa3);
        assertThat(d.psn()).isEqualTo(0xc0ffee);
        assertThat(d.gid()).isEqualTo(HexFormat.of().parseHex("00000000000000000000ffff0a630002"));
        assertThat(d.describe()).isEqualTo("LID 0x0000, QPN 0x0000a3, PSN 0xc0ffee, GID ::ffff:10.99.0.2");
        assertThat(PingpongDest.parse(d.toMessage())).isEqualTo(d);
    }

    @Test
    void wireGid_isTheRawBytesInOrder() {
        // htonl(*(uint32_t *)(raw + 4i)) printed "%08x": the four raw bytes of each group, in order
        byte[] gid = HexFormat.of().parseHex("fe800000000000000211223344556677");
        assertThat(WireGid.toWire(gid)).isEqualTo("fe800000000000000211223344556677");
        assertThat(WireGid.fromWire("FE800000000000000211223344556677")).isEqualTo(gid);
    }

    @Test
    void gidsPrintAsGlibcInetNtop() {
        assertThat(WireGid.ntop(GID_127_0_0_92)).isEqualTo("::ffff:127.0.0.92");
        assertThat(WireGid.ntop(new byte[16])).isEqualTo("::");
        assertThat(WireGid.ntop(HexFormat.of().parseHex("fe800000000000000211223344556677")))
                .isEqualTo("fe80::211:2233:4455:6677");
        // one zero group is not compressed; the first of two equal runs is
        assertThat(WireGid.ntop(HexFormat.of().parseHex("20010db8000000010001000100010001")))
                .isEqualTo("2001:db8:0:1:1:1:1:1");
        assertThat(WireGid.ntop(HexFormat.of().parseHex("20010000000000010000000000010001")))
                .isEqualTo("2001::1:0:0:1:1");
        assertThat(WireGid.ntop(HexFormat.of().parseHex("20010000000000010000000000000001")))
                .isEqualTo("2001:0:0:1::1");
        assertThat(WireGid.ntop(HexFormat.of().parseHex("0000000000000000000000000a000001")))
                .isEqualTo("::10.0.0.1");
    }

    @Test
    void garbage_isRefusedWithAReason() {
        assertThatThrownBy(() -> PingpongDest.parse("0000:000011:123456\0".getBytes(StandardCharsets.US_ASCII)))
                .hasMessageContaining("LID:QPN:PSN:GID");
        assertThatThrownBy(() -> PingpongDest.parse("0000:0000zz:123456:00000000000000000000ffff7f00005c\0"
                .getBytes(StandardCharsets.US_ASCII))).hasMessageContaining("QPN");
        assertThatThrownBy(() -> PingpongDest.parse("0000:000011:123456:ffff7f00005c\0"
                .getBytes(StandardCharsets.US_ASCII))).hasMessageContaining("32 hex digits");
    }

    @Test
    void doneIsFourLettersAndTheNul() {
        // write(sockfd, "done", sizeof "done")
        assertThat(DestExchange.DONE).isEqualTo("done\0".getBytes(StandardCharsets.US_ASCII));
    }
}
