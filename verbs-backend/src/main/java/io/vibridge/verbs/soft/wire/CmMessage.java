package io.vibridge.verbs.soft.wire;

/**
 * A CM message (REF §5.3-5.5), carried in the 232-byte data area of a CM MAD. Records are
 * immutable: private data is copied in (zero-padded to the message's fixed size) and copied out.
 */
public sealed interface CmMessage permits CmReq, CmRep, CmRtu, CmRej, CmDreq, CmDrep, CmMra {

    /** MAD attribute ID of this message type. */
    int attributeId();

    /** Sender's Local Communication ID. */
    int localCommId();

    /** A copy of the private data, always of the message type's full size. */
    byte[] privateData();
}
