package io.vibridge.verbs.soft.udp;

import java.io.IOException;

/** The kernel lacks UDP segmentation offload ({@code UDP_SEGMENT} or {@code UDP_GRO}). */
public final class OffloadUnavailableException extends IOException {
    OffloadUnavailableException(String message) {
        super(message);
    }
}
