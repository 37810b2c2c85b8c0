package io.vibridge.verbs.rdmacore;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The hand-written layouts against rdma-core v44's verbs.h, as a table printed by a C compiler from the header
 * itself (src/test/resources/rdmacore/offsets.c), plus the verbs_context offsets the provider reads backwards
 * from the ibv_context.
 */
class IbvLayoutsTest {
    /** sizeof, from gcc on rdma-core v44 verbs.h (src/test/resources/rdmacore/offsets.c). */
    static final Object[][] SIZES = {
        {"ibv_device", IbvLayouts.DEVICE, 664},
        {"ibv_context", IbvLayouts.CONTEXT, 328},
        {"ibv_context_ops", IbvLayouts.CONTEXT_OPS, 256},
        {"ibv_device_attr", IbvLayouts.DEVICE_ATTR, 232},
        {"ibv_port_attr", IbvLayouts.PORT_ATTR, 52},
        {"ibv_async_event", IbvLayouts.ASYNC_EVENT, 16},
        {"ibv_wc", IbvLayouts.WC, 48},
        {"ibv_pd", IbvLayouts.PD, 16},
        {"ibv_mr", IbvLayouts.MR, 48},
        {"ibv_comp_channel", IbvLayouts.COMP_CHANNEL, 16},
        {"ibv_cq", IbvLayouts.CQ, 128},
        {"ibv_qp", IbvLayouts.QP, 160},
        {"ibv_qp_cap", IbvLayouts.QP_CAP, 20},
        {"ibv_qp_init_attr", IbvLayouts.QP_INIT_ATTR, 64},
        {"ibv_global_route", IbvLayouts.GLOBAL_ROUTE, 24},
        {"ibv_ah_attr", IbvLayouts.AH_ATTR, 32},
        {"ibv_qp_attr", IbvLayouts.QP_ATTR, 144},
        {"ibv_sge", IbvLayouts.SGE, 16},
        {"ibv_send_wr", IbvLayouts.SEND_WR, 128},
        {"ibv_recv_wr", IbvLayouts.RECV_WR, 32},
        {"ibv_modify_cq_attr", IbvLayouts.MODIFY_CQ_ATTR, 8},
    };

