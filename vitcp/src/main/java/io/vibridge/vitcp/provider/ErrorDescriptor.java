package io.vibridge.vitcp.provider;

/**
 * VIP_ERROR_DESCRIPTOR (VIA 9.10.3), handed to the handler of {@link ViNic#errorCallback}.
 *
 * @param nic the reporting NIC
 * @param vi the VI concerned, or null
 * @param cq the completion queue concerned, or null
 * @param descriptor the descriptor concerned, or null
 * @param opCode completed-operation code bits (VIA 10.2) of the operation concerned
 * @param resourceCode what failed
 * @param errorCode the error
 * @param isCode the VI/TCP IS code behind it (VITCP-PROFILE §2), or 0
 */
public record ErrorDescriptor(ViNic nic, Vi vi, CompletionQueue cq, Descriptor descriptor, int opCode,
        ResourceCode resourceCode, ErrorCode errorCode, int isCode) {

    /** VIP_RESOURCE_CODE. */
    public enum ResourceCode { NIC, VI, CQ, DESCRIPTOR }

    /** VIP_ERROR_CODE. */
    public enum ErrorCode {
        POST_DESC, CONN_LOST, RECVQ_EMPTY, VI_OVERRUN, RDMAW_PROT, RDMAW_DATA, RDMAW_ABORT, RDMAR_PROT, COMP_PROT
    }
}
