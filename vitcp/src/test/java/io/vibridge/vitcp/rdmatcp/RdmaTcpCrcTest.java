package io.vibridge.vitcp.rdmatcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.CRC32;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * The seed-004 CRC-32 against a bit-at-a-time reference written as the spec words it (VITCP-PROFILE §8):
 * both paths (slice-by-8 tables, reciprocal through java.util.zip.CRC32), heap and direct buffers of
 * both byte orders, byte arrays, any offset, any starting state, any split of a message.
 */
class RdmaTcpCrcTest {

    private static final byte[] NINE = "123456789".getBytes(StandardCharsets.US_ASCII);
    /** Lengths around the path threshold, the 4 KiB chunks and the base-256 digits of the length. */
    private static final int[] LONG_LENGTHS = {255, 256, 257, 263, 511, 512, 513, 1024, 4095, 4096, 4097, 4100,
        8191, 8192, 8193, 9000, 12_295, 65_535, 65_536, 65_537, 65_791, 65_792, 65_793, 70_001, (1 << 20) + 3};

    /**
     * The CRC register after {@code b[off, off+len)}, starting from {@code state} (a reflected register,
     * as {@link RdmaTcpCrc#update}'s): the textbook most-significant-bit-first shift register with the
     * generator 0xDB710641, each input byte reflected on the way in, the register reflected on the way out.
     */
    static int reference(int state, byte[] b, int off, int len) {
        int reg = Integer.reverse(state);
        for (int i = off; i < off + len; i++) {
            reg ^= Integer.reverse(b[i] & 0xFF);             // the byte, reflected, into the top 8 bits
            for (int k = 0; k < 8; k++) {
                reg = reg < 0 ? (reg << 1) ^ 0xDB710641 : reg << 1;
            }
        }
        return Integer.reverse(reg);
    }

    static int referenceCrc(byte[] b, int off, int len) {
        return ~reference(~0, b, off, len);
    }

    private static byte[] random(Random rnd, int n) {
        byte[] b = new byte[n];
        rnd.nextBytes(b);
        return b;
    }

    /** {@code data} at {@code off} in a heap or direct buffer of the given order, with slack after it. */
    private static ByteBuffer buffer(byte[] data, int off, boolean direct, ByteOrder order) {
        int capacity = off + data.length + 11;
        ByteBuffer bb = (direct ? ByteBuffer.allocateDirect(capacity) : ByteBuffer.allocate(capacity)).order(order);
        bb.put(off, data);
        return bb;
    }

    @Test
    void checkValue() {
        assertThat(referenceCrc(NINE, 0, 9)).isEqualTo(0xE07E661E);
        assertThat(RdmaTcpCrc.CHECK).isEqualTo(0xE07E661E);
        assertThat(RdmaTcpCrc.of(NINE, 0, 9)).isEqualTo(RdmaTcpCrc.CHECK);
        assertThat(RdmaTcpCrc.of(ByteBuffer.wrap(NINE), 0, 9)).isEqualTo(RdmaTcpCrc.CHECK);
        assertThat(RdmaTcpCrc.of(buffer(NINE, 3, true, ByteOrder.LITTLE_ENDIAN), 3, 9)).isEqualTo(RdmaTcpCrc.CHECK);
        assertThat(RdmaTcpCrc.finish(RdmaTcpCrc.update(RdmaTcpCrc.start(), ByteBuffer.wrap(NINE), 0, 9)))
                .isEqualTo(RdmaTcpCrc.CHECK);
        assertThat(RdmaTcpCrc.of(NINE, 0, 0)).isZero();
    }

    @Test
    void generatorIsTheEthernetPolynomialReversed() {
        long ethernet33 = 0x1_04C1_1DB7L;                     // x^32 + ... + 1
        assertThat((int) (Long.reverse(ethernet33) >>> 31)).isEqualTo(RdmaTcpCrc.GENERATOR);
        assertThat(RdmaTcpCrc.GENERATOR).isEqualTo(0xDB710641);
        assertThat(RdmaTcpCrc.REFLECTED).isEqualTo(0x82608EDB).isEqualTo((int) (ethernet33 >>> 1));
        CRC32 ethernet = new CRC32();
        ethernet.update(NINE);
        assertThat(ethernet.getValue()).isEqualTo(0xCBF43926L);  // and the JDK's is the Ethernet one
    }