    /**
     * offsetof, same source; dotted paths are nested members. {@code ex} is the layouts' name for verbs.h's anonymous
     * union of {@code imm_data} and the invalidate key (offsets.c prints its members by their own names).
     */
    static final Object[][] OFFSETS = {
        {"ibv_device", IbvLayouts.DEVICE, "node_type", 16},
        {"ibv_device", IbvLayouts.DEVICE, "transport_type", 20},
        {"ibv_device", IbvLayouts.DEVICE, "name", 24},
        {"ibv_context", IbvLayouts.CONTEXT, "ops", 8},
        {"ibv_context", IbvLayouts.CONTEXT, "ops.poll_cq", 96},
        {"ibv_context", IbvLayouts.CONTEXT, "ops.req_notify_cq", 104},
        {"ibv_context", IbvLayouts.CONTEXT, "ops.post_send", 208},
        {"ibv_context", IbvLayouts.CONTEXT, "ops.post_recv", 216},
        {"ibv_context", IbvLayouts.CONTEXT, "cmd_fd", 264},
        {"ibv_context", IbvLayouts.CONTEXT, "async_fd", 268},
        {"ibv_context", IbvLayouts.CONTEXT, "num_comp_vectors", 272},
        {"ibv_context", IbvLayouts.CONTEXT, "abi_compat", 320},
        {"ibv_device_attr", IbvLayouts.DEVICE_ATTR, "max_qp_wr", 112},
        {"ibv_device_attr", IbvLayouts.DEVICE_ATTR, "device_cap_flags", 116},
        {"ibv_device_attr", IbvLayouts.DEVICE_ATTR, "max_cqe", 132},
        {"ibv_device_attr", IbvLayouts.DEVICE_ATTR, "max_qp_rd_atom", 144},
        {"ibv_device_attr", IbvLayouts.DEVICE_ATTR, "max_qp_init_rd_atom", 156},
        {"ibv_device_attr", IbvLayouts.DEVICE_ATTR, "max_pkeys", 224},
        {"ibv_device_attr", IbvLayouts.DEVICE_ATTR, "phys_port_cnt", 227},
        {"ibv_port_attr", IbvLayouts.PORT_ATTR, "active_mtu", 8},
        {"ibv_port_attr", IbvLayouts.PORT_ATTR, "gid_tbl_len", 12},
        {"ibv_port_attr", IbvLayouts.PORT_ATTR, "link_layer", 46},
        {"ibv_port_attr", IbvLayouts.PORT_ATTR, "port_cap_flags2", 48},
        {"ibv_async_event", IbvLayouts.ASYNC_EVENT, "event_type", 8},
        {"ibv_wc", IbvLayouts.WC, "status", 8},
        {"ibv_wc", IbvLayouts.WC, "opcode", 12},
        {"ibv_wc", IbvLayouts.WC, "byte_len", 20},
        {"ibv_wc", IbvLayouts.WC, "ex.imm_data", 24},
        {"ibv_wc", IbvLayouts.WC, "ex.invalidated_rkey", 24},
        {"ibv_wc", IbvLayouts.WC, "qp_num", 28},
        {"ibv_wc", IbvLayouts.WC, "wc_flags", 36},
        {"ibv_mr", IbvLayouts.MR, "addr", 16},
        {"ibv_mr", IbvLayouts.MR, "length", 24},
        {"ibv_mr", IbvLayouts.MR, "lkey", 36},
        {"ibv_mr", IbvLayouts.MR, "rkey", 40},
        {"ibv_comp_channel", IbvLayouts.COMP_CHANNEL, "fd", 8},
        {"ibv_cq", IbvLayouts.CQ, "channel", 8},
        {"ibv_cq", IbvLayouts.CQ, "cqe", 28},
        {"ibv_qp", IbvLayouts.QP, "qp_num", 52},
        {"ibv_qp", IbvLayouts.QP, "qp_type", 60},
        {"ibv_qp", IbvLayouts.QP, "send_cq", 24},
        {"ibv_qp", IbvLayouts.QP, "recv_cq", 32},
        {"ibv_qp_init_attr", IbvLayouts.QP_INIT_ATTR, "cap", 32},
        {"ibv_qp_init_attr", IbvLayouts.QP_INIT_ATTR, "qp_type", 52},
        {"ibv_ah_attr", IbvLayouts.AH_ATTR, "is_global", 29},
        {"ibv_ah_attr", IbvLayouts.AH_ATTR, "port_num", 30},
        {"ibv_qp_attr", IbvLayouts.QP_ATTR, "path_mtu", 8},
        {"ibv_qp_attr", IbvLayouts.QP_ATTR, "rq_psn", 20},
        {"ibv_qp_attr", IbvLayouts.QP_ATTR, "sq_psn", 24},
        {"ibv_qp_attr", IbvLayouts.QP_ATTR, "dest_qp_num", 28},
        {"ibv_qp_attr", IbvLayouts.QP_ATTR, "qp_access_flags", 32},
        {"ibv_qp_attr", IbvLayouts.QP_ATTR, "ah_attr", 56},
        {"ibv_qp_attr", IbvLayouts.QP_ATTR, "ah_attr.grh.sgid_index", 76},
        {"ibv_qp_attr", IbvLayouts.QP_ATTR, "ah_attr.grh.hop_limit", 77},
        {"ibv_qp_attr", IbvLayouts.QP_ATTR, "pkey_index", 120},
        {"ibv_qp_attr", IbvLayouts.QP_ATTR, "max_rd_atomic", 126},
        {"ibv_qp_attr", IbvLayouts.QP_ATTR, "max_dest_rd_atomic", 127},
        {"ibv_qp_attr", IbvLayouts.QP_ATTR, "min_rnr_timer", 128},
        {"ibv_qp_attr", IbvLayouts.QP_ATTR, "port_num", 129},
        {"ibv_qp_attr", IbvLayouts.QP_ATTR, "timeout", 130},
        {"ibv_qp_attr", IbvLayouts.QP_ATTR, "retry_cnt", 131},
        {"ibv_qp_attr", IbvLayouts.QP_ATTR, "rnr_retry", 132},
        {"ibv_sge", IbvLayouts.SGE, "length", 8},
        {"ibv_sge", IbvLayouts.SGE, "lkey", 12},
        {"ibv_send_wr", IbvLayouts.SEND_WR, "num_sge", 24},
        {"ibv_send_wr", IbvLayouts.SEND_WR, "opcode", 28},
        {"ibv_send_wr", IbvLayouts.SEND_WR, "send_flags", 32},
        {"ibv_send_wr", IbvLayouts.SEND_WR, "ex.imm_data", 36},
        {"ibv_send_wr", IbvLayouts.SEND_WR, "ex.invalidate_rkey", 36},
        {"ibv_send_wr", IbvLayouts.SEND_WR, "remote_addr", 40},
        {"ibv_send_wr", IbvLayouts.SEND_WR, "rkey", 48},
        {"ibv_send_wr", IbvLayouts.SEND_WR, "remote_srqn", 72},
        {"ibv_recv_wr", IbvLayouts.RECV_WR, "num_sge", 24},
        {"ibv_modify_cq_attr", IbvLayouts.MODIFY_CQ_ATTR, "cq_count", 4},
        {"ibv_modify_cq_attr", IbvLayouts.MODIFY_CQ_ATTR, "cq_period", 6},
    };
    @Test
    void sizesAreTheHeaders() {
        for (Object[] row : SIZES) {
            assertThat(((MemoryLayout) row[1]).byteSize()).as("sizeof(struct %s)", row[0]).isEqualTo((long) (int) row[2]);
        }
    }

