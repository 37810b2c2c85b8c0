package io.vibridge.verbs.rdmacore;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WrOpcode;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;

/** enum ibv_wc_status, ibv_wc_opcode and ibv_wr_opcode (verbs.h) to and from the SPI's enums. */
final class WcCodes {
    /** imm_data is __be32: the wire's bytes in memory order, the SPI's int is their big-endian value. */
    static final ValueLayout.OfInt INT_BE = JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final WcStatus[] STATUS = new WcStatus[23];

    static {
        Arrays.fill(STATUS, WcStatus.GENERAL_ERROR);
        STATUS[0] = WcStatus.SUCCESS;                  // IBV_WC_SUCCESS
        STATUS[1] = WcStatus.LOCAL_LENGTH_ERROR;       // IBV_WC_LOC_LEN_ERR
        STATUS[4] = WcStatus.LOCAL_PROTECTION_ERROR;   // IBV_WC_LOC_PROT_ERR
        STATUS[5] = WcStatus.WR_FLUSH_ERROR;           // IBV_WC_WR_FLUSH_ERR
        STATUS[9] = WcStatus.REMOTE_INVALID_REQUEST;   // IBV_WC_REM_INV_REQ_ERR
        STATUS[10] = WcStatus.REMOTE_ACCESS_ERROR;     // IBV_WC_REM_ACCESS_ERR
        STATUS[11] = WcStatus.REMOTE_OPERATIONAL_ERROR; // IBV_WC_REM_OP_ERR
        STATUS[12] = WcStatus.RETRY_EXCEEDED;          // IBV_WC_RETRY_EXC_ERR
        STATUS[13] = WcStatus.RNR_RETRY_EXCEEDED;      // IBV_WC_RNR_RETRY_EXC_ERR
    }

    private WcCodes() {
    }

    static WcStatus status(int s) {
        return s >= 0 && s < STATUS.length ? STATUS[s] : WcStatus.GENERAL_ERROR;
    }

    static WcOpcode opcode(int op) {
        return switch (op) {
            case 1 -> WcOpcode.RDMA_WRITE;             // IBV_WC_RDMA_WRITE
            case 2 -> WcOpcode.RDMA_READ;              // IBV_WC_RDMA_READ
            case 128 -> WcOpcode.RECV;                 // IBV_WC_RECV
            case 129 -> WcOpcode.RECV_RDMA_WITH_IMM;   // IBV_WC_RECV_RDMA_WITH_IMM
            default -> WcOpcode.SEND;                  // IBV_WC_SEND (0); flushed WCs carry no valid opcode
        };
    }

    static int wrOpcode(WrOpcode op) {
        return switch (op) {
            case RDMA_WRITE -> 0;                      // IBV_WR_RDMA_WRITE
            case RDMA_WRITE_WITH_IMM -> 1;
            case SEND -> 2;
            case SEND_WITH_IMM -> 3;
            case RDMA_READ -> 4;
            case SEND_WITH_INV -> 9;                   // IBV_WR_SEND_WITH_INV
        };
    }
}
