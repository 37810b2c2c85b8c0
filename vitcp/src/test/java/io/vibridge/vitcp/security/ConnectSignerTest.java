package io.vibridge.vitcp.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.vitcp.wire.ConnectAccept;
import io.vibridge.vitcp.wire.ConnectReject;
import io.vibridge.vitcp.wire.ConnectRequest;
import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.ConnectionHeader;
import io.vibridge.vitcp.wire.ControlSegment;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.ProtocolException;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/** Security Type 1 signing and verification (VITCP-PROFILE §5). */
class ConnectSignerTest {

    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final long T0 = 1_790_000_000_000L;

    /** A settable clock. */
    static final class TestClock implements InstantSource {
        volatile long millis;

        TestClock(long millis) {
            this.millis = millis;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis);
        }

        @Override
        public long millis() {
            return millis;
        }
    }

    private final TestClock clock = new TestClock(T0);

    private static ConnectionHeader header(String calling, int securityType) {
        ConnectionAttributes a = ConnectionAttributes.of(ReliabilityLevel.RELIABLE_RECEPTION, true, true, true,
                false, false);
        return securityType == 1
                ? ConnectionHeader.toBeSigned(a, Discriminator.ofUtf8(calling), 65536, 4, Discriminator.ofUtf8("svc"))
                : ConnectionHeader.unsigned(a, Discriminator.ofUtf8(calling), 65536, 4, Discriminator.ofUtf8("svc"));
    }

    private static ByteBuffer encode(ControlSegment c, ByteOrder order) {
        ByteBuffer bb = ByteBuffer.allocate(c.encodedLength() + 3).order(order);
        c.encode(bb, 3);
        return bb;
    }

    private ByteBuffer signedRequest(ConnectSigner signer, String calling) {
        ByteBuffer bb = encode(new ConnectRequest(42, 8, header(calling, 1)), ByteOrder.BIG_ENDIAN);
        signer.sign(bb, 3, bb.capacity() - 3);
        return bb;
    }

    @Test
    void signThenVerify() throws Exception {
        ConnectSigner signer = new ConnectSigner(KEY, clock);
        ByteBuffer bb = signedRequest(signer, "cli");
        int len = bb.capacity() - 3;

        ConnectRequest decoded = (ConnectRequest) ControlSegment.decode(bb, 3, len);
        byte[] info = decoded.header().securityInfo();
        assertThat(ByteBuffer.wrap(info).getLong()).isEqualTo(T0);

        // independent HMAC computation from the profile's words: whole segment, HMAC bytes zeroed
        byte[] seg = new byte[len];
        bb.get(3, seg);
        byte[] zeroed = seg.clone();
        Arrays.fill(zeroed, len - 32, len, (byte) 0);
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(KEY, "HmacSHA256"));
        assertThat(Arrays.copyOfRange(seg, len - 32, len)).isEqualTo(mac.doFinal(zeroed));

        ConnectSigner verifier = new ConnectSigner(KEY, clock);
        assertThat(verifier.verify(bb, 3, len)).isEqualTo(VerifyResult.OK);
        assertThat(verifier.replayGuardSize()).isEqualTo(1);
    }

    @Test
    void signAcceptInLittleEndianBuffer() {
        ConnectSigner signer = new ConnectSigner(KEY, clock);
        ByteBuffer bb = encode(new ConnectAccept(7, 41, 16, header("svc", 1)), ByteOrder.LITTLE_ENDIAN);
        signer.sign(bb, 3, bb.capacity() - 3);
        ConnectAccept a = (ConnectAccept) ControlSegment.decode(bb, 3, bb.capacity() - 3);
        assertThat(ByteBuffer.wrap(a.header().securityInfo()).getLong()).isEqualTo(T0); // big-endian on the wire
        ByteBuffer big = ByteBuffer.allocate(bb.capacity());
        big.put(0, bb, 0, bb.capacity());
        assertThat(new ConnectSigner(KEY, clock).verify(big, 3, bb.capacity() - 3)).isEqualTo(VerifyResult.OK);
    }

    @Test
    void tamperingWithAnyByteFails() {
        ConnectSigner signer = new ConnectSigner(KEY, clock);
        ByteBuffer original = signedRequest(signer, "caller-x");
        int len = original.capacity() - 3;
        int verified = 0;
        for (int i = 0; i < len; i++) {
            for (int bit = 0; bit < 8; bit += 3) {
                ByteBuffer bb = ByteBuffer.allocate(original.capacity());
                bb.put(0, original, 0, original.capacity());
                bb.put(3 + i, (byte) (bb.get(3 + i) ^ (1 << bit)));
                ConnectSigner verifier = new ConnectSigner(KEY, clock);
                VerifyResult r;
                try {
                    r = verifier.verify(bb, 3, len);
                } catch (ProtocolException e) {
                    continue; // no longer a valid segment: refused before any security check
                }
                verified++;
                assertThat(r).as("byte %d bit %d", i, bit).isNotEqualTo(VerifyResult.OK);
                assertThat(verifier.replayGuardSize()).isZero();
            }
        }
        assertThat(verified).isGreaterThan(len); // most flips reach the security check
        assertThat(new ConnectSigner(KEY, clock).verify(original, 3, len)).isEqualTo(VerifyResult.OK);
    }

    @Test
    void wrongKey() {
        ByteBuffer bb = signedRequest(new ConnectSigner(KEY, clock), "cli");
        byte[] other = KEY.clone();
        other[0] ^= 1;
        assertThat(new ConnectSigner(other, clock).verify(bb, 3, bb.capacity() - 3))
                .isEqualTo(VerifyResult.BAD_SIGNATURE);
    }

    @Test
    void clockSkew() {
        ByteBuffer bb = signedRequest(new ConnectSigner(KEY, clock), "cli");
        int len = bb.capacity() - 3;
        long w = ConnectSigner.CLOCK_WINDOW_MILLIS;
        assertThat(w).as("a few seconds").isEqualTo(5_000);
        // verifiers started before the signature, their clocks then moved to the time of the check
        TestClock c = new TestClock(T0 - w - 1);
        ConnectSigner verifier = new ConnectSigner(KEY, c);
        assertThat(verifier.verify(bb, 3, len)).isEqualTo(VerifyResult.CLOCK_SKEW);
        c.millis = T0 + w + 1;
        assertThat(verifier.verify(bb, 3, len)).isEqualTo(VerifyResult.CLOCK_SKEW);
        c.millis = T0 + w;
        assertThat(verifier.verify(bb, 3, len)).isEqualTo(VerifyResult.OK);
        TestClock d = new TestClock(T0 - w);
        assertThat(new ConnectSigner(KEY, d).verify(bb, 3, len)).isEqualTo(VerifyResult.OK);
        ConnectSigner wide = new ConnectSigner(KEY, new TestClock(T0 - 60_000), new ConnectSigner.Policy(60_000, 16, 16));
        assertThat(wide.verify(bb, 3, len)).isEqualTo(VerifyResult.OK);
    }

    /**
     * The replay memory is in-process, so a verifier refuses what was signed before it started (a
     * previous instance, before a restart, may have accepted it): IS 11. What is signed after it is accepted.
     */
    @Test
    void aRestartedVerifierRefusesWhatWasSignedBeforeItStarted() {
        ConnectSigner signer = new ConnectSigner(KEY, clock);
        ByteBuffer bb = signedRequest(signer, "cli");
        int len = bb.capacity() - 3;
        assertThat(new ConnectSigner(KEY, clock).verify(bb, 3, len)).isEqualTo(VerifyResult.OK);   // the first instance
        clock.millis = T0 + 1_000;                                                              // a restart, 1 s later
        ConnectSigner restarted = new ConnectSigner(KEY, clock);
        ByteBuffer copy = ByteBuffer.allocate(bb.capacity());
        copy.put(0, bb, 0, bb.capacity());
        assertThat(restarted.verify(copy, 3, len)).isEqualTo(VerifyResult.SIGNED_BEFORE_START);
        assertThat(VerifyResult.SIGNED_BEFORE_START.isCode()).isEqualTo(11);
        assertThat(restarted.replayGuardSize()).isZero();
        assertThat(restarted.verify(signedRequest(signer, "cli"), 3, len)).isEqualTo(VerifyResult.OK);
    }

    /** A flood of valid signatures from one client fills its share only (IS 14), not the others'. */
    @Test
    void oneClientsFloodLeavesRoomForOthers() {
        ConnectSigner signer = new ConnectSigner(KEY, clock);
        ConnectSigner verifier = new ConnectSigner(KEY, clock, new ConnectSigner.Policy(5_000, 64, 8));
        int full = 0;
        for (int i = 0; i < 100; i++) {
            ByteBuffer bb = signedRequest(signer, "f" + i);
            VerifyResult r = verifier.verify(bb, 3, bb.capacity() - 3, 0, "10.0.0.1");
            full += r == VerifyResult.REPLAY_GUARD_FULL ? 1 : 0;
        }
        assertThat(full).isEqualTo(92);
        assertThat(verifier.replayGuardSize("10.0.0.1")).isEqualTo(8);
        ByteBuffer other = signedRequest(signer, "other");
        assertThat(verifier.verify(other, 3, other.capacity() - 3, 0, "10.0.0.2")).isEqualTo(VerifyResult.OK);
        // the flooder's share comes back once its timestamps leave the window
        clock.millis = T0 + 5_001;
        ByteBuffer later = signedRequest(signer, "f-later");
        assertThat(verifier.verify(later, 3, later.capacity() - 3, 0, "10.0.0.1")).isEqualTo(VerifyResult.OK);
    }

    @Test
    void replayIsRefusedWithinTheWindow() {
        ConnectSigner signer = new ConnectSigner(KEY, clock);
        ByteBuffer bb = signedRequest(signer, "cli");
        int len = bb.capacity() - 3;
        ConnectSigner verifier = new ConnectSigner(KEY, clock);
        assertThat(verifier.verify(bb, 3, len)).isEqualTo(VerifyResult.OK);
        assertThat(verifier.verify(bb, 3, len)).isEqualTo(VerifyResult.REPLAY);
        clock.millis = T0 + ConnectSigner.CLOCK_WINDOW_MILLIS;
        assertThat(verifier.verify(bb, 3, len)).isEqualTo(VerifyResult.REPLAY);
        clock.millis = T0 + ConnectSigner.CLOCK_WINDOW_MILLIS + 1; // the entry expires as the clock check takes over
        assertThat(verifier.verify(bb, 3, len)).isEqualTo(VerifyResult.CLOCK_SKEW);
        // a fresh signature of the same request is not a replay
        assertThat(verifier.verify(signedRequest(signer, "cli"), 3, len)).isEqualTo(VerifyResult.OK);
    }

    /**
     * VITCP-PROFILE §5: Security Type 1 with a Security Length other than 40 is MALFORMED (IS 11),
     * even when its first 40 bytes hold a fresh timestamp and the correct HMAC; it is never signed.
     */
    @Test
    void securityType1WithALengthOtherThan40_isMalformed() throws Exception {
        ConnectSigner verifier = new ConnectSigner(KEY, clock);
        for (int length : new int[] {0, 8, 36, 39, 41, 44, 80}) {
            ConnectionHeader h = header("cli", 0);
            byte[] info = new byte[length];
            if (length >= 40) {
                ByteBuffer.wrap(info).putLong(T0);
            }
            ConnectionHeader odd = new ConnectionHeader(h.attributes(), h.calling(), h.mtu(), h.rdmaReadWindow(),
                    h.called(), ConnectionHeader.SECURITY_HMAC_SHA256, info);
            ByteBuffer bb = encode(new ConnectRequest(1, 0, odd), ByteOrder.BIG_ENDIAN);
            int len = bb.capacity() - 3;
            if (length >= 40) {
                // the HMAC at the Security Type 1 place, computed as §5 says, with the 32 bytes zeroed
                int macAt = 3 + len - ((length + 3) & ~3) + 8;
                Mac mac = Mac.getInstance("HmacSHA256");
                mac.init(new SecretKeySpec(KEY, "HmacSHA256"));
                byte[] seg = new byte[len];
                bb.get(3, seg);
                bb.put(macAt, mac.doFinal(seg));
            }
            assertThat(verifier.verify(bb, 3, len)).as("Security Length %d", length).isEqualTo(VerifyResult.MALFORMED);
            assertThatThrownBy(() -> verifier.sign(bb, 3, len)).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(VerifyResult.MALFORMED.isCode()).isEqualTo(11);
        assertThat(verifier.replayGuardSize()).isZero();
    }

    @Test
    void unsignedAndUnknownTypes() {
        ConnectSigner verifier = new ConnectSigner(KEY, clock);
        ByteBuffer unsigned = encode(new ConnectRequest(1, 0, header("cli", 0)), ByteOrder.BIG_ENDIAN);
        assertThat(verifier.verify(unsigned, 3, unsigned.capacity() - 3)).isEqualTo(VerifyResult.UNSIGNED);
        assertThat(VerifyResult.UNSIGNED.isCode()).isEqualTo(11);

        ConnectionHeader h = header("cli", 0);
        ConnectionHeader other = new ConnectionHeader(h.attributes(), h.calling(), h.mtu(), h.rdmaReadWindow(),
                h.called(), 9, new byte[40]);
        ByteBuffer unknown = encode(new ConnectRequest(1, 0, other), ByteOrder.BIG_ENDIAN);
        assertThat(verifier.verify(unknown, 3, unknown.capacity() - 3)).isEqualTo(VerifyResult.WRONG_TYPE);
        assertThatThrownBy(() -> verifier.sign(unknown, 3, unknown.capacity() - 3))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> verifier.sign(unsigned, 3, unsigned.capacity() - 3))
                .isInstanceOf(IllegalArgumentException.class);

        ByteBuffer reject = encode(new ConnectReject(8), ByteOrder.BIG_ENDIAN);
        assertThatThrownBy(() -> verifier.verify(reject, 3, 24)).isInstanceOf(IllegalArgumentException.class);
        ByteBuffer garbage = ByteBuffer.allocate(30);
        assertThatThrownBy(() -> verifier.verify(garbage, 0, 30)).isInstanceOf(ProtocolException.class);
    }

    @Test
    void replayGuardIsBoundedAndRefusesWhenFull() {
        ConnectSigner signer = new ConnectSigner(KEY, clock);
        ConnectSigner verifier = new ConnectSigner(KEY, clock, 3);
        for (int i = 0; i < 3; i++) {
            ByteBuffer bb = signedRequest(signer, "c" + i);
            assertThat(verifier.verify(bb, 3, bb.capacity() - 3)).isEqualTo(VerifyResult.OK);
        }
        ByteBuffer fourth = signedRequest(signer, "c3");
        assertThat(verifier.verify(fourth, 3, fourth.capacity() - 3)).isEqualTo(VerifyResult.REPLAY_GUARD_FULL);
        assertThat(VerifyResult.REPLAY_GUARD_FULL.isCode()).isEqualTo(14);
        assertThat(verifier.replayGuardSize()).isEqualTo(3);
        // unsigned or badly signed segments never take room
        ByteBuffer bad = signedRequest(signer, "c4");
        bad.put(bad.capacity() - 1, (byte) (bad.get(bad.capacity() - 1) ^ 1));
        assertThat(verifier.verify(bad, 3, bad.capacity() - 3)).isEqualTo(VerifyResult.BAD_SIGNATURE);

        clock.millis = T0 + ConnectSigner.CLOCK_WINDOW_MILLIS + 1; // everything signed at T0 expires
        ByteBuffer later = signedRequest(signer, "c5");
        assertThat(verifier.verify(later, 3, later.capacity() - 3)).isEqualTo(VerifyResult.OK);
        assertThat(verifier.replayGuardSize()).isEqualTo(1);
    }

    @Test
    void concurrentVerifiersAdmitOneCopyOnly() throws Exception {
        ConnectSigner signer = new ConnectSigner(KEY, clock);
        ByteBuffer bb = signedRequest(signer, "cli");
        int len = bb.capacity() - 3;
        ConnectSigner verifier = new ConnectSigner(KEY, clock);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Callable<VerifyResult>> tasks = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                tasks.add(() -> {
                    ByteBuffer copy = ByteBuffer.allocate(bb.capacity());
                    copy.put(0, bb, 0, bb.capacity());
                    return verifier.verify(copy, 3, len);
                });
            }
            int ok = 0;
            int replay = 0;
            for (Future<VerifyResult> f : pool.invokeAll(tasks)) {
                VerifyResult r = f.get();
                ok += r == VerifyResult.OK ? 1 : 0;
                replay += r == VerifyResult.REPLAY ? 1 : 0;
            }
            assertThat(ok).isEqualTo(1);
            assertThat(replay).isEqualTo(15);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void keyRules() {
        assertThatThrownBy(() -> new ConnectSigner(new byte[15], clock)).isInstanceOf(IllegalArgumentException.class);
        byte[] key = KEY.clone();
        ConnectSigner signer = new ConnectSigner(key, clock);
        Arrays.fill(key, (byte) 0); // the signer copied it
        ByteBuffer bb = signedRequest(signer, "cli");
        assertThat(new ConnectSigner(KEY, clock).verify(bb, 3, bb.capacity() - 3)).isEqualTo(VerifyResult.OK);
    }
}