    @Test
    void everyLengthTo300AtRandomOffsetsInEveryKindOfBuffer() {
        Random rnd = new Random(4);
        for (int len = 0; len <= 300; len++) {
            for (boolean direct : new boolean[] {false, true}) {
                for (ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN}) {
                    byte[] data = random(rnd, len);
                    int off = rnd.nextInt(17);
                    ByteBuffer bb = buffer(data, off, direct, order);
                    bb.position(5).limit(bb.capacity() - 1);
                    int expected = referenceCrc(data, 0, len);
                    assertThat(RdmaTcpCrc.of(bb, off, len)).as("len %d off %d %s %s", len, off, direct, order)
                            .isEqualTo(expected);
                    assertThat(~RdmaTcpCrc.updateSliceBy8(~0, bb, off, len)).isEqualTo(expected);
                    assertThat(~RdmaTcpCrc.updateReciprocal(~0, bb, off, len)).isEqualTo(expected);
                    assertThat(RdmaTcpCrc.of(bb.asReadOnlyBuffer(), off, len)).isEqualTo(expected);
                    assertThat(bb.position()).isEqualTo(5);
                    assertThat(bb.limit()).isEqualTo(bb.capacity() - 1);
                    assertThat(bb.order()).isEqualTo(order);

                    byte[] array = new byte[off + len + 3];
                    System.arraycopy(data, 0, array, off, len);
                    assertThat(RdmaTcpCrc.of(array, off, len)).isEqualTo(expected);
                    assertThat(~RdmaTcpCrc.updateSliceBy8(~0, array, off, len)).isEqualTo(expected);
                    assertThat(~RdmaTcpCrc.updateReciprocal(~0, array, off, len)).isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void longInputsAroundEveryBoundaryOfTheReciprocalPath() {
        Random rnd = new Random(64);
        for (int len : LONG_LENGTHS) {
            byte[] data = random(rnd, len);
            int off = rnd.nextInt(17);
            int expected = referenceCrc(data, 0, len);
            for (boolean direct : new boolean[] {false, true}) {
                ByteOrder order = direct ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
                ByteBuffer bb = buffer(data, off, direct, order);
                assertThat(RdmaTcpCrc.of(bb, off, len)).as("len %d direct %s", len, direct).isEqualTo(expected);
                assertThat(~RdmaTcpCrc.updateSliceBy8(~0, bb, off, len)).isEqualTo(expected);
            }
            byte[] array = new byte[off + len];
            System.arraycopy(data, 0, array, off, len);
            assertThat(RdmaTcpCrc.of(array, off, len)).isEqualTo(expected);
        }
    }

    @Test
    void anyStartingStateOnBothPaths() {
        Random rnd = new Random(7);
        for (int i = 0; i < 400; i++) {
            int len = i < 300 ? i : LONG_LENGTHS[i % 20];
            byte[] data = random(rnd, len);
            int state = rnd.nextInt();
            int expected = reference(state, data, 0, len);
            ByteBuffer bb = buffer(data, 0, (i & 1) == 0, ByteOrder.BIG_ENDIAN);
            assertThat(RdmaTcpCrc.update(state, bb, 0, len)).as("len %d", len).isEqualTo(expected);
            assertThat(RdmaTcpCrc.updateSliceBy8(state, bb, 0, len)).isEqualTo(expected);
            assertThat(RdmaTcpCrc.updateReciprocal(state, bb, 0, len)).isEqualTo(expected);
            assertThat(RdmaTcpCrc.update(state, data, 0, len)).isEqualTo(expected);
        }
    }

    @Test
    void updatesChainAcrossArbitrarySplits() {
        Random rnd = new Random(11);
        byte[] data = random(rnd, 20_000);
        ByteBuffer direct = buffer(data, 0, true, ByteOrder.nativeOrder());
        int whole = referenceCrc(data, 0, data.length);
        for (int round = 0; round < 200; round++) {
            int state = RdmaTcpCrc.start();
            int at = 0;
            while (at < data.length) {
                // short and long pieces alike, and empty ones
                int piece = Math.min(data.length - at, rnd.nextBoolean() ? rnd.nextInt(300) : rnd.nextInt(9000));
                state = (round & 1) == 0 ? RdmaTcpCrc.update(state, direct, at, piece)
                        : RdmaTcpCrc.update(state, data, at, piece);
                at += piece;
            }
            assertThat(RdmaTcpCrc.finish(state)).isEqualTo(whole);
        }
    }

    @Test
    void rangesOutsideTheBufferAreRefused() {
        ByteBuffer bb = ByteBuffer.allocateDirect(300).limit(280);
        assertThatThrownBy(() -> RdmaTcpCrc.of(bb, -1, 10)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> RdmaTcpCrc.of(bb, 0, -1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> RdmaTcpCrc.of(bb, 1, 280)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> RdmaTcpCrc.of(bb, 270, 11)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> RdmaTcpCrc.of(new byte[300], 45, 256)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> RdmaTcpCrc.updateSliceBy8(0, bb, 279, 2))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(RdmaTcpCrc.of(bb, 0, 280)).isEqualTo(referenceCrc(new byte[280], 0, 280));
    }

    /** As vitcp's HotPathAllocationTest: bytes allocated by this thread over many calls, never time. */
    @Test
    void neitherPathAllocatesPerCall() {
        assumeTrue(ManagementFactory.getThreadMXBean() instanceof ThreadMXBean);
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeTrue(mx.isThreadAllocatedMemorySupported() && mx.isThreadAllocatedMemoryEnabled());
        byte[] data = random(new Random(5), 9000);
        ByteBuffer direct = buffer(data, 0, true, ByteOrder.BIG_ENDIAN);
        ByteBuffer heap = buffer(data, 0, false, ByteOrder.LITTLE_ENDIAN);
        int calls = 20_000;
        long sink = crcs(direct, heap, data, calls);            // warm-up: class loading, the pool's first scratch
        long tid = Thread.currentThread().threadId();
        long before = mx.getThreadAllocatedBytes(tid);
        sink += crcs(direct, heap, data, calls);
        long allocated = mx.getThreadAllocatedBytes(tid) - before;
        assertThat(sink).isNotZero();
        assertThat(allocated).as("bytes allocated over %d rounds of 4 CRCs", calls).isLessThan(16 * 1024);
    }

    private static long crcs(ByteBuffer direct, ByteBuffer heap, byte[] data, int calls) {
        long sink = 0;
        for (int i = 0; i < calls; i++) {
            int len = 1000 + (i & 7);
            sink += RdmaTcpCrc.of(direct, i & 15, len) + RdmaTcpCrc.of(heap, 3, 100 + (i & 7))
                    + RdmaTcpCrc.of(data, i & 15, len) + RdmaTcpCrc.of(data, 5, 200);
        }
        return sink;
    }

    @Test
    void manyThreadsAtOnceEachGetTheirOwnScratch() throws Exception {
        int threads = 4 * Runtime.getRuntime().availableProcessors() + 3;   // more than the pool has slots
        List<Callable<Boolean>> tasks = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int seed = t;
            tasks.add(() -> {
                Random rnd = new Random(seed);
                for (int i = 0; i < 50; i++) {
                    byte[] data = random(rnd, 256 + rnd.nextInt(20_000));
                    if (RdmaTcpCrc.of(buffer(data, 0, true, ByteOrder.BIG_ENDIAN), 0, data.length)
                            != referenceCrc(data, 0, data.length)) {
                        return false;
                    }
                }
                return true;
            });
        }
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            for (Future<Boolean> f : pool.invokeAll(tasks)) {
                assertThat(f.get()).isTrue();
            }
        }
    }

    @Test
    void arithmeticModuloTheEthernetPolynomial() {
        int one = 1 << 31;                                     // reflected: bit 31 is x^0
        int x = 1 << 30;
        assertThat(RdmaTcpCrc.mulModP(RdmaTcpCrc.powInverseX(1), x)).isEqualTo(one);
        Random rnd = new Random(3);
        for (int i = 0; i < 200; i++) {
            int a = rnd.nextInt();
            int b = rnd.nextInt();
            assertThat(RdmaTcpCrc.mulModP(a, b)).isEqualTo(RdmaTcpCrc.mulModP(b, a)).isEqualTo(mulBitByBit(a, b));
            assertThat(RdmaTcpCrc.mulModP(a, one)).isEqualTo(a);
            long e = rnd.nextInt(1 << 14);
            assertThat(RdmaTcpCrc.mulModP(RdmaTcpCrc.powInverseX(e), powX(e))).isEqualTo(one);
        }
    }

    /** a b mod P (Ethernet, reflected), one bit of a at a time. */
    private static int mulBitByBit(int a, int b) {
        int p = 0;
        for (int i = 0; i < 32; i++, a <<= 1) {
            if (a < 0) {
                p ^= b;
            }
            b = (b & 1) != 0 ? (b >>> 1) ^ 0xEDB88320 : b >>> 1;
        }
        return p;
    }

    private static int powX(long e) {
        int r = 1 << 31;
        for (long i = 0; i < e; i++) {
            r = (r & 1) != 0 ? (r >>> 1) ^ 0xEDB88320 : r >>> 1;
        }
        return r;
    }

    @Property(tries = 200)
    void chainedUpdatesOverAnySplitEqualTheReference(@ForAll @Size(max = 12_000) byte[] data,
            @ForAll @Size(max = 6) List<@IntRange(max = 12_000) Integer> cuts, @ForAll boolean direct,
            @ForAll int state) {
        List<Integer> points = new ArrayList<>();
        for (int c : cuts) {
            points.add(Math.min(c, data.length));
        }
        points.add(data.length);
        points.sort(null);
        ByteBuffer bb = buffer(data, 1, direct, ByteOrder.LITTLE_ENDIAN);
        int s = state;
        int at = 0;
        for (int p : points) {
            s = RdmaTcpCrc.update(s, bb, 1 + at, p - at);
            at = p;
        }
        int expected = reference(state, data, 0, data.length);
        assertThat(s).isEqualTo(expected);
        assertThat(RdmaTcpCrc.update(state, data, 0, data.length)).isEqualTo(expected);
        assertThat(RdmaTcpCrc.updateSliceBy8(state, data, 0, data.length)).isEqualTo(expected);
    }
}
