package io.vibridge.iwarp.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.iwarp.wire.DdpSegment;
import io.vibridge.iwarp.wire.RdmapOpcode;
import io.vibridge.iwarp.wire.ReadRequest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * Golden vectors recorded from Linux siw (kernel 6.1.0-50, rdma-core 44.0, unmodified {@code rping -V -C 2}
 * between two siw endpoints in the interop VM; the captures and how they were made are in
 * src/test/resources/siw, frame numbers below): each decodes to the fields rping's protocol puts there, its CRC checks out, and our
 * encoder rebuilds it byte for byte.
 */
class SiwCaptureGoldenTest {

    private static final HexFormat HEX = HexFormat.of();

    // siw-rping-crc-on.pcap (MPA CRC on)
    static final String REQUEST_CRC = "4d504120494420526571204672616d65" + "50020004" + "00010001";         // #4
    static final String REPLY_CRC = "4d504120494420526570204672616d65" + "50020004" + "00010001";           // #6
    static final String FIRST_SEND = "0022414300000000000000000000000100000000"                              // #8
            + "00005571ec4235708b37540000000040" + "5289c8a0";
    static final String READ_REQUEST = "002e414100000000000000010000000100000000"                            // #9
            + "5e62eb00000055ccd72c0f00000000408b37540000005571ec423570" + "fe630c2c";
    static final String READ_RESPONSE = "004ec1425e62eb00000055ccd72c0f00"                                   // #10
            + "72646d612d70696e672d303a204142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f60"
            + "6162636465666768696a6b6c6d6e6f70717200" + "a3d14d2a";
    static final String WRITE = "004ec14000e5820000005571ec41ff00"                                           // #13
            + "72646d612d70696e672d303a204142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f60"
            + "6162636465666768696a6b6c6d6e6f70717200" + "e91168a8";
    // siw-rping-p2p.pcap (peer-to-peer, CRC off)
    static final String REQUEST_P2P = "4d504120494420526571204672616d65" + "10020004" + "8001c001";          // #4
    static final String REPLY_P2P = "4d504120494420526570204672616d65" + "10020004" + "80018001";            // #6
    static final String RTR_WRITE = "000ec14000000001000000000000000000000000";                                // #8

    private final CRC32C crc = new CRC32C();
    private final DdpSegment seg = new DdpSegment();

    private DdpSegment decode(String hex, boolean withCrc) {
        ByteBuffer b = ByteBuffer.wrap(HEX.parseHex(hex));
        assertThat(Fpdu.length(Fpdu.ulpduLength(b, 0))).isEqualTo(b.capacity());
        if (withCrc) {
            assertThat(Fpdu.crcMatches(b, 0, b.capacity(), crc)).as("CRC of %s", hex).isTrue();
        }
        return seg.wrap(b, 2, Fpdu.ulpduLength(b, 0));
    }

    private String reencode(DdpSegment s, boolean withCrc) {
        ByteBuffer in = s.buffer();
        ByteBuffer out = ByteBuffer.allocate(in.capacity());
        RdmapOpcode op = s.opcode();
        int h = op.tagged() ? DdpSegment.writeTagged(out, 2, op, s.last(), s.stag(), s.taggedOffset())
                : DdpSegment.writeUntagged(out, 2, op, s.last(), s.invalidateStag(), s.msn(), s.messageOffset());
        if (op == RdmapOpcode.READ_REQUEST) {
            s.readRequest().encode(out, 2 + h);
            h += ReadRequest.LENGTH;
        } else {
            out.put(2 + h, in, s.payloadOffset(), s.payloadLength());
            h += s.payloadLength();
        }
        int n = Fpdu.seal(out, 0, h, withCrc ? crc : null);
        return HEX.formatHex(Arrays.copyOf(out.array(), n));
    }

    @Test
    void mpaFramesWithCrc() {
        MpaFrame req = MpaFrame.decode(ByteBuffer.wrap(HEX.parseHex(REQUEST_CRC)), 0, 24, MpaKey.REQUEST);
        assertThat(req.crc()).isTrue();
        assertThat(req.v2Params()).isEqualTo(MpaV2Params.of(1, 1));
        assertThat(HEX.formatHex(req.toBytes())).isEqualTo(REQUEST_CRC);
        MpaResponder r = new MpaResponder(false);
        r.receive(ByteBuffer.wrap(req.toBytes()));
        assertThat(HEX.formatHex(r.accept(1, 1, new byte[0]).reply())).isEqualTo(REPLY_CRC);
    }

