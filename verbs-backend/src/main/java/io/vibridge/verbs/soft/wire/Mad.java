package io.vibridge.verbs.soft.wire;

/**
 * Constants of management datagrams as the CM uses them (REF §5.1, §5.2): 256-byte MADs carried in
 * UD SEND Only packets to QP1 with a DETH of Q_Key 0x80010000 and source QP 1.
 */
public final class Mad {

    /** Every MAD is 256 bytes. */
    public static final int LENGTH = 256;
    /** Offset of the class data area within the MAD. */
    public static final int DATA_OFFSET = MadHeader.LENGTH;
    /** Size of the CM data area. */
    public static final int DATA_LENGTH = LENGTH - DATA_OFFSET;

    /** The GSI queue pair. */
    public static final int GSI_QP = 1;
    /** Q_Key of QP1 ({@code IB_QP1_QKEY}). */
    public static final int GSI_QKEY = Deth.GSI_QKEY;
    /** UDP payload of a MAD packet: BTH + DETH + MAD + ICRC = 280. */
    public static final int PACKET_LENGTH = Bth.LENGTH + Deth.LENGTH + LENGTH + Icrc.LENGTH;

    public static final int BASE_VERSION = 1;
    public static final int MGMT_CLASS_CM = 0x07;
    /** Linux's CM registers only class version 2. */
    public static final int CM_CLASS_VERSION = 2;

    public static final int METHOD_GET = 0x01;
    public static final int METHOD_SET = 0x02;
    public static final int METHOD_SEND = 0x03;
    public static final int METHOD_TRAP = 0x05;
    public static final int METHOD_REPORT = 0x06;
    public static final int METHOD_TRAP_REPRESS = 0x07;
    public static final int METHOD_GET_RESP = 0x81;
    public static final int METHOD_REPORT_RESP = 0x86;

    public static final int STATUS_BAD_VERSION = 0x0004;
    public static final int STATUS_METHOD_NOT_SUPPORTED = 0x0008;
    public static final int STATUS_METHOD_ATTRIBUTE_NOT_SUPPORTED = 0x000C;
    public static final int STATUS_INVALID_ATTRIBUTE_VALUE = 0x001C;

    // CM attribute IDs (REF §5.2).
    public static final int ATTR_CLASS_PORT_INFO = 0x0001;
    public static final int ATTR_REQ = 0x0010;
    public static final int ATTR_MRA = 0x0011;
    public static final int ATTR_REJ = 0x0012;
    public static final int ATTR_REP = 0x0013;
    public static final int ATTR_RTU = 0x0014;
    public static final int ATTR_DREQ = 0x0015;
    public static final int ATTR_DREP = 0x0016;
    public static final int ATTR_SIDR_REQ = 0x0017;
    public static final int ATTR_SIDR_REP = 0x0018;
    public static final int ATTR_LAP = 0x0019;
    public static final int ATTR_APR = 0x001A;

    private Mad() {
    }
}
