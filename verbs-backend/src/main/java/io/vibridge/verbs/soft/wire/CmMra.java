package io.vibridge.verbs.soft.wire;

import java.util.Arrays;
import java.util.Objects;

/**
 * CM MRA (attribute 0x0011, REF §5.5).
 *
 * @param localCommId    sender's ID
 * @param remoteCommId   receiver's ID
 * @param messageMraed   the message acknowledged (byte 8 bits 7:6)
 * @param serviceTimeout 5-bit extra time needed (byte 9 bits 7:3)
 * @param privateData    222 bytes (shorter is zero-padded)
 */
public record CmMra(int localCommId, int remoteCommId, CmTargetMessage messageMraed, int serviceTimeout,
                    byte[] privateData) implements CmMessage {

    public static final int PRIVATE_DATA_SIZE = 222;

    public CmMra {
        Objects.requireNonNull(messageMraed, "messageMraed");
        CmFields.bits("serviceTimeout", serviceTimeout, 5);
        privateData = CmFields.pad("MRA", privateData, PRIVATE_DATA_SIZE);
    }

    @Override
    public int attributeId() {
        return Mad.ATTR_MRA;
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CmMra r && localCommId == r.localCommId && remoteCommId == r.remoteCommId
            && messageMraed == r.messageMraed && serviceTimeout == r.serviceTimeout
            && Arrays.equals(privateData, r.privateData);
    }

    @Override
    public int hashCode() {
        return Objects.hash(localCommId, remoteCommId, messageMraed, serviceTimeout) * 31
            + Arrays.hashCode(privateData);
    }

    @Override
    public String toString() {
        return "CmMra[localCommId=0x" + Integer.toHexString(localCommId) + ", remoteCommId=0x"
            + Integer.toHexString(remoteCommId) + ", messageMraed=" + messageMraed + ", serviceTimeout="
            + serviceTimeout + ", privateData=" + CmFields.hex(privateData) + "]";
    }
}
