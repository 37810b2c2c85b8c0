package io.vibridge.verbs.soft.wire;

import java.util.Objects;

/**
 * A decoded CM MAD.
 *
 * @param header  the MAD common header (TID, attribute modifier, ...)
 * @param message the CM message of the data area
 */
public record CmMad(MadHeader header, CmMessage message) {

    public CmMad {
        Objects.requireNonNull(header, "header");
        Objects.requireNonNull(message, "message");
    }
}
