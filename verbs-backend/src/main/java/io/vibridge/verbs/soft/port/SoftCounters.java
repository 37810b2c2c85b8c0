package io.vibridge.verbs.soft.port;

import io.vibridge.verbs.DeviceCounters;
import java.util.concurrent.atomic.LongAdder;

/** Lock-free counters of one soft device. */
public final class SoftCounters {
    public final LongAdder packetsOut = new LongAdder();
    public final LongAdder bytesOut = new LongAdder();
    public final LongAdder packetsIn = new LongAdder();
    public final LongAdder bytesIn = new LongAdder();
    public final LongAdder retransmissions = new LongAdder();
    public final LongAdder timeouts = new LongAdder();
    /** NAKs sent, indexed by NAK code 0..3. */
    public final LongAdder[] naksSent = adders(4);
    public final LongAdder rnrNaksSent = new LongAdder();
    public final LongAdder[] naksReceived = adders(4);
    public final LongAdder rnrNaksReceived = new LongAdder();
    public final LongAdder rnrWaits = new LongAdder();
    /** Time requesters spent waiting after RNR NAKs, summed over QPs (a QP waits at most once at a time). */
    public final LongAdder rnrWaitNanos = new LongAdder();
    public final LongAdder icrcDrops = new LongAdder();
    public final LongAdder icrcAnyIdAccepts = new LongAdder();
    public final LongAdder malformedDrops = new LongAdder();
    public final LongAdder duplicates = new LongAdder();
    public final LongAdder outOfSequence = new LongAdder();
    public final LongAdder faultDrops = new LongAdder();
    public final LongAdder faultDuplicates = new LongAdder();
    public final LongAdder faultReorders = new LongAdder();
    public final LongAdder faultCorruptions = new LongAdder();

    private static LongAdder[] adders(int n) {
        LongAdder[] a = new LongAdder[n];
        for (int i = 0; i < n; i++) {
            a[i] = new LongAdder();
        }
        return a;
    }

    public DeviceCounters snapshot() {
        return new DeviceCounters(packetsOut.sum(), bytesOut.sum(), packetsIn.sum(), bytesIn.sum(),
                retransmissions.sum(), timeouts.sum(),
                naksSent[0].sum(), naksSent[1].sum(), naksSent[2].sum(), naksSent[3].sum(), rnrNaksSent.sum(),
                naksReceived[0].sum(), naksReceived[1].sum(), naksReceived[2].sum(), naksReceived[3].sum(),
                rnrNaksReceived.sum(), rnrWaits.sum(), rnrWaitNanos.sum(),
                icrcDrops.sum(), icrcAnyIdAccepts.sum(), malformedDrops.sum(),
                duplicates.sum(), outOfSequence.sum(),
                faultDrops.sum(), faultDuplicates.sum(), faultReorders.sum(), faultCorruptions.sum());
    }
}
