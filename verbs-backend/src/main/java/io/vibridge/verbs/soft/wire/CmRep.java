package io.vibridge.verbs.soft.wire;

import java.util.Arrays;
import java.util.Objects;

/**
 * CM REP (attribute 0x0013), every field of REF §5.4.
 *
 * @param localCommId         passive side's ID
 * @param remoteCommId        the REQ's Local Communication ID
 * @param localQkey           0 for RC
 * @param localQpn            24-bit passive QPN
 * @param eceVendorId         24-bit ECE vendor ID (bytes 15, 19, 23), 0 unless ECE
 * @param localEecn           24-bit, 0
 * @param startingPsn         24-bit
 * @param responderResources  8-bit
 * @param initiatorDepth      8-bit
 * @param targetAckDelay      5-bit
 * @param failoverAccepted    2-bit, 0 = accepted
 * @param endToEndFlowControl end-to-end flow control bit
 * @param rnrRetryCount       3-bit
 * @param srq                 SRQ bit
 * @param localCaGuid         passive node GUID
 * @param privateData         196 bytes (shorter is zero-padded)
 */
public record CmRep(int localCommId, int remoteCommId, int localQkey, int localQpn, int eceVendorId, int localEecn,
                    int startingPsn, int responderResources, int initiatorDepth, int targetAckDelay,
                    int failoverAccepted, boolean endToEndFlowControl, int rnrRetryCount, boolean srq,
                    long localCaGuid, byte[] privateData) implements CmMessage {

    public static final int PRIVATE_DATA_SIZE = 196;

    public CmRep {
        CmFields.bits("localQpn", localQpn, 24);
        CmFields.bits("eceVendorId", eceVendorId, 24);
        CmFields.bits("localEecn", localEecn, 24);
        CmFields.bits("startingPsn", startingPsn, 24);
        CmFields.bits("responderResources", responderResources, 8);
        CmFields.bits("initiatorDepth", initiatorDepth, 8);
        CmFields.bits("targetAckDelay", targetAckDelay, 5);
        CmFields.bits("failoverAccepted", failoverAccepted, 2);
        CmFields.bits("rnrRetryCount", rnrRetryCount, 3);
        privateData = CmFields.pad("REP", privateData, PRIVATE_DATA_SIZE);
    }

    /** An RC REP: Q_Key 0, no ECE, EECN 0, failover accepted 0, no flow control, no SRQ. */
    public static CmRep rc(int localCommId, int remoteCommId, int localQpn, int startingPsn, int responderResources,
                           int initiatorDepth, int targetAckDelay, int rnrRetryCount, long localCaGuid,
                           byte[] privateData) {
        return new CmRep(localCommId, remoteCommId, 0, localQpn, 0, 0, startingPsn, responderResources,
            initiatorDepth, targetAckDelay, 0, false, rnrRetryCount, false, localCaGuid, privateData);
    }

    @Override
    public int attributeId() {
        return Mad.ATTR_REP;
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CmRep r && localCommId == r.localCommId && remoteCommId == r.remoteCommId
            && localQkey == r.localQkey && localQpn == r.localQpn && eceVendorId == r.eceVendorId
            && localEecn == r.localEecn && startingPsn == r.startingPsn
            && responderResources == r.responderResources && initiatorDepth == r.initiatorDepth
            && targetAckDelay == r.targetAckDelay && failoverAccepted == r.failoverAccepted
            && endToEndFlowControl == r.endToEndFlowControl && rnrRetryCount == r.rnrRetryCount && srq == r.srq
            && localCaGuid == r.localCaGuid && Arrays.equals(privateData, r.privateData);
    }

    @Override
    public int hashCode() {
        return Objects.hash(localCommId, remoteCommId, localQpn, startingPsn, localCaGuid) * 31
            + Arrays.hashCode(privateData);
    }

    @Override
    public String toString() {
        return "CmRep[localCommId=0x" + Integer.toHexString(localCommId) + ", remoteCommId=0x"
            + Integer.toHexString(remoteCommId) + ", localQkey=" + localQkey + ", localQpn=0x"
            + Integer.toHexString(localQpn) + ", eceVendorId=" + eceVendorId + ", localEecn=" + localEecn
            + ", startingPsn=0x" + Integer.toHexString(startingPsn) + ", responderResources=" + responderResources
            + ", initiatorDepth=" + initiatorDepth + ", targetAckDelay=" + targetAckDelay + ", failoverAccepted="
            + failoverAccepted + ", e2eFlowControl=" + endToEndFlowControl + ", rnrRetryCount=" + rnrRetryCount
            + ", srq=" + srq + ", localCaGuid=0x" + Long.toHexString(localCaGuid) + ", privateData="
            + CmFields.hex(privateData) + "]";
    }
}
