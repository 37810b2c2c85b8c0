package io.vibridge.verbs.soft.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** BTH, extension headers, opcode table and PSN arithmetic. */
class HeadersTest {

    private static byte[] bytes(ByteBuffer b, int n) {
        byte[] out = new byte[n];
        b.get(0, out);
        return out;
    }

    @Test
    void bthGolden() {
        ByteBuffer b = ByteBuffer.allocate(12);
        Bth.write(b, 0, 0x04, true, false, 3, 0xFFFF, 0x123456, true, 0xABCDEF);
        assertThat(bytes(b, 12)).isEqualTo(Hex.bytes("04 b0 ff ff 00 12 34 56 80 ab cd ef"));
        Bth.write(b, 0, 0x64, false, true, 0, 0x7FFF, 1, false, 0);
        assertThat(bytes(b, 12)).isEqualTo(Hex.bytes("64 40 7f ff 00 00 00 01 00 00 00 00"));
        // Vector A's BTH: CNP with BECN set.
        ByteBuffer a = ByteBuffer.wrap(Hex.bytes("81 00 ff ff 40 00 01 18 00 00 00 00"));
        assertThat(Bth.opcode(a, 0)).isEqualTo(0x81);
        assertThat(Bth.becn(a, 0)).isTrue();
        assertThat(Bth.fecn(a, 0)).isFalse();
        assertThat(Bth.destQp(a, 0)).isEqualTo(0x118);
        assertThat(Bth.psn(a, 0)).isZero();
    }

    @Test
    void extensionHeadersGolden() {
        ByteBuffer b = ByteBuffer.allocate(32);
        Reth.write(b, 0, 0x0102_0304_0506_0708L, 0xCAFE_BABE, 0x8000_0001L);
        assertThat(bytes(b, 16)).isEqualTo(Hex.bytes("01 02 03 04 05 06 07 08 ca fe ba be 80 00 00 01"));
        assertThat(Reth.dmaLength(b, 0)).isEqualTo(0x8000_0001L);
        assertThat(Reth.rkey(b, 0)).isEqualTo(0xCAFE_BABE);
        Aeth.write(b, 0, Aeth.nak(Aeth.REMOTE_ACCESS_ERROR), 0x000102);
        assertThat(bytes(b, 4)).isEqualTo(Hex.bytes("62 00 01 02"));
        Aeth.write(b, 0, Aeth.rnrNak(14), 0xFFFFFF);
        assertThat(bytes(b, 4)).isEqualTo(Hex.bytes("2e ff ff ff"));
        Aeth.write(b, 0, Aeth.ack(Aeth.CREDIT_INVALID), 1);
        assertThat(bytes(b, 4)).isEqualTo(Hex.bytes("1f 00 00 01"));
        Deth.write(b, 0, Deth.GSI_QKEY, 1);
        assertThat(bytes(b, 8)).isEqualTo(Hex.bytes("80 01 00 00 00 00 00 01"));
        ImmDt.write(b, 0, 0xDEAD_BEEF);
        assertThat(bytes(b, 4)).isEqualTo(Hex.bytes("de ad be ef"));
        Ieth.write(b, 0, 0x0000_1234);
        assertThat(bytes(b, 4)).isEqualTo(Hex.bytes("00 00 12 34"));
        AtomicEth.write(b, 0, 0x1000L, 7, 0x11L, 0x22L);
        assertThat(bytes(b, 28)).isEqualTo(Hex.bytes(
            "00 00 00 00 00 00 10 00 00 00 00 07 00 00 00 00 00 00 00 11 00 00 00 00 00 00 00 22"));
    }

