package io.vibridge.verbs.disni;

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import io.vibridge.verbs.Access;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.VerbsException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Set;

/** ibv_pd through DiSNI. */
final class DisniProtectionDomain implements ProtectionDomain {
    final DisniDevice device;
    final IbvPd pd;

    DisniProtectionDomain(DisniDevice device, IbvPd pd) {
        this.device = device;
        this.pd = pd;
    }

    static int accessFlags(Set<Access> access) {
        int f = 0;
        if (access.contains(Access.LOCAL_WRITE)) {
            f |= IbvMr.IBV_ACCESS_LOCAL_WRITE;
        }
        if (access.contains(Access.REMOTE_WRITE)) {
            f |= IbvMr.IBV_ACCESS_REMOTE_WRITE | IbvMr.IBV_ACCESS_LOCAL_WRITE;   // verbs requires local write
        }
        if (access.contains(Access.REMOTE_READ)) {
            f |= IbvMr.IBV_ACCESS_REMOTE_READ;
        }
        return f;
    }

    @Override
    public MemoryRegion registerMemory(ByteBuffer buffer, Set<Access> access) {
        if (buffer == null || !buffer.isDirect()) {
            throw new IllegalArgumentException("memory regions must be direct ByteBuffers");
        }
        ByteBuffer whole = buffer.duplicate().clear();
        try {
            IbvMr mr = pd.regMr(whole, accessFlags(access)).execute().free().getMr();
            return new DisniMemoryRegion(whole, mr, Set.copyOf(access));
        } catch (IOException e) {
            throw new VerbsException("ibv_reg_mr failed: " + e, e);
        }
    }

    @Override
    public QueuePair createQueuePair(QpInitAttributes attributes) {
        if (!(attributes.sendCq() instanceof DisniCompletionQueue) || !(attributes.recvCq() instanceof DisniCompletionQueue)) {
            throw new IllegalArgumentException("completion queues must belong to the disni provider");
        }
        return new DisniQueuePair(this, attributes);
    }

    @Override
    public void close() {
        try {
            pd.deallocPd();
        } catch (Exception e) {
            throw new VerbsException("ibv_dealloc_pd failed: " + e, e);
        }
    }

    /** ibv_mr through DiSNI. */
    static final class DisniMemoryRegion implements MemoryRegion {
        private final ByteBuffer buffer;
        final IbvMr mr;
        private final Set<Access> access;

        DisniMemoryRegion(ByteBuffer buffer, IbvMr mr, Set<Access> access) {
            this.buffer = buffer;
            this.mr = mr;
            this.access = access;
        }

        @Override
        public ByteBuffer buffer() {
            return buffer;
        }

        @Override
        public long address() {
            return mr.getAddr();
        }

        @Override
        public int length() {
            return mr.getLength();
        }

        @Override
        public int lkey() {
            return mr.getLkey();
        }

        @Override
        public int rkey() {
            return mr.getRkey();
        }

        @Override
        public Set<Access> access() {
            return access;
        }

        @Override
        public void close() {
            try {
                mr.deregMr().execute().free();
            } catch (IOException e) {
                throw new VerbsException("ibv_dereg_mr failed: " + e, e);
            }
        }
    }
}
