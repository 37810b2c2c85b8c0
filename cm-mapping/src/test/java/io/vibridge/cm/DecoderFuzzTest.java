package io.vibridge.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.cm.cma.CmaHeader;
import io.vibridge.cm.hello.FlowControl;
import io.vibridge.cm.hello.FlowControlHeader;
import io.vibridge.cm.hello.Hello;
import io.vibridge.cm.hello.HelloReply;
import io.vibridge.cm.testutil.Addresses;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * At least 100,000 random and mutated inputs per decoder, fixed seed: nothing but {@link
 * CmFormatException} may escape, and both outcomes must occur (so the fuzz reaches past the
 * first checks).
 */
class DecoderFuzzTest {

    private static final int INPUTS_PER_DECODER = 100_000;
    private static final long SEED = 0x5EED_C0DE_2026L;

    private final Random random = new Random(SEED);

    /** Outcome counts of one fuzz run. */
    record Outcome(int accepted, int rejected) {
    }

    private Outcome fuzz(Function<ByteBuffer, ?> decoder, Supplier<byte[]> valid, int maxRandomLength) {
        int accepted = 0;
        int rejected = 0;
        for (int i = 0; i < INPUTS_PER_DECODER; i++) {
            byte[] input = (i & 1) == 0 ? randomBytes(maxRandomLength) : mutate(valid.get());
            ByteBuffer buf = ByteBuffer.wrap(input);
            if ((i & 2) != 0 && input.length > 0) {
                // Also decode from a non-zero position of a larger (direct) buffer.
                ByteBuffer direct = ByteBuffer.allocateDirect(input.length + 7);
                direct.position(7);
                direct.put(input);
                direct.position(7);
                buf = direct;
            }
            int before = buf.position();
            try {
                decoder.apply(buf);
                accepted++;
            } catch (CmFormatException e) {
                rejected++;
                assertThat(e.field()).isNotBlank();
                assertThat(e.reason()).isNotBlank();
                assertThat(buf.position()).as("position unchanged on failure").isEqualTo(before);
            }
            // Any other Throwable propagates and fails the test, with the input in the trace below.
        }
        return new Outcome(accepted, rejected);
    }

    private byte[] randomBytes(int maxLength) {
        byte[] b = new byte[random.nextInt(maxLength + 1)];
        random.nextBytes(b);
        return b;
    }

    private byte[] mutate(byte[] valid) {
        byte[] b = valid;
        switch (random.nextInt(4)) {
            case 0 -> b = Arrays.copyOf(b, random.nextInt(b.length + 1)); // truncate
            case 1 -> b = Arrays.copyOf(b, b.length + random.nextInt(16)); // extend
            default -> {
            }
        }
        int flips = 1 + random.nextInt(4);
        for (int f = 0; f < flips && b.length > 0; f++) {
            int at = random.nextInt(Math.min(b.length, 64));
            switch (random.nextInt(3)) {
                case 0 -> b[at] = (byte) random.nextInt(256);
                case 1 -> b[at] ^= (byte) (1 << random.nextInt(8));
                default -> b[at] = (byte) (random.nextBoolean() ? 0 : 0xFF);
            }
        }
        return b;
    }

    private Hello randomHello() {
        InetAddress[] ips = Addresses.randomPair(random);
        return Hello.of(random.nextInt(0x10000), random.nextBoolean() ? FlowControl.TRANSPORT : FlowControl.APPLICATION,
                random.nextLong(0x1_0000_0000L), random.nextLong(0x1_0000_0000L), random.nextInt(0x10000), ips[0], ips[1]);
    }

    @Test
    void hello() {
        Outcome o = fuzz(Hello::decode, () -> randomHello().toBytes(), 120);
        assertThat(o.accepted()).isPositive();
        assertThat(o.rejected()).isPositive();
    }

    @Test
    void helloReply() {
        Outcome o = fuzz(HelloReply::decode,
                () -> HelloReply.of(random.nextInt(0x10000), random.nextLong(0x1_0000_0000L)).toBytes(), 220);
        assertThat(o.accepted()).isPositive();
        assertThat(o.rejected()).isPositive();
    }

    @Test
    void flowControlHeaderRecord() {
        Outcome o = fuzz(FlowControlHeader::decode, () -> new FlowControlHeader(random.nextInt(256),
                random.nextInt(0x10000), 16 + random.nextInt(1 << 20), random.nextInt(), random.nextInt()).toBytes(), 40);
        assertThat(o.accepted()).isPositive();
        assertThat(o.rejected()).isPositive();
    }

    @Test
    void flowControlHeaderFlyweightValidate() {
        int accepted = 0;
        int rejected = 0;
        ByteBuffer buf = ByteBuffer.allocateDirect(64);
        for (int i = 0; i < INPUTS_PER_DECODER; i++) {
            int index = random.nextInt(80) - 8;
            int messageLength = random.nextInt(10) == 0 ? random.nextInt() : random.nextInt(64);
            if ((i & 1) == 0) {
                byte[] noise = new byte[64];
                random.nextBytes(noise);
                buf.put(0, noise);
            } else if (index >= 0 && index <= 48) {
                byte[] header = mutate(new FlowControlHeader(0, 1, Math.max(16, messageLength), 1, 0).toBytes());
                buf.put(index, header, 0, Math.min(header.length, 64 - index));
            }
            try {
                FlowControlHeader.validate(buf, index, messageLength);
                accepted++;
            } catch (CmFormatException e) {
                rejected++;
            }
        }
        assertThat(accepted).isPositive();
        assertThat(rejected).isPositive();
    }

    @Test
    void cmaHeader() {
        Outcome o = fuzz(CmaHeader::decode, () -> {
            InetAddress[] ips = Addresses.randomPair(random);
            byte[] user = new byte[random.nextInt(57)];
            random.nextBytes(user);
            return new CmaHeader(random.nextInt(0x10000), ips[0], ips[1]).toPrivateData(user);
        }, 100);
        assertThat(o.accepted()).isPositive();
        assertThat(o.rejected()).isPositive();
    }
}
