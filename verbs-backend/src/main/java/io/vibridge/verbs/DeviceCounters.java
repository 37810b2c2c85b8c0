package io.vibridge.verbs;

/** A snapshot of a device's counters (all since the device was opened). */
public record DeviceCounters(
        long packetsOut, long bytesOut, long packetsIn, long bytesIn,
        long retransmissions, long timeouts,
        long naksSentSequence, long naksSentInvalid, long naksSentAccess, long naksSentOperational, long rnrNaksSent,
        long naksReceivedSequence, long naksReceivedInvalid, long naksReceivedAccess, long naksReceivedOperational,
        long rnrNaksReceived, long rnrWaits,
        long icrcDrops, long icrcAnyIdAccepts, long malformedDrops,
        long duplicatesReceived, long outOfSequenceReceived,
        long faultDrops, long faultDuplicates, long faultReorders, long faultCorruptions) {
}
