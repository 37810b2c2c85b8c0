package io.vibridge.verbs.soft.wire;

import java.util.Arrays;

/**
 * CM DREP (attribute 0x0016, REF §5.5): Local and Remote Communication IDs and 224 bytes of private data.
 *
 * @param localCommId  sender's ID
 * @param remoteCommId receiver's ID
 * @param privateData  224 bytes (shorter is zero-padded)
 */
public record CmDrep(int localCommId, int remoteCommId, byte[] privateData) implements CmMessage {

    public static final int PRIVATE_DATA_SIZE = 224;

    public CmDrep {
        privateData = CmFields.pad("DREP", privateData, PRIVATE_DATA_SIZE);
    }

    @Override
    public int attributeId() {
        return Mad.ATTR_DREP;
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CmDrep r && localCommId == r.localCommId && remoteCommId == r.remoteCommId
            && Arrays.equals(privateData, r.privateData);
    }

    @Override
    public int hashCode() {
        return (localCommId * 31 + remoteCommId) * 31 + Arrays.hashCode(privateData);
    }

    @Override
    public String toString() {
        return "CmDrep[localCommId=0x" + Integer.toHexString(localCommId) + ", remoteCommId=0x"
            + Integer.toHexString(remoteCommId) + ", privateData=" + CmFields.hex(privateData) + "]";
    }
}
