package io.vibridge.verbs;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** A snapshot of a device's counters (all since the device was opened). */
public record DeviceCounters(
        long packetsOut, long bytesOut, long packetsIn, long bytesIn,
        long retransmissions, long timeouts,
        long naksSentSequence, long naksSentInvalid, long naksSentAccess, long naksSentOperational, long rnrNaksSent,
        long naksReceivedSequence, long naksReceivedInvalid, long naksReceivedAccess, long naksReceivedOperational,
        long rnrNaksReceived, long rnrWaits, long rnrWaitNanos,
        long icrcDrops, long icrcAnyIdAccepts, long malformedDrops,
        long duplicatesReceived, long outOfSequenceReceived,
        long faultDrops, long faultDuplicates, long faultReorders, long faultCorruptions) {

    /** Without {@code rnrWaitNanos} (0): for providers that do not measure the time spent RNR-waiting. */
    public DeviceCounters(
            long packetsOut, long bytesOut, long packetsIn, long bytesIn,
            long retransmissions, long timeouts,
            long naksSentSequence, long naksSentInvalid, long naksSentAccess, long naksSentOperational,
            long rnrNaksSent,
            long naksReceivedSequence, long naksReceivedInvalid, long naksReceivedAccess,
            long naksReceivedOperational,
            long rnrNaksReceived, long rnrWaits,
            long icrcDrops, long icrcAnyIdAccepts, long malformedDrops,
            long duplicatesReceived, long outOfSequenceReceived,
            long faultDrops, long faultDuplicates, long faultReorders, long faultCorruptions) {
        this(packetsOut, bytesOut, packetsIn, bytesIn, retransmissions, timeouts, naksSentSequence, naksSentInvalid,
                naksSentAccess, naksSentOperational, rnrNaksSent, naksReceivedSequence, naksReceivedInvalid,
                naksReceivedAccess, naksReceivedOperational, rnrNaksReceived, rnrWaits, 0, icrcDrops,
                icrcAnyIdAccepts, malformedDrops, duplicatesReceived, outOfSequenceReceived, faultDrops,
                faultDuplicates, faultReorders, faultCorruptions);
    }

    /**
     * Every counter by name, in declaration order, the names in {@code rdma statistic}'s style
     * ({@code naksSentSequence} is {@code naks_sent_sequence}). Read by listings, not per packet.
     */
    public Map<String, Long> named() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (RecordComponent c : DeviceCounters.class.getRecordComponents()) {
            try {
                m.put(snake(c.getName()), (Long) c.getAccessor().invoke(this));
            } catch (IllegalAccessException | InvocationTargetException e) {
                throw new IllegalStateException(e); // a public record's accessors
            }
        }
        return Collections.unmodifiableMap(m);
    }

    static String snake(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT);
    }
}
