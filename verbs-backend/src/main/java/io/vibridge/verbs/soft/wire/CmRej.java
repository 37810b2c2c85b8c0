package io.vibridge.verbs.soft.wire;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * CM REJ (attribute 0x0012, REF §5.5).
 *
 * @param localCommId          rejecter's ID (0 if it never allocated one)
 * @param remoteCommId         the rejected message's sender's Local Comm ID
 * @param messageRejected      byte 8 bits 7:6
 * @param reason               16-bit reason code, see {@link CmRejectReason}
 * @param additionalRejectInfo ARI, 0..72 bytes; its length is the Reject Info Length field
 * @param privateData          148 bytes (shorter is zero-padded)
 */
public record CmRej(int localCommId, int remoteCommId, CmTargetMessage messageRejected, int reason,
                    byte[] additionalRejectInfo, byte[] privateData) implements CmMessage {

    public static final int PRIVATE_DATA_SIZE = 148;
    public static final int MAX_ARI_LENGTH = 72;

    public CmRej {
        Objects.requireNonNull(messageRejected, "messageRejected");
        CmFields.bits("reason", reason, 16);
        additionalRejectInfo = additionalRejectInfo == null ? new byte[0] : additionalRejectInfo.clone();
        if (additionalRejectInfo.length > MAX_ARI_LENGTH) {
            throw new IllegalArgumentException("REJ ARI is " + additionalRejectInfo.length + " bytes, max 72");
        }
        privateData = CmFields.pad("REJ", privateData, PRIVATE_DATA_SIZE);
    }

    /** A REJ with a listed reason, no ARI and no private data. */
    public static CmRej of(int localCommId, int remoteCommId, CmTargetMessage messageRejected, CmRejectReason reason) {
        return new CmRej(localCommId, remoteCommId, messageRejected, reason.code(), null, null);
    }

    /** The listed reason, or null for an unlisted code. */
    public CmRejectReason rejectReason() {
        return CmRejectReason.of(reason);
    }

    @Override
    public int attributeId() {
        return Mad.ATTR_REJ;
    }

    /** A copy of the ARI. */
    @Override
    public byte[] additionalRejectInfo() {
        return additionalRejectInfo.clone();
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CmRej r && localCommId == r.localCommId && remoteCommId == r.remoteCommId
            && messageRejected == r.messageRejected && reason == r.reason
            && Arrays.equals(additionalRejectInfo, r.additionalRejectInfo)
            && Arrays.equals(privateData, r.privateData);
    }

    @Override
    public int hashCode() {
        return Objects.hash(localCommId, remoteCommId, messageRejected, reason) * 31
            + Arrays.hashCode(additionalRejectInfo) * 17 + Arrays.hashCode(privateData);
    }

    @Override
    public String toString() {
        return "CmRej[localCommId=0x" + Integer.toHexString(localCommId) + ", remoteCommId=0x"
            + Integer.toHexString(remoteCommId) + ", messageRejected=" + messageRejected + ", reason=" + reason
            + (rejectReason() != null ? " (" + rejectReason() + ")" : "") + ", ari="
            + HexFormat.of().formatHex(additionalRejectInfo) + ", privateData="
            + CmFields.hex(privateData) + "]";
    }
}