    @Test
    void aethSyndromes() {
        assertThat(Aeth.kind(0x1F)).isEqualTo(AethKind.ACK);
        assertThat(Aeth.kind(0x20)).isEqualTo(AethKind.RNR_NAK);
        assertThat(Aeth.kind(0x40)).isEqualTo(AethKind.RESERVED);
        assertThat(Aeth.kind(0x60)).isEqualTo(AethKind.NAK);
        assertThat(Aeth.kind(0x9F)).isEqualTo(AethKind.RESERVED);
        assertThat(Aeth.nak(Aeth.PSN_SEQUENCE_ERROR)).isEqualTo(0x60);
        assertThat(Aeth.nak(Aeth.INVALID_REQUEST)).isEqualTo(0x61);
        assertThat(Aeth.nak(Aeth.REMOTE_OPERATIONAL_ERROR)).isEqualTo(0x63);
        assertThat(Aeth.nak(Aeth.INVALID_RD_REQUEST)).isEqualTo(0x64);
        assertThat(Aeth.rnrNak(0)).isEqualTo(0x20);
        assertThat(Aeth.rnrTimerMicros(0)).isEqualTo(655_360);
        assertThat(Aeth.rnrTimerMicros(1)).isEqualTo(10);
        assertThat(Aeth.rnrTimerMicros(14)).isEqualTo(1_280);
        assertThat(Aeth.rnrTimerMicros(25)).isEqualTo(61_440);
        assertThat(Aeth.rnrTimerMicros(31)).isEqualTo(491_520);
        assertThat(Aeth.rnrTimerCodeAtLeast(1_000)).isEqualTo(14);
        assertThat(Aeth.rnrTimerCodeAtLeast(1_280)).isEqualTo(14);
        assertThat(Aeth.rnrTimerCodeAtLeast(600_000)).isZero();
        assertThat(Aeth.credits(0)).isZero();
        assertThat(Aeth.credits(5)).isEqualTo(6);
        assertThat(Aeth.credits(30)).isEqualTo(32768);
        assertThat(Aeth.credits(31)).isEqualTo(-1);
        assertThat(Aeth.creditCodeFor(7)).isEqualTo(5);
        assertThat(Aeth.creditCodeFor(100_000)).isEqualTo(30);
        assertThatThrownBy(() -> Aeth.nak(32)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void opcodeTable() {
        assertThat(Opcode.values()).hasSize(25);
        for (int code = 0; code < 256; code++) {
            Opcode op = Opcode.lookup(code);
            if (op != null) {
                assertThat(Opcode.of(code)).isSameAs(op);
                assertThat(op.code()).isEqualTo(code);
            } else {
                int c = code;
                assertThatThrownBy(() -> Opcode.of(c)).isInstanceOf(MalformedPacketException.class)
                    .satisfies(e -> assertThat(((MalformedPacketException) e).field()).isEqualTo("bth.opcode"));
            }
        }
        assertThat(Opcode.of(0x15 - 1)).isEqualTo(Opcode.FETCH_ADD);
        assertThat(Opcode.lookup(0x15)).isNull();
        assertThat(Opcode.lookup(0x24)).isNull(); // UC is not supported
        assertThat(Opcode.SEND_ONLY.headerLength()).isEqualTo(12);
        assertThat(Opcode.SEND_ONLY_WITH_IMMEDIATE.headerLength()).isEqualTo(16);
        assertThat(Opcode.RDMA_WRITE_FIRST.headerLength()).isEqualTo(28);
        assertThat(Opcode.RDMA_WRITE_ONLY_WITH_IMMEDIATE.headerLength()).isEqualTo(32);
        assertThat(Opcode.RDMA_WRITE_ONLY_WITH_IMMEDIATE.immDtOffset()).isEqualTo(28);
        assertThat(Opcode.RDMA_READ_REQUEST.headerLength()).isEqualTo(28);
        assertThat(Opcode.RDMA_READ_RESPONSE_FIRST.headerLength()).isEqualTo(16);
        assertThat(Opcode.RDMA_READ_RESPONSE_MIDDLE.headerLength()).isEqualTo(12);
        assertThat(Opcode.ACKNOWLEDGE.headerLength()).isEqualTo(16);
        assertThat(Opcode.ATOMIC_ACKNOWLEDGE.headerLength()).isEqualTo(24);
        assertThat(Opcode.ATOMIC_ACKNOWLEDGE.atomicAckEthOffset()).isEqualTo(16);
        assertThat(Opcode.COMPARE_SWAP.headerLength()).isEqualTo(40);
        assertThat(Opcode.SEND_LAST_WITH_INVALIDATE.headerLength()).isEqualTo(16);
        assertThat(Opcode.UD_SEND_ONLY.headerLength()).isEqualTo(20);
        assertThat(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE.headerLength()).isEqualTo(24);
        assertThat(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE.immDtOffset()).isEqualTo(20);

        assertThat(Opcode.SEND_FIRST.isFirst()).isTrue();
        assertThat(Opcode.SEND_MIDDLE.isMiddle()).isTrue();
        assertThat(Opcode.RDMA_WRITE_LAST.isLast()).isTrue();
        assertThat(Opcode.RDMA_READ_RESPONSE_ONLY.isOnly()).isTrue();
        assertThat(Opcode.RDMA_READ_RESPONSE_MIDDLE.hasAeth()).isFalse();
        assertThat(Opcode.RDMA_READ_REQUEST.hasPayload()).isFalse();
        assertThat(Opcode.RDMA_READ_REQUEST.isRequest()).isTrue();
        assertThat(Opcode.RDMA_READ_RESPONSE_LAST.isRequest()).isFalse();
        assertThat(Opcode.ACKNOWLEDGE.isAck()).isTrue();
        assertThat(Opcode.ACKNOWLEDGE.isRequest()).isFalse();
        assertThat(Opcode.SEND_ONLY_WITH_INVALIDATE.isSend()).isTrue();
        assertThat(Opcode.RDMA_WRITE_MIDDLE.isRdmaWrite()).isTrue();
        assertThat(Opcode.FETCH_ADD.isRc()).isTrue();
        assertThat(Opcode.UD_SEND_ONLY.isRc()).isFalse();
        assertThat(Opcode.UD_SEND_ONLY.isUd()).isTrue();
        for (Opcode op : Opcode.values()) {
            int kinds = (op.isSend() ? 1 : 0) + (op.isRdmaWrite() ? 1 : 0) + (op.isReadRequest() ? 1 : 0)
                + (op.isReadResponse() ? 1 : 0) + (op.isAck() ? 1 : 0) + (op.isAtomic() ? 1 : 0);
            assertThat(kinds).as(op.name()).isEqualTo(1);
            int framing = (op.isFirst() ? 1 : 0) + (op.isMiddle() ? 1 : 0) + (op.isLast() ? 1 : 0)
                + (op.isOnly() ? 1 : 0);
            assertThat(framing).as(op.name()).isEqualTo(1);
            assertThat(op.hasImmDt()).isEqualTo(op.name().contains("IMMEDIATE"));
        }
    }

    @Test
    void psnArithmetic() {
        assertThat(Psn.next(0xFFFFFF)).isZero();
        assertThat(Psn.add(0xFFFFFE, 3)).isEqualTo(1);
        assertThat(Psn.add(0, -1)).isEqualTo(0xFFFFFF);
        assertThat(Psn.compare(1, 0xFFFFFF)).isEqualTo(2);
        assertThat(Psn.compare(0xFFFFFF, 1)).isEqualTo(-2);
        assertThat(Psn.compare(5, 5)).isZero();
        assertThat(Psn.compare(0x7FFFFF, 0)).isEqualTo(0x7FFFFF);
        assertThat(Psn.compare(0x800000, 0)).isEqualTo(-0x800000);
    }

    @Property(tries = 500, seed = "12")
    void psnAddThenCompare(@ForAll @IntRange(max = 0xFFFFFF) int psn,
                           @ForAll @IntRange(min = -0x7FFFFF, max = 0x7FFFFF) int n) {
        assertThat(Psn.compare(Psn.add(psn, n), psn)).isEqualTo(n);
        assertThat(Psn.isValid(Psn.add(psn, n))).isTrue();
    }

    @Property(tries = 500, seed = "13")
    void bthRoundTrip(@ForAll @IntRange(max = 255) int opcode, @ForAll boolean se, @ForAll boolean m,
                      @ForAll @IntRange(max = 3) int pad, @ForAll @IntRange(max = 0xFFFF) int pkey,
                      @ForAll @IntRange(max = 0xFFFFFF) int qp, @ForAll boolean ack,
                      @ForAll @IntRange(max = 0xFFFFFF) int psn, @ForAll @IntRange(max = 8) int off) {
        ByteBuffer b = ByteBuffer.allocate(24);
        Bth.write(b, off, opcode, se, m, pad, pkey, qp, ack, psn);
        assertThat(Bth.opcode(b, off)).isEqualTo(opcode);
        assertThat(Bth.solicitedEvent(b, off)).isEqualTo(se);
        assertThat(Bth.migReq(b, off)).isEqualTo(m);
        assertThat(Bth.padCount(b, off)).isEqualTo(pad);
        assertThat(Bth.transportVersion(b, off)).isZero();
        assertThat(Bth.pkey(b, off)).isEqualTo(pkey);
        assertThat(Bth.fecn(b, off) || Bth.becn(b, off)).isFalse();
        assertThat(Bth.destQp(b, off)).isEqualTo(qp);
        assertThat(Bth.ackRequest(b, off)).isEqualTo(ack);
        assertThat(Bth.psn(b, off)).isEqualTo(psn);
        assertThat(b.get(off + 4)).isZero();
        assertThat(b.get(off + 8) & 0x7F).isZero();
    }

    @Property(tries = 300, seed = "14")
    void extensionRoundTrip(@ForAll long va, @ForAll int rkey, @ForAll @IntRange(max = Integer.MAX_VALUE) int len,
                            @ForAll @IntRange(max = 255) int syndrome, @ForAll @IntRange(max = 0xFFFFFF) int msn,
                            @ForAll int qkey, @ForAll @IntRange(max = 0xFFFFFF) int srcQp, @ForAll int imm,
                            @ForAll long swap, @ForAll long cmp) {
        ByteBuffer b = ByteBuffer.allocate(64);
        long dma = len * 2L + 1; // exercise values above 2^31
        Reth.write(b, 3, va, rkey, dma);
        assertThat(Reth.virtualAddress(b, 3)).isEqualTo(va);
        assertThat(Reth.rkey(b, 3)).isEqualTo(rkey);
        assertThat(Reth.dmaLength(b, 3)).isEqualTo(dma);
        Aeth.write(b, 3, syndrome, msn);
        assertThat(Aeth.syndrome(b, 3)).isEqualTo(syndrome);
        assertThat(Aeth.msn(b, 3)).isEqualTo(msn);
        Deth.write(b, 3, qkey, srcQp);
        assertThat(Deth.qkey(b, 3)).isEqualTo(qkey);
        assertThat(Deth.srcQp(b, 3)).isEqualTo(srcQp);
        assertThat(b.get(3 + 4)).isZero();
        ImmDt.write(b, 3, imm);
        assertThat(ImmDt.value(b, 3)).isEqualTo(imm);
        AtomicEth.write(b, 3, va, rkey, swap, cmp);
        assertThat(AtomicEth.virtualAddress(b, 3)).isEqualTo(va);
        assertThat(AtomicEth.rkey(b, 3)).isEqualTo(rkey);
        assertThat(AtomicEth.swapOrAdd(b, 3)).isEqualTo(swap);
        assertThat(AtomicEth.compare(b, 3)).isEqualTo(cmp);
    }

    @Test
    void outOfRangeFieldsAreRefused() {
        ByteBuffer b = ByteBuffer.allocate(16);
        assertThatThrownBy(() -> Bth.write(b, 0, 4, false, false, 4, 0xFFFF, 1, false, 0))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Bth.write(b, 0, 4, false, false, 0, 0xFFFF, 1 << 24, false, 0))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Reth.write(b, 0, 0, 0, 1L << 32)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Deth.write(b, 0, 0, 1 << 24)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void gidHelpers() throws Exception {
        Gid g = Gid.ofIpv4(0xC0A8_010A);
        assertThat(g.toBytes()).isEqualTo(Hex.bytes("00000000000000000000ffffc0a8010a"));
        assertThat(g.isIpv4Mapped()).isTrue();
        assertThat(g.ipv4()).isEqualTo(0xC0A8_010A);
        assertThat(g.toInetAddress()).isEqualTo(InetAddress.getByName("192.168.1.10"));
        assertThat(Gid.of(InetAddress.getByName("192.168.1.10"))).isEqualTo(g);
        Gid v6 = Gid.of(InetAddress.getByName("fd00::2"));
        assertThat(v6.isIpv4Mapped()).isFalse();
        assertThat(v6.toInetAddress()).isEqualTo(InetAddress.getByName("fd00::2"));
        assertThat(v6.toString()).isEqualTo("fd00:0:0:0:0:0:0:2");
        ByteBuffer b = ByteBuffer.allocate(20);
        Gid.writeIpv4Mapped(b, 2, 0x7F00_0002);
        assertThat(Gid.read(b, 2)).isEqualTo(Gid.ofIpv4(0x7F00_0002));
    }
}
