package io.vibridge.vitcp.provider;

import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.util.Objects;

/**
 * VIP_VI_ATTRIBUTES (VIA 9.10.5) plus the VI/TCP extensions (draft 2.2.1): descriptor flow control and
 * the RDMA read window.
 *
 * @param reliabilityLevel requested class of service
 * @param maxTransferSize requested MTU (>= 32 KiB); after connecting, {@link Vi#negotiated()} gives the agreed one
 * @param ptag protection tag of the VI
 * @param enableRdmaWrite accept remote RDMA Writes on this VI
 * @param enableRdmaRead accept remote RDMA Reads on this VI
 * @param flowControl ask for descriptor flow control (in force only if both sides ask)
 * @param rdmaReadWindow inbound RDMA Reads this VI holds outstanding for its peer
 */
public record ViAttributes(ReliabilityLevel reliabilityLevel, long maxTransferSize, ProtectionTag ptag,
        boolean enableRdmaWrite, boolean enableRdmaRead, boolean flowControl, int rdmaReadWindow) {

    public static final long DEFAULT_MTU = 1 << 20;
    public static final int DEFAULT_READ_WINDOW = 4;

    public ViAttributes {
        Objects.requireNonNull(reliabilityLevel, "reliabilityLevel");
        Objects.requireNonNull(ptag, "ptag");
        if (maxTransferSize < 0 || maxTransferSize > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("maxTransferSize " + maxTransferSize);
        }
        if (rdmaReadWindow < 0 || rdmaReadWindow > 0xFFFF) {
            throw new IllegalArgumentException("rdmaReadWindow " + rdmaReadWindow);
        }
    }

    /** Defaults: 1 MiB MTU, RDMA Write and Read enabled (Read not at Unreliable Delivery), no flow control. */
    public static ViAttributes of(ReliabilityLevel level, ProtectionTag ptag) {
        boolean read = level != ReliabilityLevel.UNRELIABLE_DELIVERY;
        return new ViAttributes(level, DEFAULT_MTU, ptag, true, read, false, read ? DEFAULT_READ_WINDOW : 0);
    }

    public ViAttributes withMtu(long mtu) {
        return new ViAttributes(reliabilityLevel, mtu, ptag, enableRdmaWrite, enableRdmaRead, flowControl, rdmaReadWindow);
    }

    public ViAttributes withFlowControl(boolean on) {
        return new ViAttributes(reliabilityLevel, maxTransferSize, ptag, enableRdmaWrite, enableRdmaRead, on, rdmaReadWindow);
    }

    public ViAttributes withRdma(boolean write, boolean read) {
        return new ViAttributes(reliabilityLevel, maxTransferSize, ptag, write, read, flowControl, rdmaReadWindow);
    }

    public ViAttributes withReadWindow(int window) {
        return new ViAttributes(reliabilityLevel, maxTransferSize, ptag, enableRdmaWrite, enableRdmaRead, flowControl, window);
    }

    public ViAttributes withPtag(ProtectionTag tag) {
        return new ViAttributes(reliabilityLevel, maxTransferSize, tag, enableRdmaWrite, enableRdmaRead, flowControl, rdmaReadWindow);
    }
}
