package io.vibridge.verbs.soft.wire;

import java.util.Arrays;
import java.util.Objects;

/**
 * CM REQ (attribute 0x0010), every field of REF §5.3. Reserved bits are not kept (sent as 0).
 *
 * @param localCommId             sender's 32-bit connection handle
 * @param eceVendorId             24-bit ECE vendor ID (bytes 5-7, newer Linux), 0 unless ECE
 * @param serviceId               64-bit Service ID
 * @param localCaGuid             sender's node GUID
 * @param localQkey               0 for RC
 * @param localQpn                24-bit active QPN
 * @param responderResources      8-bit
 * @param localEecn               24-bit, 0
 * @param initiatorDepth          8-bit
 * @param remoteEecn              24-bit, 0
 * @param remoteCmResponseTimeout 5-bit
 * @param transportServiceType    2-bit: 0 RC, 1 UC, 2 RD, 3 extended
 * @param endToEndFlowControl     requester honours AETH credits
 * @param startingPsn             24-bit
 * @param localCmResponseTimeout  5-bit
 * @param retryCount              3-bit
 * @param partitionKey            16-bit
 * @param pathMtu                 4-bit IB MTU enum (1=256 .. 5=4096)
 * @param rdcExists               RDC exists bit
 * @param rnrRetryCount           3-bit (7 = infinite)
 * @param maxCmRetries            4-bit
 * @param srq                     active side uses an SRQ
 * @param extendedTransportType   3-bit, 1 = XRC
 * @param primaryPath             primary path
 * @param alternatePath           alternate path, {@link CmPath#NONE} if none
 * @param sapSupported            bit 2 of byte 139
 * @param privateData             92 bytes (shorter is zero-padded)
 */
