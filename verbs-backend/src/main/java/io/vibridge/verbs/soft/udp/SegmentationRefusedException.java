package io.vibridge.verbs.soft.udp;

import java.io.IOException;

/**
 * A segmented send was refused (the route's device cannot checksum or segment UDP); nothing was sent,
 * and {@link UdpSocket#segmentationOffload()} is false from now on. Resend the datagrams one by one.
 */
public final class SegmentationRefusedException extends IOException {
    SegmentationRefusedException(String message) {
        super(message);
    }
}
