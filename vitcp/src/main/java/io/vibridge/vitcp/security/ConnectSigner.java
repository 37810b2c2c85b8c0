package io.vibridge.vitcp.security;

import io.vibridge.vitcp.wire.ConnectionHeader;
import io.vibridge.vitcp.wire.ProtocolException;
import io.vibridge.vitcp.wire.SegmentType;
import io.vibridge.vitcp.wire.SegmentView;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Security Type 1 (VITCP-PROFILE §5): signs and verifies Connect Request / Connect Accept segments.
 *
 * <p>Security Information (40 bytes) = 8-byte timestamp (milliseconds since the Unix epoch,
 * big-endian) + 32-byte HMAC-SHA256, keyed with the shared secret, over the whole segment (segment
 * header and CE header, timestamp and padding included) with the 32 HMAC bytes zeroed.
 *
 * <p>{@link #verify} refuses a segment that is unsigned, of an unknown security type, of Security
 * Type 1 with a Security Length other than 40, wrongly signed, more than the clock window (default
 * {@value #CLOCK_WINDOW_MILLIS} ms) away from this side's clock, signed before this signer was created, or
 * whose HMAC was accepted while its timestamp is still within the window.
 *
 * <p>Why these bounds: the replay memory is in this process. The clock window bounds how long a
 * captured request stays usable at all; refusing timestamps older than this signer's creation makes a
 * restarted gateway refuse every request signed before it started, which a previous instance may have
 * accepted (a signer whose clock ran ahead of ours by more than the restart took can still get one replay
 * through). Replicas behind a load balancer do not share the memory: a captured request can be replayed once
 * per replica within the window. A shared store would close that; none is built.
 *
 * <p>The replay memory is bounded ({@link ReplayGuard}, default {@value #DEFAULT_REPLAY_CAPACITY} entries,
 * {@value #DEFAULT_REPLAY_PER_CLIENT} per client); only segments that carry a valid signature and a fresh
 * timestamp are recorded, so a peer without the key cannot fill it, and a full guard or client share refuses
 * new connects ({@link VerifyResult#REPLAY_GUARD_FULL}, IS 14) rather than forgetting.
 *
 * <p>Thread-safe: a passive provider may verify from several threads.
 */
public final class ConnectSigner {

    /** Default clock window: NTP keeps hosts within milliseconds; 5 s leaves room for a slow first sync. */
    public static final long CLOCK_WINDOW_MILLIS = 5_000;
    public static final int DEFAULT_REPLAY_CAPACITY = 4096;
    /** At 10 s of memory (twice the default window) a client may connect 50 times a second with one key. */
    public static final int DEFAULT_REPLAY_PER_CLIENT = 512;
    /** Shortest accepted key. */
    public static final int MIN_KEY_LENGTH = 16;
    static final int TIMESTAMP_LENGTH = 8;
    static final int MAC_LENGTH = 32;
    private static final String ALGORITHM = "HmacSHA256";

    /**
     * The verifier's bounds.
     *
     * @param clockWindowMillis how far a timestamp may be from this side's clock, either way
     * @param replayCapacity    most HMACs remembered at once (bounds memory)
     * @param replayPerClient   most HMACs remembered at once for one client, 1..replayCapacity
     */
    public record Policy(long clockWindowMillis, int replayCapacity, int replayPerClient) {
        public static final Policy DEFAULT = new Policy(CLOCK_WINDOW_MILLIS, DEFAULT_REPLAY_CAPACITY,
                DEFAULT_REPLAY_PER_CLIENT);

        public Policy {
            if (clockWindowMillis < 1) {
                throw new IllegalArgumentException("clock window " + clockWindowMillis + " ms < 1");
            }
        }
    }

    private final SecretKeySpec key;
    private final InstantSource clock;
    private final long clockWindowMillis;
    /** This signer's creation: a timestamp before it may have been accepted by a previous instance. */
    private final long startMillis;
    private final ReplayGuard replayGuard;

    /** With the default policy. */
    public ConnectSigner(byte[] key, InstantSource clock) {
        this(key, clock, Policy.DEFAULT);
    }

    /** With the default policy but {@code replayCapacity} entries (the per-client share capped to it). */
    public ConnectSigner(byte[] key, InstantSource clock, int replayCapacity) {
        this(key, clock, new Policy(CLOCK_WINDOW_MILLIS, replayCapacity, Math.min(replayCapacity,
                DEFAULT_REPLAY_PER_CLIENT)));
    }

    /**
     * @param key shared secret, at least 16 bytes (32 random bytes recommended); copied
     */
    public ConnectSigner(byte[] key, InstantSource clock, Policy policy) {
        Objects.requireNonNull(key, "key");
        if (key.length < MIN_KEY_LENGTH) {
            throw new IllegalArgumentException("HMAC key of " + key.length + " bytes is shorter than "
                    + MIN_KEY_LENGTH);
        }
        this.key = new SecretKeySpec(key.clone(), ALGORITHM);
        this.clock = Objects.requireNonNull(clock, "clock");
        this.clockWindowMillis = policy.clockWindowMillis();
        this.startMillis = clock.millis();
        this.replayGuard = new ReplayGuard(policy.replayCapacity(), policy.replayPerClient());
        newMac(); // fail fast if the JDK lacks HmacSHA256
    }

    /**
     * Fills the timestamp and HMAC of an encoded Connect Request/Accept in place.
     *
     * @param len bytes available at {@code off} (at least the segment)
     * @throws ProtocolException when the bytes are not a valid segment
     * @throws IllegalArgumentException when it is not a Connect Request/Accept with Security Type 1
     *     and Security Length 40 (build it with {@link ConnectionHeader#toBeSigned})
     */
    public void sign(ByteBuffer segment, int off, int len) {
        sign(segment, off, len, 0);
    }

    /**
     * As {@link #sign(ByteBuffer, int, int)}, the HMAC also covering the {@code covered} bytes before
     * {@code off}: the seed-004 frame header of a Connect Request/Accept (VITCP-PROFILE §9.11).
     */
    public void sign(ByteBuffer segment, int off, int len, int covered) {
        SegmentView v = requireSignable(segment, off, len);
        if (v.securityType() != ConnectionHeader.SECURITY_HMAC_SHA256) {
            throw new IllegalArgumentException("Security Type is " + v.securityType() + ", signing needs 1");
        }
        if (v.securityLength() != ConnectionHeader.HMAC_SHA256_LENGTH) {
            throw new IllegalArgumentException("Security Length is " + v.securityLength() + ", signing needs 40");
        }
        int info = v.securityInfoOffset();
        long now = clock.millis();
        segment.putLong(info, segment.order() == ByteOrder.BIG_ENDIAN ? now : Long.reverseBytes(now));
        byte[] mac = computeMac(segment, off - covered, covered + v.segmentLength(), info + TIMESTAMP_LENGTH - off + covered);
        segment.put(info + TIMESTAMP_LENGTH, mac);
    }

    /**
     * Verifies a received Connect Request/Accept and, when it is valid, records it against replay.
     *
     * @throws ProtocolException when the bytes are not a valid segment
     * @throws IllegalArgumentException when the segment is not a Connect Request/Accept
     */
    public VerifyResult verify(ByteBuffer segment, int off, int len) {
        return verify(segment, off, len, 0);
    }

    /** As {@link #verify(ByteBuffer, int, int)} for a segment signed with {@code covered} bytes before it. */
    public VerifyResult verify(ByteBuffer segment, int off, int len, int covered) {
        return verify(segment, off, len, covered, null);
    }

    /**
     * As {@link #verify(ByteBuffer, int, int, int)}, the replay memory's entry charged to {@code client} (e.g. its IP
     * address; null: no per-client share).
     */
    public VerifyResult verify(ByteBuffer segment, int off, int len, int covered, Object client) {
        SegmentView v = requireSignable(segment, off, len);
        int type = v.securityType();
        if (type == ConnectionHeader.SECURITY_NONE) {
            return VerifyResult.UNSIGNED;
        }
        if (type != ConnectionHeader.SECURITY_HMAC_SHA256) {
            return VerifyResult.WRONG_TYPE;
        }
        if (v.securityLength() != ConnectionHeader.HMAC_SHA256_LENGTH) {
            // VITCP-PROFILE §5: Security Type 1 is 40 bytes; the timestamp and HMAC are not where they
            // belong (or not there at all), whatever the bytes say
            return VerifyResult.MALFORMED;
        }
        int info = v.securityInfoOffset();
        int macAt = info + TIMESTAMP_LENGTH;
        byte[] received = new byte[MAC_LENGTH];
        segment.get(macAt, received);
        byte[] expected = computeMac(segment, off - covered, covered + v.segmentLength(), macAt - off + covered);
        if (!MessageDigest.isEqual(expected, received)) {
            return VerifyResult.BAD_SIGNATURE;
        }
        long raw = segment.getLong(info);
        long timestamp = segment.order() == ByteOrder.BIG_ENDIAN ? raw : Long.reverseBytes(raw);
        long now = clock.millis();
        if (timestamp < now - clockWindowMillis || timestamp > now + clockWindowMillis) {
            return VerifyResult.CLOCK_SKEW;
        }
        if (timestamp < startMillis) {
            return VerifyResult.SIGNED_BEFORE_START;
        }
        // remembered until the clock check refuses it by itself: timestamp + window
        return switch (replayGuard.admit(received, client, timestamp + clockWindowMillis + 1, now)) {
            case FRESH -> VerifyResult.OK;
            case REPLAY -> VerifyResult.REPLAY;
            case FULL -> VerifyResult.REPLAY_GUARD_FULL;
        };
    }

    /** HMACs currently remembered against replay. */
    public int replayGuardSize() {
        return replayGuard.size();
    }

    /** HMACs currently remembered for {@code client}. */
    public int replayGuardSize(Object client) {
        return replayGuard.size(client);
    }

    public int replayGuardCapacity() {
        return replayGuard.capacity();
    }

    private static SegmentView requireSignable(ByteBuffer segment, int off, int len) {
        SegmentView v = new SegmentView().wrap(segment, off, len);
        if (v.type() != SegmentType.CONNECT_REQUEST && v.type() != SegmentType.CONNECT_ACCEPT) {
            throw new IllegalArgumentException(v.type() + " carries no security information");
        }
        return v;
    }

    /** HMAC over {@code length} bytes at {@code off}, with the 32 bytes at {@code off + macRel} zeroed. */
    private byte[] computeMac(ByteBuffer segment, int off, int length, int macRel) {
        byte[] copy = new byte[length];
        segment.get(off, copy);
        Arrays.fill(copy, macRel, macRel + MAC_LENGTH, (byte) 0);
        return newMac().doFinal(copy);
    }

    private Mac newMac() {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }
}
