package io.vibridge.verbs.soft.wire;

import java.util.Arrays;

/**
 * CM DREQ (attribute 0x0015, REF §5.5).
 *
 * @param localCommId  sender's ID
 * @param remoteCommId receiver's ID
 * @param remoteQpn    24-bit: the receiver's QPN (Linux ignores a DREQ that does not match its QP)
 * @param privateData  220 bytes (shorter is zero-padded)
 */
public record CmDreq(int localCommId, int remoteCommId, int remoteQpn, byte[] privateData) implements CmMessage {

    public static final int PRIVATE_DATA_SIZE = 220;

    public CmDreq {
        CmFields.bits("remoteQpn", remoteQpn, 24);
        privateData = CmFields.pad("DREQ", privateData, PRIVATE_DATA_SIZE);
    }

    @Override
    public int attributeId() {
        return Mad.ATTR_DREQ;
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CmDreq r && localCommId == r.localCommId && remoteCommId == r.remoteCommId
            && remoteQpn == r.remoteQpn && Arrays.equals(privateData, r.privateData);
    }

    @Override
    public int hashCode() {
        return ((localCommId * 31 + remoteCommId) * 31 + remoteQpn) * 31 + Arrays.hashCode(privateData);
    }

    @Override
    public String toString() {
        return "CmDreq[localCommId=0x" + Integer.toHexString(localCommId) + ", remoteCommId=0x"
            + Integer.toHexString(remoteCommId) + ", remoteQpn=0x" + Integer.toHexString(remoteQpn)
            + ", privateData=" + CmFields.hex(privateData) + "]";
    }
}