    @Test
    void mpaFramesPeerToPeer() {
        MpaFrame req = MpaFrame.decode(ByteBuffer.wrap(HEX.parseHex(REQUEST_P2P)), 0, 24, MpaKey.REQUEST);
        assertThat(req.v2Params()).isEqualTo(new MpaV2Params(1, 1, true, false, true, true));
        MpaResponder r = new MpaResponder(false);
        r.receive(ByteBuffer.wrap(req.toBytes()));
        MpaResponder.Accepted a = r.accept(1, 1, new byte[0]);
        assertThat(HEX.formatHex(a.reply())).isEqualTo(REPLY_P2P);
        assertThat(a.settings().rtr()).isEqualTo(Rtr.WRITE);

        MpaInitiator i = new MpaInitiator(false, new MpaV2Params(1, 1, true, false, true, true), new byte[0]);
        assertThat(HEX.formatHex(i.request())).isEqualTo(REQUEST_P2P);
        assertThat(i.receive(ByteBuffer.wrap(HEX.parseHex(REPLY_P2P)))).isInstanceOfSatisfying(
                MpaInitiator.Verdict.Accepted.class, v -> assertThat(v.settings().rtr()).isEqualTo(Rtr.WRITE));
    }

    @Test
    void rtrIsAZeroLengthWriteToStagOne() {
        DdpSegment s = decode(RTR_WRITE, false);
        assertThat(s.opcode()).isEqualTo(RdmapOpcode.RDMA_WRITE);
        assertThat(s.last()).isTrue();
        assertThat(s.stag()).isEqualTo(1);         // siw_qp_mpa_rts: not STag 0
        assertThat(s.taggedOffset()).isZero();
        assertThat(s.payloadLength()).isZero();
        assertThat(reencode(s, false)).isEqualTo(RTR_WRITE);
    }

    @Test
    void firstSendCarriesRpingsSourceBuffer() {
        DdpSegment s = decode(FIRST_SEND, true);
        assertThat(s.opcode()).isEqualTo(RdmapOpcode.SEND);
        assertThat(s.queue()).isZero();
        assertThat(s.msn()).isEqualTo(1);
        assertThat(s.messageOffset()).isZero();
        ByteBuffer b = s.buffer();
        int p = s.payloadOffset();
        assertThat(s.payloadLength()).isEqualTo(16);        // rping_rdma_info {be64 buf; be32 rkey; be32 size}
        assertThat(b.getLong(p)).isEqualTo(0x00005571ec423570L);
        assertThat(b.getInt(p + 8)).isEqualTo(0x8b375400);
        assertThat(b.getInt(p + 12)).isEqualTo(64);
        assertThat(reencode(s, true)).isEqualTo(FIRST_SEND);
    }

    @Test
    void readRequestNamesTheAdvertisedBuffer() {
        DdpSegment s = decode(READ_REQUEST, true);
        assertThat(s.opcode()).isEqualTo(RdmapOpcode.READ_REQUEST);
        assertThat(s.queue()).isEqualTo(1);
        assertThat(s.msn()).isEqualTo(1);
        ReadRequest rr = s.readRequest();
        assertThat(rr.size()).isEqualTo(64);
        assertThat(rr.sourceStag()).isEqualTo(0x8b375400);             // the client's rkey from the Send
        assertThat(rr.sourceOffset()).isEqualTo(0x00005571ec423570L);  // and its buf
        assertThat(reencode(s, true)).isEqualTo(READ_REQUEST);
    }

    @Test
    void readResponseGoesToTheSinkWithItsCrc() {
        ReadRequest rr = decode(READ_REQUEST, true).readRequest();
        DdpSegment s = decode(READ_RESPONSE, true);
        assertThat(s.opcode()).isEqualTo(RdmapOpcode.READ_RESPONSE);
        assertThat(s.last()).isTrue();
        assertThat(s.stag()).isEqualTo(rr.sinkStag());
        assertThat(s.taggedOffset()).isEqualTo(rr.sinkOffset());
        assertThat(s.payloadLength()).isEqualTo(64);
        byte[] data = new byte[64];
        s.buffer().get(s.payloadOffset(), data);
        assertThat(new String(data, 0, 14, StandardCharsets.US_ASCII)).isEqualTo("rdma-ping-0: A");
        assertThat(reencode(s, true)).isEqualTo(READ_RESPONSE);
    }

    @Test
    void writeGoesToTheSinkTheClientAdvertised() {
        DdpSegment s = decode(WRITE, true);
        assertThat(s.opcode()).isEqualTo(RdmapOpcode.RDMA_WRITE);
        assertThat(s.stag()).isEqualTo(0x00e58200);                    // rkey of the client's second Send (#12)
        assertThat(s.taggedOffset()).isEqualTo(0x00005571ec41ff00L);
        assertThat(s.payloadLength()).isEqualTo(64);
        assertThat(reencode(s, true)).isEqualTo(WRITE);
    }
}
