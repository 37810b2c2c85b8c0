package io.vibridge.gateway.tools;

import java.util.Arrays;

/**
 * Latency figures as perftest's {@code ib_*_lat} report them, in microseconds: minimum, maximum, typical
 * (the median), average, standard deviation (of the whole population) and the 99% and 99.9% percentiles
 * (the sample at rank ceil(n × p)). A Send latency is ONE-WAY: perftest's {@code ib_send_lat} divides each
 * ping-pong round trip by two ({@code rtt_factor}), and so does {@link #oneWay}; an operation that is itself
 * a round trip (a READ, a connection setup) is reported whole ({@link #whole}).
 *
 * @param rttFactor what the measured times were divided by (2: one-way, 1: whole)
 */
public record Latency(double min, double max, double typical, double avg, double stdev, double p99, double p999,
                      int rttFactor) {

    /** Half of each round trip in {@code rttNanos} (sorted in place). */
    public static Latency oneWay(long[] rttNanos) {
        return of(rttNanos, 2);
    }

    /** Each time in {@code nanos} whole (sorted in place). */
    public static Latency whole(long[] nanos) {
        return of(nanos, 1);
    }

    private static Latency of(long[] t, int factor) {
        int n = t.length;
        if (n == 0) {
            throw new IllegalArgumentException("no samples");
        }
        Arrays.sort(t);
        double unit = 1e3 * factor;     // ns -> us, then one-way
        double sum = 0;
        for (long v : t) {
            sum += v;
        }
        double avg = sum / n;
        double squares = 0;
        for (long v : t) {
            squares += (v - avg) * (v - avg);
        }
        // perftest's median: the mean of the two middle samples of an even count
        double median = n % 2 == 0 ? (t[n / 2 - 1] + t[n / 2]) / 2.0 : t[n / 2];
        return new Latency(t[0] / unit, t[n - 1] / unit, median / unit, avg / unit, Math.sqrt(squares / n) / unit,
                t[rank(n, 0.99)] / unit, t[rank(n, 0.999)] / unit, factor);
    }

    private static int rank(int n, double p) {
        return Math.min(n - 1, Math.max(0, (int) Math.ceil(n * p) - 1));
    }

    /** The typical round trip: {@link #typical} times what it was divided by. */
    public double typicalRoundTrip() {
        return typical * rttFactor;
    }
}