    @Test
    void offsetsAreTheHeaders() {
        for (Object[] row : OFFSETS) {
            String[] path = ((String) row[2]).split("\\.");
            assertThat(IbvLayouts.off((GroupLayout) row[1], path)).as("offsetof(struct %s, %s)", row[0], row[2])
                    .isEqualTo((long) (int) row[3]);
        }
    }

    @Test
    void verbsContextMembersCountBackFromTheContext() {
        // gcc: offsetof(verbs_context, modify_cq) 136, sz 312, context 320, sizeof 648
        assertThat(IbvLayouts.VCTX_MODIFY_CQ).isEqualTo(136 - 320);
        assertThat(IbvLayouts.VCTX_SZ).isEqualTo(312 - 320);
        assertThat(IbvLayouts.VERBS_CONTEXT_SIZE_V44).isEqualTo(648);
        assertThat(IbvLayouts.VCTX_MODIFY_CQ_MIN_SZ).isEqualTo(648 - 136);
    }

    @Test
    void theDataPathOffsetsAreTheTablesToo() {
        assertThat(new long[] {IbvLayouts.CTX_POLL_CQ, IbvLayouts.CTX_REQ_NOTIFY_CQ, IbvLayouts.CTX_POST_SEND,
            IbvLayouts.CTX_POST_RECV}).containsExactly(96, 104, 208, 216);
        assertThat(new long[] {IbvLayouts.SWR_WR_ID, IbvLayouts.SWR_NEXT, IbvLayouts.SWR_SG_LIST, IbvLayouts.SWR_NUM_SGE,
            IbvLayouts.SWR_OPCODE, IbvLayouts.SWR_SEND_FLAGS, IbvLayouts.SWR_IMM, IbvLayouts.SWR_REMOTE_ADDR,
            IbvLayouts.SWR_RKEY, IbvLayouts.SWR_INVALIDATE_RKEY})
                .containsExactly(0, 8, 16, 24, 28, 32, 36, 40, 48, 36);
        assertThat(new long[] {IbvLayouts.WC_IMM, IbvLayouts.WC_INVALIDATED_RKEY, IbvLayouts.WC_FLAGS})
                .containsExactly(24, 24, 36);
        assertThat(Arrays.stream(SIZES).filter(r -> r[0].equals("ibv_wc")).findFirst().orElseThrow()[2]).isEqualTo(48);
    }
}
