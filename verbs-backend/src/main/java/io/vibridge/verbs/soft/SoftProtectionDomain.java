package io.vibridge.verbs.soft;

import io.vibridge.verbs.Access;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.soft.resource.SoftCompletionQueue;
import io.vibridge.verbs.soft.resource.SoftMemoryRegion;
import java.nio.ByteBuffer;
import java.util.Set;

/** Protection domain of the soft device. */
public final class SoftProtectionDomain implements ProtectionDomain {
    private final SoftDevice device;

    SoftProtectionDomain(SoftDevice device) {
        this.device = device;
    }

    @Override
    public MemoryRegion registerMemory(ByteBuffer directBuffer, Set<Access> access) {
        if (directBuffer == null || !directBuffer.isDirect()) {
            throw new IllegalArgumentException("memory regions must be direct ByteBuffers");
        }
        if (directBuffer.isReadOnly() && (access.contains(Access.LOCAL_WRITE) || access.contains(Access.REMOTE_WRITE))) {
            throw new IllegalArgumentException("a read-only buffer cannot be registered writable");
        }
        return new SoftMemoryRegion(this, device.keys(), directBuffer, access);
    }

    @Override
    public QueuePair createQueuePair(QpInitAttributes attributes) {
        if (!(attributes.sendCq() instanceof SoftCompletionQueue s) || !(attributes.recvCq() instanceof SoftCompletionQueue r)) {
            throw new IllegalArgumentException("completion queues must belong to the soft provider");
        }
        return device.createQp(this, s, r, attributes.maxSendWr(), attributes.maxRecvWr());
    }

    @Override
    public void close() {
        // regions and QPs are closed individually
    }

}
