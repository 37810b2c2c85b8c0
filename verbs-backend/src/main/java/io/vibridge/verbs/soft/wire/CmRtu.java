package io.vibridge.verbs.soft.wire;

import java.util.Arrays;

/**
 * CM RTU (attribute 0x0014, REF §5.5): Local and Remote Communication IDs and 224 bytes of private data.
 *
 * @param localCommId  sender's ID
 * @param remoteCommId receiver's ID
 * @param privateData  224 bytes (shorter is zero-padded)
 */
public record CmRtu(int localCommId, int remoteCommId, byte[] privateData) implements CmMessage {

    public static final int PRIVATE_DATA_SIZE = 224;

    public CmRtu {
        privateData = CmFields.pad("RTU", privateData, PRIVATE_DATA_SIZE);
    }

    @Override
    public int attributeId() {
        return Mad.ATTR_RTU;
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CmRtu r && localCommId == r.localCommId && remoteCommId == r.remoteCommId
            && Arrays.equals(privateData, r.privateData);
    }

    @Override
    public int hashCode() {
        return (localCommId * 31 + remoteCommId) * 31 + Arrays.hashCode(privateData);
    }

    @Override
    public String toString() {
        return "CmRtu[localCommId=0x" + Integer.toHexString(localCommId) + ", remoteCommId=0x"
            + Integer.toHexString(remoteCommId) + ", privateData=" + CmFields.hex(privateData) + "]";
    }
}