public record CmReq(int localCommId, int eceVendorId, long serviceId, long localCaGuid, int localQkey, int localQpn,
                    int responderResources, int localEecn, int initiatorDepth, int remoteEecn,
                    int remoteCmResponseTimeout, int transportServiceType, boolean endToEndFlowControl,
                    int startingPsn, int localCmResponseTimeout, int retryCount, int partitionKey, int pathMtu,
                    boolean rdcExists, int rnrRetryCount, int maxCmRetries, boolean srq, int extendedTransportType,
                    CmPath primaryPath, CmPath alternatePath, boolean sapSupported, byte[] privateData)
        implements CmMessage {

    public static final int PRIVATE_DATA_SIZE = 92;

    public CmReq {
        CmFields.bits("eceVendorId", eceVendorId, 24);
        CmFields.bits("localQpn", localQpn, 24);
        CmFields.bits("responderResources", responderResources, 8);
        CmFields.bits("localEecn", localEecn, 24);
        CmFields.bits("initiatorDepth", initiatorDepth, 8);
        CmFields.bits("remoteEecn", remoteEecn, 24);
        CmFields.bits("remoteCmResponseTimeout", remoteCmResponseTimeout, 5);
        CmFields.bits("transportServiceType", transportServiceType, 2);
        CmFields.bits("startingPsn", startingPsn, 24);
        CmFields.bits("localCmResponseTimeout", localCmResponseTimeout, 5);
        CmFields.bits("retryCount", retryCount, 3);
        CmFields.bits("partitionKey", partitionKey, 16);
        CmFields.bits("pathMtu", pathMtu, 4);
        CmFields.bits("rnrRetryCount", rnrRetryCount, 3);
        CmFields.bits("maxCmRetries", maxCmRetries, 4);
        CmFields.bits("extendedTransportType", extendedTransportType, 3);
        Objects.requireNonNull(primaryPath, "primaryPath");
        Objects.requireNonNull(alternatePath, "alternatePath (use CmPath.NONE)");
        privateData = CmFields.pad("REQ", privateData, PRIVATE_DATA_SIZE);
    }

    /**
     * An RC REQ with Linux rdma_cm defaults for the fields a RoCE peer does not vary: Q_Key 0,
     * EECNs 0, RC, no end-to-end flow control, P_Key 0xFFFF, no RDC, no SRQ, no XRC, no alternate
     * path, no ECE.
     */
    public static CmReq rc(int localCommId, long serviceId, long localCaGuid, int localQpn, int startingPsn,
                           int responderResources, int initiatorDepth, int remoteCmResponseTimeout,
                           int localCmResponseTimeout, int retryCount, int rnrRetryCount, int pathMtu,
                           int maxCmRetries, CmPath primaryPath, byte[] privateData) {
        return new CmReq(localCommId, 0, serviceId, localCaGuid, 0, localQpn, responderResources, 0, initiatorDepth,
            0, remoteCmResponseTimeout, 0, false, startingPsn, localCmResponseTimeout, retryCount, Bth.DEFAULT_PKEY,
            pathMtu, false, rnrRetryCount, maxCmRetries, false, 0, primaryPath, CmPath.NONE, false, privateData);
    }

    @Override
    public int attributeId() {
        return Mad.ATTR_REQ;
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CmReq r && localCommId == r.localCommId && eceVendorId == r.eceVendorId
            && serviceId == r.serviceId && localCaGuid == r.localCaGuid && localQkey == r.localQkey
            && localQpn == r.localQpn && responderResources == r.responderResources && localEecn == r.localEecn
            && initiatorDepth == r.initiatorDepth && remoteEecn == r.remoteEecn
            && remoteCmResponseTimeout == r.remoteCmResponseTimeout
            && transportServiceType == r.transportServiceType && endToEndFlowControl == r.endToEndFlowControl
            && startingPsn == r.startingPsn && localCmResponseTimeout == r.localCmResponseTimeout
            && retryCount == r.retryCount && partitionKey == r.partitionKey && pathMtu == r.pathMtu
            && rdcExists == r.rdcExists && rnrRetryCount == r.rnrRetryCount && maxCmRetries == r.maxCmRetries
            && srq == r.srq && extendedTransportType == r.extendedTransportType
            && primaryPath.equals(r.primaryPath) && alternatePath.equals(r.alternatePath)
            && sapSupported == r.sapSupported && Arrays.equals(privateData, r.privateData);
    }

    @Override
    public int hashCode() {
        return Objects.hash(localCommId, serviceId, localCaGuid, localQpn, startingPsn, primaryPath)
            * 31 + Arrays.hashCode(privateData);
    }

    @Override
    public String toString() {
        return "CmReq[localCommId=0x" + Integer.toHexString(localCommId) + ", serviceId=0x"
            + Long.toHexString(serviceId) + ", localCaGuid=0x" + Long.toHexString(localCaGuid)
            + ", localQkey=" + localQkey + ", localQpn=0x" + Integer.toHexString(localQpn)
            + ", responderResources=" + responderResources + ", initiatorDepth=" + initiatorDepth
            + ", remoteCmResponseTimeout=" + remoteCmResponseTimeout + ", transportServiceType="
            + transportServiceType + ", e2eFlowControl=" + endToEndFlowControl + ", startingPsn=0x"
            + Integer.toHexString(startingPsn) + ", localCmResponseTimeout=" + localCmResponseTimeout
            + ", retryCount=" + retryCount + ", pkey=0x" + Integer.toHexString(partitionKey) + ", pathMtu=" + pathMtu
            + ", rdcExists=" + rdcExists + ", rnrRetryCount=" + rnrRetryCount + ", maxCmRetries=" + maxCmRetries
            + ", srq=" + srq + ", extendedTransportType=" + extendedTransportType + ", eceVendorId=" + eceVendorId
            + ", localEecn=" + localEecn + ", remoteEecn=" + remoteEecn + ", primaryPath=" + primaryPath
            + ", alternatePath=" + alternatePath + ", sapSupported=" + sapSupported
            + ", privateData=" + CmFields.hex(privateData) + "]";
    }
}
