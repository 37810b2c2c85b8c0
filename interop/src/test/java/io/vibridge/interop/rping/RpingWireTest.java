package io.vibridge.interop.rping;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** Golden bytes, computed by hand from librdmacm/examples/rping.c. */
class RpingWireTest {
    private static final HexFormat HEX = HexFormat.of();

    @Test
    void rdmaInfo_isBigEndianBufRkeySize() {
        // rping_format_send: info->buf = htobe64(buf); info->rkey = htobe32(rkey); info->size = htobe32(size)
        RpingInfo info = new RpingInfo(0x00007f3a12345678L, 0x1a2b3c4d, 64);
        assertThat(HEX.formatHex(info.toBytes())).isEqualTo("00007f3a12345678" + "1a2b3c4d" + "00000040");
    }

    @Test
    void rdmaInfo_ignoresTheBufferByteOrder_andDecodesWhatItEncodes() {
        ByteBuffer little = ByteBuffer.allocate(20).order(ByteOrder.LITTLE_ENDIAN);
        RpingInfo info = new RpingInfo(0x8000000000000001L, 0xfedcba98, 65_000);
        info.encode(little, 4);
        assertThat(HEX.formatHex(little.array(), 4, 20)).isEqualTo("8000000000000001" + "fedcba98" + "0000fde8");
        assertThat(RpingInfo.decode(little, 4)).isEqualTo(info);
        assertThat(info.unsignedSize()).isEqualTo(65_000);
    }

    @Test
    void serverGoAhead_isSixteenZeroBytes() {
        // rping's server never formats its send_buf: the control block was memset to 0
        assertThat(RpingInfo.GO_AHEAD.toBytes()).isEqualTo(new byte[16]);
    }

    @Test
    void pingZero_ofRpingsDefaultSize() {
        // "rdma-ping-0: " (13 chars), then 'A'.. from start 65 for offsets 13..62 (50 chars: A-Z, [\]^_`, a-r), NUL
        String text = "rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqr";
        byte[] want = new byte[64];
        System.arraycopy(text.getBytes(StandardCharsets.US_ASCII), 0, want, 0, 63);
        assertThat(text).hasSize(63);
        assertThat(RpingPattern.of(0, 64)).isEqualTo(want);
    }

    @Test
    void eachPingStartsOneLetterLater_andTheStartWrapsAfterZ() {
        assertThat(new String(RpingPattern.of(1, 26), StandardCharsets.US_ASCII))
                .isEqualTo("rdma-ping-1: BCDEFGHIJKLM\0");
        // start = 65 + 57 = 122 'z' for ping 57: the letters wrap from 'z' to 'A' inside the buffer
        assertThat(new String(RpingPattern.of(57, 26), StandardCharsets.US_ASCII))
                .isEqualTo("rdma-ping-57: zABCDEFGHIJ\0");
        // ping 58: start went past 122 and back to 65
        assertThat(new String(RpingPattern.of(58, 26), StandardCharsets.US_ASCII))
                .isEqualTo("rdma-ping-58: ABCDEFGHIJK\0");
    }

    @Test
    void longBuffersCycleThroughTheFiftyEightLetters() {
        byte[] b = RpingPattern.of(3, 65_000);
        int cc = "rdma-ping-3: ".length();
        assertThat(b[cc]).isEqualTo((byte) 'D');
        for (int i = cc; i < 64_999; i++) {
            int expect = 65 + Math.floorMod(3 + (i - cc), 58);
            assertThat(b[i] & 0xFF).as("offset %d", i).isEqualTo(expect);
        }
        assertThat(b[64_999]).isZero();
        // no NUL before the last byte: the server's strlen(rdma_buf) + 1 is the whole size
        assertThat(RpingPattern.strlen(ByteBuffer.wrap(b), 0, b.length)).isEqualTo(64_999);
    }

    @Test
    void sizeLimits_areRpings() {
        // RPING_MIN_BUFSIZE = sizeof(stringify(INT_MAX)) + sizeof(RPING_MSG_FMT) = 11 + 15; RPING_BUFSIZE - 1
        assertThat(RpingPattern.MIN_SIZE).isEqualTo(11 + "rdma-ping-%d: ".length() + 1);
        assertThat(RpingPattern.MAX_SIZE).isEqualTo(64 * 1024 - 1);
        // the largest ping number still fits the smallest buffer with its NUL
        assertThat(new String(RpingPattern.of(Integer.MAX_VALUE, 26), StandardCharsets.US_ASCII))
                .startsWith("rdma-ping-2147483647: ").endsWith("\0");
    }

    @Test
    void requestPrivateData_isTheCmaHeaderThenZeros() throws Exception {
        byte[] pd = RpingClient.requestPrivateData(InetAddress.getByName("127.0.0.91"), 0xabcd,
                InetAddress.getByName("192.168.77.2"));
        assertThat(pd).hasSize(92);
        // cma_hdr: version 0, ip_version 4 << 4, src port, src addr (IPv4 in the last 4 of 16), dst addr
        assertThat(HEX.formatHex(pd, 0, 36)).isEqualTo("0040abcd" + "000000000000000000000000" + "7f00005b"
                + "000000000000000000000000" + "c0a84d02");
        assertThat(HEX.formatHex(pd, 36, 92)).isEqualTo("00".repeat(56));
    }

    @Test
    void serviceId_isTheTcpPortSpacePlusThePort() {
        assertThat(RpingServer.serviceId(7174)).isEqualTo(0x0000000001061c06L);
        assertThat(RpingServer.serviceId(0xffff)).isEqualTo(0x000000000106ffffL);
    }
}
