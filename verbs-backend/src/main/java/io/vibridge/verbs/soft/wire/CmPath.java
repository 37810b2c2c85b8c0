package io.vibridge.verbs.soft.wire;

/**
 * A REQ path description, primary (REQ bytes 52-95) or alternate (96-139) (REF §5.3).
 *
 * @param localLid        16-bit; RoCE: 0xFFFF
 * @param remoteLid       16-bit; RoCE: 0xFFFF
 * @param localGid        active side's IP as GID
 * @param remoteGid       passive side's IP as GID
 * @param flowLabel       20-bit
 * @param packetRate      6-bit IB rate enum
 * @param trafficClass    8-bit
 * @param hopLimit        8-bit
 * @param sl              4-bit service level
 * @param subnetLocal     1 only if hop limit <= 1
 * @param localAckTimeout 5-bit (4.096 us * 2^v)
 */
public record CmPath(int localLid, int remoteLid, Gid localGid, Gid remoteGid, int flowLabel, int packetRate,
                     int trafficClass, int hopLimit, int sl, boolean subnetLocal, int localAckTimeout) {

    /** "No alternate path": all zero. */
    public static final CmPath NONE = new CmPath(0, 0, Gid.ZERO, Gid.ZERO, 0, 0, 0, 0, 0, false, 0);

    public CmPath {
        CmFields.bits("localLid", localLid, 16);
        CmFields.bits("remoteLid", remoteLid, 16);
        if (localGid == null || remoteGid == null) {
            throw new IllegalArgumentException("GIDs must not be null");
        }
        CmFields.bits("flowLabel", flowLabel, 20);
        CmFields.bits("packetRate", packetRate, 6);
        CmFields.bits("trafficClass", trafficClass, 8);
        CmFields.bits("hopLimit", hopLimit, 8);
        CmFields.bits("sl", sl, 4);
        CmFields.bits("localAckTimeout", localAckTimeout, 5);
    }

    /**
     * A RoCEv2 path as Linux rdma_cm fills it: permissive LIDs, flow label 0, rate 0, the given
     * traffic class and hop limit, SL 0, subnet-local only when the hop limit is at most 1.
     */
    public static CmPath roce(Gid localGid, Gid remoteGid, int trafficClass, int hopLimit, int localAckTimeout) {
        return new CmPath(0xFFFF, 0xFFFF, localGid, remoteGid, 0, 0, trafficClass, hopLimit, 0, hopLimit <= 1,
            localAckTimeout);
    }
}
