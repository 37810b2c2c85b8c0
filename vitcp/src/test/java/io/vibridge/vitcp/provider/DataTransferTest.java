package io.vibridge.vitcp.provider;

import static io.vibridge.vitcp.provider.Fixture.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.engine.Status;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Acceptance 2: Send/Receive with scatter/gather and immediate data; multi-segment RDMA Write; RDMA Read. */
class DataTransferTest {

    @ParameterizedTest
    @EnumSource(ReliabilityLevel.class)
    void sendReceive_scatterGatherOf252Segments_andImmediateData(ReliabilityLevel level) throws Exception {
        try (Fixture f = new Fixture()) {
            f.connect(level);
            int segs = 252;
            int each = 300; // 75,600 bytes: three VI/TCP segments
            MemoryRegion src = f.clientRegion(segs * each);
            MemoryRegion dst = f.serverRegion(segs * each + 1000);
            Fixture.fill(src, 0, segs * each, 7);
            Descriptor recv = Descriptor.receive();
            // scatter into 252 pieces laid out in reverse order
            for (int i = 0; i < segs; i++) {
                recv.data(dst, (segs - 1 - i) * each, each);
            }
            f.serverVi.postRecv(recv);
            Descriptor send = Descriptor.send().immediate(0xCAFEBABE);
            for (int i = 0; i < segs; i++) {
                send.data(src, i * each, each);
            }
            f.clientVi.postSend(send);

            Descriptor s = f.clientVi.sendWait(T);
            assertThat(s).isSameAs(send);
            assertThat(s.status()).isEqualTo(Status.DONE | Status.OP_SEND);
            Descriptor r = f.serverVi.recvWait(T);
            assertThat(r.status()).isEqualTo(Status.DONE | Status.OP_RECEIVE | Status.IMMEDIATE);
            assertThat(r.immediateData()).isEqualTo(0xCAFEBABE);
            assertThat(r.length()).isEqualTo(segs * each);
            byte[] expected = Fixture.expected(segs * each, 7);
            for (int i = 0; i < segs; i++) {
                byte[] piece = Fixture.bytes(dst, (segs - 1 - i) * each, each);
                assertThat(piece).isEqualTo(Arrays.copyOfRange(expected, i * each, (i + 1) * each));
            }
        }
    }

    @Test
    void zeroLengthSend_withImmediateOnly() throws Exception {
        try (Fixture f = new Fixture()) {
            f.connect(ReliabilityLevel.RELIABLE_RECEPTION);
            f.serverVi.postRecv(Descriptor.receive().data(f.serverRegion(64), 0, 64));
            f.clientVi.postSend(Descriptor.send().immediate(5));
            assertThat(f.clientVi.sendWait(T).status()).isEqualTo(Status.DONE);
            Descriptor r = f.serverVi.recvWait(T);
            assertThat(r.status()).isEqualTo(Status.DONE | Status.OP_RECEIVE | Status.IMMEDIATE);
            assertThat(r.length()).isZero();
            assertThat(r.immediateData()).isEqualTo(5);
        }
    }

    @ParameterizedTest
    @EnumSource(ReliabilityLevel.class)
    void rdmaWrite_multiSegment_landsAtRemoteAddress_andImmediateConsumesReceive(ReliabilityLevel level) throws Exception {
        try (Fixture f = new Fixture()) {
            f.connect(level);
            int len = 200_000; // seven segments of at most 32 KiB
            MemoryRegion src = f.clientRegion(len);
            MemoryRegion dst = f.serverRegion(len + 4096);
            Fixture.fill(src, 0, len, 3);
            f.serverVi.postRecv(Descriptor.receive());
            f.clientVi.postSend(Descriptor.rdmaWrite(dst.address(100), dst.handle())
                    .data(src, 0, 70_000).data(src, 70_000, len - 70_000).immediate(77));
            Descriptor w = f.clientVi.sendWait(T);
            assertThat(w.status()).isEqualTo(Status.DONE | Status.OP_RDMA_WRITE);
            Descriptor r = f.serverVi.recvWait(T);
            assertThat(r.status()).isEqualTo(Status.DONE | Status.OP_REMOTE_RDMA_WRITE | Status.IMMEDIATE);
            assertThat(r.immediateData()).isEqualTo(77);
            assertThat(Fixture.bytes(dst, 100, len)).isEqualTo(Fixture.expected(len, 3));
        }
    }

    @ParameterizedTest
    @EnumSource(value = ReliabilityLevel.class, names = {"RELIABLE_DELIVERY", "RELIABLE_RECEPTION"})
    void rdmaRead_fetchesRemoteMemoryIntoScatterList(ReliabilityLevel level) throws Exception {
        try (Fixture f = new Fixture()) {
            f.connect(level);
            int len = 100_000;
            MemoryRegion remote = f.serverRegion(len);
            Fixture.fill(remote, 0, len, 11);
            MemoryRegion local = f.clientRegion(len);
            f.clientVi.postSend(Descriptor.rdmaRead(remote.address(), remote.handle())
                    .data(local, 60_000, 40_000).data(local, 0, 60_000));
            Descriptor d = f.clientVi.sendWait(T);
            assertThat(d.status()).isEqualTo(Status.DONE | Status.OP_RDMA_READ);
            assertThat(d.length()).isEqualTo(len);
            byte[] exp = Fixture.expected(len, 11);
            assertThat(Fixture.bytes(local, 60_000, 40_000)).isEqualTo(Arrays.copyOfRange(exp, 0, 40_000));
            assertThat(Fixture.bytes(local, 0, 60_000)).isEqualTo(Arrays.copyOfRange(exp, 40_000, len));
        }
    }

    @Test
    void rdmaRead_onUnreliableVi_isLocalFormatError() throws Exception {
        try (Fixture f = new Fixture()) {
            f.connect(ReliabilityLevel.UNRELIABLE_DELIVERY);
            MemoryRegion local = f.clientRegion(64);
            f.clientVi.postSend(Descriptor.rdmaRead(1234, 1).data(local, 0, 64));
            Descriptor d = f.clientVi.sendWait(T);
            assertThat(d.status()).isEqualTo(Status.DONE | Status.FORMAT_ERROR | Status.OP_RDMA_READ);
            assertThat(f.clientVi.state()).isEqualTo(ViState.CONNECTED);
        }
    }

    @Test
    void sendsNeverPassSends_largeAndSmallMessagesArriveInPostingOrder() throws Exception {
        try (Fixture f = new Fixture()) {
            f.connect(ReliabilityLevel.RELIABLE_DELIVERY);
            int n = 100;
            int big = 40_000; // two segments: a small Send posted after it must not overtake it
            MemoryRegion src = f.clientRegion(big);
            MemoryRegion dst = f.serverRegion(n * big);
            Fixture.fill(src, 0, big, 1);
            for (int i = 0; i < n; i++) {
                f.serverVi.postRecv(Descriptor.receive().data(dst, i * big, big));
            }
            Descriptor[] sends = new Descriptor[n];
            for (int i = 0; i < n; i++) {
                int len = i % 2 == 0 ? big : 8;
                sends[i] = Descriptor.send().data(src, 0, len).immediate(i);
                f.clientVi.postSend(sends[i]);
            }
            for (int i = 0; i < n; i++) {
                assertThat(f.clientVi.sendWait(T)).isSameAs(sends[i]);
                Descriptor r = f.serverVi.recvWait(T);
                assertThat(r.immediateData()).isEqualTo(i);
                assertThat(r.length()).isEqualTo(i % 2 == 0 ? big : 8);
            }
        }
    }
}
