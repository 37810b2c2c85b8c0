package io.vibridge.verbs;

/**
 * Passive-side answer to a REQ (the REP fields).
 *
 * @param responderResources READ/atomics we accept concurrently (capped by the REQ's initiator depth)
 * @param initiatorDepth     READ/atomics we issue (capped by the REQ's responder resources)
 * @param rnrRetryCount      the active QP's RNR retry count (REP byte 27), 7 = unlimited
 * @param minRnrTimer        RNR NAK timer code we send as responder
 */
public record AcceptParams(byte[] privateData, int responderResources, int initiatorDepth, int rnrRetryCount,
                           int minRnrTimer) {
    public AcceptParams {
        privateData = privateData == null ? new byte[0] : privateData.clone();
        if (privateData.length > ConnectionManager.REP_PRIVATE_DATA) {
            throw new IllegalArgumentException("REP private data is at most 196 bytes, got " + privateData.length);
        }
        ConnectParams.check("responderResources", responderResources, 0, 255);
        ConnectParams.check("initiatorDepth", initiatorDepth, 0, 255);
        ConnectParams.check("rnrRetryCount", rnrRetryCount, 0, 7);
        ConnectParams.check("minRnrTimer", minRnrTimer, 0, 31);
    }

    public static AcceptParams defaults(byte[] privateData) {
        return new AcceptParams(privateData, 4, 4, 7, 12);
    }

    public AcceptParams withRnr(int rnrRetryCount, int minRnrTimer) {
        return new AcceptParams(privateData, responderResources, initiatorDepth, rnrRetryCount, minRnrTimer);
    }
}
