package io.vibridge.verbs.rdmacore;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * The libibverbs structures this provider touches, written by hand from rdma-core v44's
 * {@code libibverbs/verbs.h} for LP64 Linux (x86_64, aarch64). Only the fields we read or write are named;
 * the rest are padding of the right size, so every struct has the header's size and alignment. The
 * {@code ibv_context} and {@code verbs_context} layouts are part of libibverbs.so.1's ABI (the data-path
 * calls are inline in verbs.h and read {@code context->ops}), unchanged from v44 to rdma-core's master.
 * {@code IbvLayoutsTest} holds the header's offsets as a table; {@link RdmaCoreCheck} checks at run time
 * what the installed library returns.
 */
final class IbvLayouts {
    private IbvLayouts() {
    }

    private static MemoryLayout pad(long bytes) {
        return MemoryLayout.paddingLayout(bytes);
    }

    /** union ibv_gid: 16 bytes, aligned as its __be64 members. */
    static final GroupLayout GID = MemoryLayout.unionLayout(
            MemoryLayout.sequenceLayout(16, JAVA_BYTE).withName("raw"),
            MemoryLayout.structLayout(JAVA_LONG.withName("subnet_prefix"), JAVA_LONG.withName("interface_id"))
                    .withName("global")).withName("ibv_gid");

    /** struct ibv_device: _ops (two pointers), node_type, transport_type, name[64], dev_name[64], paths. */
    static final StructLayout DEVICE = MemoryLayout.structLayout(
            pad(16).withName("_ops"),
            JAVA_INT.withName("node_type"),
            JAVA_INT.withName("transport_type"),
            MemoryLayout.sequenceLayout(64, JAVA_BYTE).withName("name"),
            MemoryLayout.sequenceLayout(64, JAVA_BYTE).withName("dev_name"),
            MemoryLayout.sequenceLayout(256, JAVA_BYTE).withName("dev_path"),
            MemoryLayout.sequenceLayout(256, JAVA_BYTE).withName("ibdev_path")).withName("ibv_device");

    /** struct ibv_context_ops: 32 function pointers; we call four of them (verbs.h's inline data path). */
    static final StructLayout CONTEXT_OPS = MemoryLayout.structLayout(
            pad(11 * 8L),
            ADDRESS.withName("poll_cq"),            // 11
            ADDRESS.withName("req_notify_cq"),      // 12
            pad(12 * 8L),
            ADDRESS.withName("post_send"),          // 25
            ADDRESS.withName("post_recv"),          // 26
            pad(5 * 8L)).withName("ibv_context_ops");

    /** struct ibv_context; pthread_mutex_t is 40 bytes on LP64 glibc. */
    static final StructLayout CONTEXT = MemoryLayout.structLayout(
            ADDRESS.withName("device"),
            CONTEXT_OPS.withName("ops"),
            JAVA_INT.withName("cmd_fd"),
            JAVA_INT.withName("async_fd"),
            JAVA_INT.withName("num_comp_vectors"),
            pad(4),
            pad(40).withName("mutex"),
            ADDRESS.withName("abi_compat")).withName("ibv_context");

    /**
     * The tail of struct verbs_context that precedes the embedded ibv_context ("grows up": new members go
     * at its top, so offsets counted back from the context stay). {@code modify_cq} is 184 bytes before it.
     */
    static final StructLayout VERBS_CONTEXT_TAIL = MemoryLayout.structLayout(
            ADDRESS.withName("modify_cq"),
            pad(20 * 8L),
            JAVA_LONG.withName("_ABI_placeholder3"),
            JAVA_LONG.withName("sz")).withName("verbs_context_tail");
    /** Offset of verbs_context.modify_cq from the ibv_context, negative. */
    static final long VCTX_MODIFY_CQ = -VERBS_CONTEXT_TAIL.byteSize();
    static final long VCTX_SZ = VERBS_CONTEXT_TAIL.byteOffset(groupElement("sz")) - VERBS_CONTEXT_TAIL.byteSize();
    /** sizeof(struct verbs_context) in v44 (40 members of 8 bytes before the context). */
    static final long VERBS_CONTEXT_SIZE_V44 = 320 + 328;
    /** What verbs_get_ctx_op asks of sz for modify_cq: sizeof(verbs_context) - offsetof(modify_cq). */
    static final long VCTX_MODIFY_CQ_MIN_SZ = VERBS_CONTEXT_SIZE_V44 - 136;

