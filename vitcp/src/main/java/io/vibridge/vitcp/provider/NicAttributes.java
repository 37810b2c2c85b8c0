package io.vibridge.vitcp.provider;

/** VIP_NIC_ATTRIBUTES (VIA 9.10.4), as VipQueryNic returns them; all at least the VIA minimums. */
public record NicAttributes(String name, long hardwareVersion, long providerVersion, byte[] localNicAddress,
        boolean threadSafe, int maxDiscriminatorLen, long maxRegisterBytes, long maxRegisterRegions,
        long maxRegisterBlockBytes, int maxVi, int maxDescriptorsPerQueue, int maxSegmentsPerDesc, int maxCq,
        int maxCqEntries, long maxTransferSize, long nativeMtu, int maxPtags) {
}
