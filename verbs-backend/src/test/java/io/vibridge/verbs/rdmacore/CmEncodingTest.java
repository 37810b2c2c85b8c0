package io.vibridge.verbs.rdmacore;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** The rdma_cm side's encodings: port-space Service IDs, struct rdma_conn_param, sockaddr_in (rdma_cma.h v44). */
class CmEncodingTest {
    @Test
    void onlyRcPortSpaceServiceIds() {
        assertThat(RdmaCoreConnectionManager.port(0x0000000001061D2FL)).isEqualTo(7471);
        assertThat(RdmaCoreConnectionManager.rcPortSpaceId(0x0000000001061D2FL)).as("TCP").isTrue();
        assertThat(RdmaCoreConnectionManager.rcPortSpaceId(0x00000000013F1D2FL)).as("IB").isTrue();
        // IPoIB (the seed's iwarp IDs) and UDP are UD port spaces; the rest is no port space at all
        assertThat(RdmaCoreConnectionManager.rcPortSpaceId(0x0000000000021D2FL)).as("IPoIB").isFalse();
        assertThat(RdmaCoreConnectionManager.rcPortSpaceId(0x0000000001111D2FL)).as("UDP").isFalse();
        assertThat(RdmaCoreConnectionManager.rcPortSpaceId(0x1000000000000001L)).isFalse();
    }

    @Test
    void connParamIsRdmaCmaH() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cp = RdmaCoreCmId.connParam(a, new byte[] {9, 8, 7}, 4, 3, 6, 7);
            assertThat(cp.byteSize()).isEqualTo(24);
            MemorySegment pd = cp.get(ADDRESS, 0).reinterpret(3);
            assertThat(pd.toArray(JAVA_BYTE)).containsExactly(9, 8, 7);
            assertThat(cp.asSlice(8, 6).toArray(JAVA_BYTE)).containsExactly(3, 4, 3, 0, 6, 7);
        }
    }

    @Test
    void sockaddrInIsNetworkOrder() throws Exception {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = RdmaCoreConnectionManager.sockaddr(a, InetAddress.getByName("198.18.0.2"), 7471);
            assertThat(s.get(JAVA_SHORT, 0)).isEqualTo((short) 2);
            assertThat(s.asSlice(2, 6).toArray(JAVA_BYTE)).containsExactly(0x1D, 0x2F, 198, 18, 0, 2);
        }
    }
}