    static final StructLayout DEVICE_ATTR = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(64, JAVA_BYTE).withName("fw_ver"),
            JAVA_LONG.withName("node_guid"),
            JAVA_LONG.withName("sys_image_guid"),
            JAVA_LONG.withName("max_mr_size"),
            JAVA_LONG.withName("page_size_cap"),
            JAVA_INT.withName("vendor_id"),
            JAVA_INT.withName("vendor_part_id"),
            JAVA_INT.withName("hw_ver"),
            JAVA_INT.withName("max_qp"),
            JAVA_INT.withName("max_qp_wr"),
            JAVA_INT.withName("device_cap_flags"),
            JAVA_INT.withName("max_sge"),
            JAVA_INT.withName("max_sge_rd"),
            JAVA_INT.withName("max_cq"),
            JAVA_INT.withName("max_cqe"),
            JAVA_INT.withName("max_mr"),
            JAVA_INT.withName("max_pd"),
            JAVA_INT.withName("max_qp_rd_atom"),
            JAVA_INT.withName("max_ee_rd_atom"),
            JAVA_INT.withName("max_res_rd_atom"),
            JAVA_INT.withName("max_qp_init_rd_atom"),
            pad(4 * 16),                                  // max_ee_init_rd_atom .. max_srq_sge
            JAVA_SHORT.withName("max_pkeys"),
            JAVA_BYTE.withName("local_ca_ack_delay"),
            JAVA_BYTE.withName("phys_port_cnt"),
            pad(4)).withName("ibv_device_attr");

    static final StructLayout PORT_ATTR = MemoryLayout.structLayout(
            JAVA_INT.withName("state"),
            JAVA_INT.withName("max_mtu"),
            JAVA_INT.withName("active_mtu"),
            JAVA_INT.withName("gid_tbl_len"),
            JAVA_INT.withName("port_cap_flags"),
            JAVA_INT.withName("max_msg_sz"),
            pad(8),                                       // bad_pkey_cntr, qkey_viol_cntr
            JAVA_SHORT.withName("pkey_tbl_len"),
            JAVA_SHORT.withName("lid"),
            JAVA_SHORT.withName("sm_lid"),
            pad(8),                                       // lmc .. phys_state
            JAVA_BYTE.withName("link_layer"),
            JAVA_BYTE.withName("flags"),
            JAVA_SHORT.withName("port_cap_flags2"),
            pad(2)).withName("ibv_port_attr");

    static final StructLayout ASYNC_EVENT = MemoryLayout.structLayout(
            ADDRESS.withName("element"),                  // union { cq, qp, srq, wq; int port_num }
            JAVA_INT.withName("event_type"),
            pad(4)).withName("ibv_async_event");

    /**
     * The 4 bytes that verbs.h's anonymous unions hold: {@code imm_data} (__be32) with a WITH_IMM opcode or flag,
     * {@code invalidate_rkey} / {@code invalidated_rkey} (host-order uint32_t) with SEND_WITH_INV / IBV_WC_WITH_INV.
     * Java needs a name to reach into a union; {@code ex} is the one the kernel ABI gives it (ib_user_verbs.h).
     */
    private static GroupLayout immOrRkey(String rkey) {
        return MemoryLayout.unionLayout(JAVA_INT.withName("imm_data"), JAVA_INT.withName(rkey)).withName("ex");
    }

    static final StructLayout WC = MemoryLayout.structLayout(
            JAVA_LONG.withName("wr_id"),
            JAVA_INT.withName("status"),
            JAVA_INT.withName("opcode"),
            JAVA_INT.withName("vendor_err"),
            JAVA_INT.withName("byte_len"),
            immOrRkey("invalidated_rkey"),
            JAVA_INT.withName("qp_num"),
            JAVA_INT.withName("src_qp"),
            JAVA_INT.withName("wc_flags"),
            JAVA_SHORT.withName("pkey_index"),
            JAVA_SHORT.withName("slid"),
            JAVA_BYTE.withName("sl"),
            JAVA_BYTE.withName("dlid_path_bits"),
            pad(2)).withName("ibv_wc");

    static final StructLayout PD = MemoryLayout.structLayout(
            ADDRESS.withName("context"), JAVA_INT.withName("handle"), pad(4)).withName("ibv_pd");

    static final StructLayout MR = MemoryLayout.structLayout(
            ADDRESS.withName("context"),
            ADDRESS.withName("pd"),
            ADDRESS.withName("addr"),
            JAVA_LONG.withName("length"),
            JAVA_INT.withName("handle"),
            JAVA_INT.withName("lkey"),
            JAVA_INT.withName("rkey"),
            pad(4)).withName("ibv_mr");

    static final StructLayout COMP_CHANNEL = MemoryLayout.structLayout(
            ADDRESS.withName("context"), JAVA_INT.withName("fd"), JAVA_INT.withName("refcnt"))
            .withName("ibv_comp_channel");

    /** struct ibv_cq; pthread_mutex_t 40, pthread_cond_t 48. */
    static final StructLayout CQ = MemoryLayout.structLayout(
            ADDRESS.withName("context"),
            ADDRESS.withName("channel"),
            ADDRESS.withName("cq_context"),
            JAVA_INT.withName("handle"),
            JAVA_INT.withName("cqe"),
            pad(40).withName("mutex"),
            pad(48).withName("cond"),
            JAVA_INT.withName("comp_events_completed"),
            JAVA_INT.withName("async_events_completed")).withName("ibv_cq");

    static final StructLayout QP = MemoryLayout.structLayout(
            ADDRESS.withName("context"),
            ADDRESS.withName("qp_context"),
            ADDRESS.withName("pd"),
            ADDRESS.withName("send_cq"),
            ADDRESS.withName("recv_cq"),
            ADDRESS.withName("srq"),
            JAVA_INT.withName("handle"),
            JAVA_INT.withName("qp_num"),
            JAVA_INT.withName("state"),
            JAVA_INT.withName("qp_type"),
            pad(40).withName("mutex"),
            pad(48).withName("cond"),
            JAVA_INT.withName("events_completed"),
            pad(4)).withName("ibv_qp");

    static final StructLayout QP_CAP = MemoryLayout.structLayout(
            JAVA_INT.withName("max_send_wr"),
            JAVA_INT.withName("max_recv_wr"),
            JAVA_INT.withName("max_send_sge"),
            JAVA_INT.withName("max_recv_sge"),
            JAVA_INT.withName("max_inline_data")).withName("ibv_qp_cap");

    static final StructLayout QP_INIT_ATTR = MemoryLayout.structLayout(
            ADDRESS.withName("qp_context"),
            ADDRESS.withName("send_cq"),
            ADDRESS.withName("recv_cq"),
            ADDRESS.withName("srq"),
            QP_CAP.withName("cap"),
            JAVA_INT.withName("qp_type"),
            JAVA_INT.withName("sq_sig_all"),
            pad(4)).withName("ibv_qp_init_attr");

    static final StructLayout GLOBAL_ROUTE = MemoryLayout.structLayout(
            GID.withName("dgid"),
            JAVA_INT.withName("flow_label"),
            JAVA_BYTE.withName("sgid_index"),
            JAVA_BYTE.withName("hop_limit"),
            JAVA_BYTE.withName("traffic_class"),
            pad(1)).withName("ibv_global_route");

    static final StructLayout AH_ATTR = MemoryLayout.structLayout(
            GLOBAL_ROUTE.withName("grh"),
            JAVA_SHORT.withName("dlid"),
            JAVA_BYTE.withName("sl"),
            JAVA_BYTE.withName("src_path_bits"),
            JAVA_BYTE.withName("static_rate"),
            JAVA_BYTE.withName("is_global"),
            JAVA_BYTE.withName("port_num"),
            pad(1)).withName("ibv_ah_attr");

    static final StructLayout QP_ATTR = MemoryLayout.structLayout(
            JAVA_INT.withName("qp_state"),
            JAVA_INT.withName("cur_qp_state"),
            JAVA_INT.withName("path_mtu"),
            JAVA_INT.withName("path_mig_state"),
            JAVA_INT.withName("qkey"),
            JAVA_INT.withName("rq_psn"),
            JAVA_INT.withName("sq_psn"),
            JAVA_INT.withName("dest_qp_num"),
            JAVA_INT.withName("qp_access_flags"),
            QP_CAP.withName("cap"),
            AH_ATTR.withName("ah_attr"),
            AH_ATTR.withName("alt_ah_attr"),
            JAVA_SHORT.withName("pkey_index"),
            JAVA_SHORT.withName("alt_pkey_index"),
            JAVA_BYTE.withName("en_sqd_async_notify"),
            JAVA_BYTE.withName("sq_draining"),
            JAVA_BYTE.withName("max_rd_atomic"),
            JAVA_BYTE.withName("max_dest_rd_atomic"),
            JAVA_BYTE.withName("min_rnr_timer"),
            JAVA_BYTE.withName("port_num"),
            JAVA_BYTE.withName("timeout"),
            JAVA_BYTE.withName("retry_cnt"),
            JAVA_BYTE.withName("rnr_retry"),
            JAVA_BYTE.withName("alt_port_num"),
            JAVA_BYTE.withName("alt_timeout"),
            pad(1),
            JAVA_INT.withName("rate_limit"),
            pad(4)).withName("ibv_qp_attr");

    static final StructLayout SGE = MemoryLayout.structLayout(
            JAVA_LONG.withName("addr"), JAVA_INT.withName("length"), JAVA_INT.withName("lkey")).withName("ibv_sge");

    /** struct ibv_send_wr: 128 bytes; the wr union is 32 (its atomic member), the bind_mw/tso union 48. */
    static final StructLayout SEND_WR = MemoryLayout.structLayout(
            JAVA_LONG.withName("wr_id"),
            ADDRESS.withName("next"),
            ADDRESS.withName("sg_list"),
            JAVA_INT.withName("num_sge"),
            JAVA_INT.withName("opcode"),
            JAVA_INT.withName("send_flags"),
            immOrRkey("invalidate_rkey"),
            JAVA_LONG.withName("remote_addr"),            // wr.rdma.remote_addr
            JAVA_INT.withName("rkey"),                    // wr.rdma.rkey
            pad(20),                                      // rest of the wr union (atomic: 32 bytes)
            JAVA_INT.withName("remote_srqn"),             // qp_type.xrc
            pad(4),
            pad(48).withName("bind_mw_tso")).withName("ibv_send_wr");

    static final StructLayout RECV_WR = MemoryLayout.structLayout(
            JAVA_LONG.withName("wr_id"),
            ADDRESS.withName("next"),
            ADDRESS.withName("sg_list"),
            JAVA_INT.withName("num_sge"),
            pad(4)).withName("ibv_recv_wr");

    static final StructLayout MODIFY_CQ_ATTR = MemoryLayout.structLayout(
            JAVA_INT.withName("attr_mask"),
            JAVA_SHORT.withName("cq_count"),
            JAVA_SHORT.withName("cq_period")).withName("ibv_modify_cq_attr");

    static long off(GroupLayout l, String... path) {
        MemoryLayout.PathElement[] p = new MemoryLayout.PathElement[path.length];
        for (int i = 0; i < path.length; i++) {
            p[i] = groupElement(path[i]);
        }
        return l.byteOffset(p);
    }

    // offsets used on the data path, as constants
    static final long CTX_DEVICE = off(CONTEXT, "device");
    static final long CTX_POLL_CQ = off(CONTEXT, "ops", "poll_cq");
    static final long CTX_REQ_NOTIFY_CQ = off(CONTEXT, "ops", "req_notify_cq");
    static final long CTX_POST_SEND = off(CONTEXT, "ops", "post_send");
    static final long CTX_POST_RECV = off(CONTEXT, "ops", "post_recv");
    static final long CTX_CMD_FD = off(CONTEXT, "cmd_fd");
    static final long CTX_ASYNC_FD = off(CONTEXT, "async_fd");
    static final long CTX_NUM_COMP_VECTORS = off(CONTEXT, "num_comp_vectors");
    static final long CTX_ABI_COMPAT = off(CONTEXT, "abi_compat");

    static final long WC_WR_ID = off(WC, "wr_id");
    static final long WC_STATUS = off(WC, "status");
    static final long WC_OPCODE = off(WC, "opcode");
    static final long WC_VENDOR_ERR = off(WC, "vendor_err");
    static final long WC_BYTE_LEN = off(WC, "byte_len");
    static final long WC_IMM = off(WC, "ex", "imm_data");
    static final long WC_INVALIDATED_RKEY = off(WC, "ex", "invalidated_rkey");
    static final long WC_QP_NUM = off(WC, "qp_num");
    static final long WC_FLAGS = off(WC, "wc_flags");

    static final long SWR_WR_ID = off(SEND_WR, "wr_id");
    static final long SWR_NEXT = off(SEND_WR, "next");
    static final long SWR_SG_LIST = off(SEND_WR, "sg_list");
    static final long SWR_NUM_SGE = off(SEND_WR, "num_sge");
    static final long SWR_OPCODE = off(SEND_WR, "opcode");
    static final long SWR_SEND_FLAGS = off(SEND_WR, "send_flags");
    static final long SWR_IMM = off(SEND_WR, "ex", "imm_data");
    static final long SWR_INVALIDATE_RKEY = off(SEND_WR, "ex", "invalidate_rkey");
    static final long SWR_REMOTE_ADDR = off(SEND_WR, "remote_addr");
    static final long SWR_RKEY = off(SEND_WR, "rkey");

    static final long RWR_WR_ID = off(RECV_WR, "wr_id");
    static final long RWR_NEXT = off(RECV_WR, "next");
    static final long RWR_SG_LIST = off(RECV_WR, "sg_list");
    static final long RWR_NUM_SGE = off(RECV_WR, "num_sge");

    static final long SGE_ADDR = off(SGE, "addr");
    static final long SGE_LENGTH = off(SGE, "length");
    static final long SGE_LKEY = off(SGE, "lkey");

    static final long QPA_STATE = off(QP_ATTR, "qp_state");
    static final long QPA_PATH_MTU = off(QP_ATTR, "path_mtu");
    static final long QPA_RQ_PSN = off(QP_ATTR, "rq_psn");
    static final long QPA_SQ_PSN = off(QP_ATTR, "sq_psn");
    static final long QPA_DEST_QPN = off(QP_ATTR, "dest_qp_num");
    static final long QPA_ACCESS = off(QP_ATTR, "qp_access_flags");
    static final long QPA_DGID = off(QP_ATTR, "ah_attr", "grh", "dgid");
    static final long QPA_SGID_INDEX = off(QP_ATTR, "ah_attr", "grh", "sgid_index");
    static final long QPA_HOP_LIMIT = off(QP_ATTR, "ah_attr", "grh", "hop_limit");
    static final long QPA_IS_GLOBAL = off(QP_ATTR, "ah_attr", "is_global");
    static final long QPA_AH_PORT = off(QP_ATTR, "ah_attr", "port_num");
    static final long QPA_PKEY_INDEX = off(QP_ATTR, "pkey_index");
    static final long QPA_MAX_RD_ATOMIC = off(QP_ATTR, "max_rd_atomic");
    static final long QPA_MAX_DEST_RD_ATOMIC = off(QP_ATTR, "max_dest_rd_atomic");
    static final long QPA_MIN_RNR_TIMER = off(QP_ATTR, "min_rnr_timer");
    static final long QPA_PORT = off(QP_ATTR, "port_num");
    static final long QPA_TIMEOUT = off(QP_ATTR, "timeout");
    static final long QPA_RETRY_CNT = off(QP_ATTR, "retry_cnt");
    static final long QPA_RNR_RETRY = off(QP_ATTR, "rnr_retry");
}
