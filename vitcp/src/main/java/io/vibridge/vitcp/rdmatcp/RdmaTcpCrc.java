package io.vibridge.vitcp.rdmatcp;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.zip.CRC32;

/**
 * The seed-004 CRC-32 (VITCP-PROFILE §8): the Ethernet algorithm (reflected input and output, initial
 * value and final XOR 0xFFFFFFFF) with the generator 0xDB710641, the Ethernet polynomial left-right
 * reversed (reflected constant 0x82608EDB). Check value over ASCII "123456789": 0xE07E661E.
 *
 * <p>Two paths, chosen by length, with the same results:
 * <ul>
 * <li>below {@value #RECIPROCAL_THRESHOLD} bytes, the table-driven slice-by-8 ({@link #updateSliceBy8}):
 * eight 256-entry tables, one little-endian 64-bit load and eight lookups per 8 bytes;</li>
 * <li>from {@value #RECIPROCAL_THRESHOLD} bytes, the reciprocal path: our generator is the reciprocal
 * of the Ethernet one, so the CRC of a message is a fixed function of {@code java.util.zip.CRC32}
 * (which the JIT runs with carry-less multiplication) over the message reversed bit for bit. The
 * message is reversed 4 KiB at a time into a pooled scratch area (a direct buffer's chunk is first copied
 * out whole, as its long-by-long reads would go through memory-session checks) by a {@link BitReversal}:
 * with the Vector API when the JVM runs with {@code --add-modules jdk.incubator.vector} (our launcher,
 * tests and benchmarks do), else in scalar Java; then 4 KiB of CRC32. One GF(2) multiplication per
 * 256<sup>k</sup> of length (and a table lookup) turns CRC32's result into ours. The derivation is at
 * {@link #updateReciprocal}.</li>
 * </ul>
 *
 * <p>{@code io.vibridge.bench.vitcp.RdmaTcpCrcBench} times both paths, the variants tried and the JDK's
 * {@code CRC32} (benchmarks/README.md, "RdmaTcpCrcBench"); what the CRC costs a stream through the gateway
 * is in vitcp/README.md ("Seed-004 RDMA/TCP framing").
 *
 * <p>Inputs are heap or direct buffers of either byte order (absolute indexes; position, limit and order
 * are left alone) or byte arrays. No call allocates once the pool is filled, except when more threads
 * than it has slots compute a long CRC at the same moment (a new 8 KiB scratch area, dropped afterwards).
 * The tables and the pool are shared; the class is thread-safe.
 */
public final class RdmaTcpCrc {

    /** The generator polynomial as seed 004 writes it (x^32 term removed). */
    public static final int GENERATOR = 0xDB710641;
    /** {@link #GENERATOR} bit-reversed, the constant of the reflected algorithm. */
    public static final int REFLECTED = Integer.reverse(GENERATOR);
    /** The CRC of the ASCII bytes "123456789". */
    public static final int CHECK = 0xE07E661E;

    /** Inputs from this length take the reciprocal path, shorter ones the tables (RdmaTcpCrcBench's crossover). */
    static final int RECIPROCAL_THRESHOLD = 256;
    /** Bytes reversed and fed to CRC32 at a time: the scratch area, in the L1 cache with the input. */
    static final int CHUNK = 4096;

    /** The Ethernet generator, reflected: java.util.zip.CRC32's polynomial, "P" below. */
    private static final int ETHERNET_REFLECTED = 0xEDB88320;

    private static final VarHandle LONG_LE =
            MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle ARRAY_LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle ARRAY_INT_LE =
            MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    static {
        // C2 gives up inlining the ByteBuffer view VarHandle's internals ("unloaded signature classes") if
        // it compiles a caller before jdk.internal.foreign.MemorySessionImpl is loaded; the loops then
        // call out per access, several times slower, for the life of the JVM (in some runs, not all).
        // A heap segment's scope is one: load it before any of our methods can be compiled.
        Objects.requireNonNull(MemorySegment.ofArray(new byte[0]).scope());
    }

    /** Slice-by-8 tables for our generator: table k maps a byte to its contribution k bytes further on. */
    private static final int[] T = sliceTables();
    /** The byte table of P (Ethernet): multiplying a P-residue by x^8. */
    private static final int[] P_BYTE = pByteTable();
    /** x^-32 mod P times the all-ones word: the constant term of the reciprocal path. */
    private static final int INIT_TERM = mulModP(powInverseX(32), ~0);
    /** [d] = x^-(8d + 32) mod P; [256k + d] = x^-(8 d 256^k) mod P for k = 1..3 (length digits base 256). */
    private static final int[] INVERSE_POWERS = inversePowers();

    /** How chunks are reversed: with the Vector API when the JVM has it, else in scalar Java. */
    private static final BitReversal REVERSAL = BitReversal.best();

    /** Scratch areas for the reciprocal path: a power of two of slots, at least twice the processors. */
    private static final AtomicReferenceArray<Scratch> POOL = new AtomicReferenceArray<>(
            Integer.highestOneBit(Math.max(2, Runtime.getRuntime().availableProcessors()) * 4 - 1));

    private RdmaTcpCrc() {
    }

    /** The CRC of {@code length} bytes of {@code buf} from absolute index {@code off} (position unchanged). */
    public static int of(ByteBuffer buf, int off, int length) {
        return ~update(~0, buf, off, length);
    }

    /** The CRC of a byte array range. */
    public static int of(byte[] b, int off, int length) {
        return ~update(~0, b, off, length);
    }

    /**
     * Continues a CRC: {@code state} is {@link #start()} or the result of an earlier update; the CRC of
     * everything fed is {@link #finish(int) finish(state)}.
     */
    public static int update(int state, ByteBuffer buf, int off, int length) {
        Objects.checkFromIndexSize(off, length, buf.limit());
        return length < RECIPROCAL_THRESHOLD ? updateSliceBy8(state, buf, off, length)
                : updateReciprocal(state, buf, off, length);
    }

    /** {@link #update(int, ByteBuffer, int, int)} over a byte array range. */
    public static int update(int state, byte[] b, int off, int length) {
        Objects.checkFromIndexSize(off, length, b.length);
        return length < RECIPROCAL_THRESHOLD ? updateSliceBy8(state, b, off, length)
                : updateReciprocal(state, b, off, length);
    }

    /** Which reversal the reciprocal path runs ("vector (512-bit, ...)" or "scalar"), for logs and benchmarks. */
    public static String implementation() {
        return REVERSAL.description();
    }

    /** The state before any byte. */
    public static int start() {
        return ~0;
    }

    /** The CRC of everything fed since {@link #start()}. */
    public static int finish(int state) {
        return ~state;
    }

    /**
     * {@link #update(int, ByteBuffer, int, int)} by the table-driven slice-by-8 alone, whatever the length:
     * the path of short inputs, the reference the reciprocal path is tested against and the baseline of
     * the benchmark.
     */
    public static int updateSliceBy8(int state, ByteBuffer buf, int off, int length) {
        Objects.checkFromIndexSize(off, length, buf.limit());
        int crc = state;
        int i = off;
        int end = off + length;
        for (; i <= end - 8; i += 8) {
            crc = slice8(crc, (long) LONG_LE.get(buf, i));
        }
        for (; i < end; i++) {
            crc = (crc >>> 8) ^ T[(crc ^ buf.get(i)) & 0xFF];
        }
        return crc;
    }

    /** {@link #updateSliceBy8(int, ByteBuffer, int, int)} over a byte array range. */
    public static int updateSliceBy8(int state, byte[] b, int off, int length) {
        Objects.checkFromIndexSize(off, length, b.length);
        int crc = state;
        int i = off;
        int end = off + length;
        for (; i <= end - 8; i += 8) {
            crc = slice8(crc, (long) ARRAY_LONG_LE.get(b, i));
        }
        for (; i < end; i++) {
            crc = (crc >>> 8) ^ T[(crc ^ b[i]) & 0xFF];
        }
        return crc;
    }

    /** Eight bytes (little-endian in {@code v}) through the tables; the two halves' lookups are independent. */
    private static int slice8(int crc, long v) {
        int[] t = T;
        int lo = (int) v ^ crc;
        int hi = (int) (v >>> 32);
        return (t[7 * 256 + (lo & 0xFF)] ^ t[6 * 256 + ((lo >>> 8) & 0xFF)]
                ^ t[5 * 256 + ((lo >>> 16) & 0xFF)] ^ t[4 * 256 + (lo >>> 24)])
                ^ (t[3 * 256 + (hi & 0xFF)] ^ t[2 * 256 + ((hi >>> 8) & 0xFF)]
                ^ t[256 + ((hi >>> 16) & 0xFF)] ^ t[hi >>> 24]);
    }

    /**
     * The reciprocal path (any length from 4; shorter inputs go to the tables). Polynomials over GF(2):
     * G is our generator, P = x^32 G(1/x) the Ethernet one, L the all-ones word. The bits of the n-byte
     * message M, each byte least significant bit first, are the coefficients of M(x) from x^(8n-1) down;
     * the reflected algorithm keeps the register R = (S x^(8n) + M x^32) mod G, S the register before.
     * Write A~ = x^31 A(1/x) for a residue (as an int: {@link Integer#reverse}) and M' = x^(8n-1) M(1/x),
     * the message reversed bit for bit: its bytes in reverse order, each bit-reversed. Substituting 1/x
     * in S x^(8n) + M x^32 = Q G + R and multiplying by x^(8n+31) (x^32 G(1/x) being P) gives
     * <pre>  R~ = x^-(8n) (M' + S~)  mod P.</pre>
     * S~ has degree below 32: adding it is XOR-ing rev(S) into the last 4 bytes of M' (the first 4 of M),
     * giving M''. CRC32 over M'' returns E = ((M'' x^32 + L x^(8n)) mod P) + L, so
     * <pre>  R~ = x^-(8n+32) (E + L) + x^-32 L  mod P,</pre>
     * and R = rev(R~). x^-(8n+32) is a product of table entries, one per base-256 digit of n.
     */
    static int updateReciprocal(int state, ByteBuffer buf, int off, int length) {
        if (buf.hasArray()) {
            return updateReciprocal(state, buf.array(), buf.arrayOffset() + off, length);
        }
        if (length < 4) {
            return updateSliceBy8(state, buf, off, length);
        }
        Scratch s = acquire();
        try {
            CRC32 crc32 = s.crc32;
            crc32.reset();
            int hi = off + length;
            // the partial chunk first (at the end of M), so that the last one holds M's first 4 bytes; each
            // chunk is first copied out whole (one bulk copy, no allocation): reading a direct buffer word by
            // word goes through memory-session checks C2 does not always inline (a loop several times slower), and a
            // MemorySegment over it for vector loads is an object per call
            for (int k = (length - 1) % CHUNK + 1; hi > off; k = CHUNK) {
                buf.get(hi - k, s.forward, 0, k);
                REVERSAL.reverse(s.forward, k, s.bytes, k);
                hi -= k;
                feed(crc32, s.bytes, k, hi == off, state);
            }
            return fromCrc32(crc32, length);
        } finally {
            release(s);
        }
    }

    /** {@link #updateReciprocal(int, ByteBuffer, int, int)} over a byte array range. */
    static int updateReciprocal(int state, byte[] b, int off, int length) {
        if (length < 4) {
            return updateSliceBy8(state, b, off, length);
        }
        Scratch s = acquire();
        try {
            CRC32 crc32 = s.crc32;
            crc32.reset();
            int hi = off + length;
            for (int k = (length - 1) % CHUNK + 1; hi > off; k = CHUNK) {
                REVERSAL.reverse(b, hi, s.bytes, k);
                hi -= k;
                feed(crc32, s.bytes, k, hi == off, state);
            }
            return fromCrc32(crc32, length);
        } finally {
            release(s);
        }
    }

    /** Feeds a reversed chunk to CRC32; the last one (M's first bytes) first takes the state: M''. */
    private static void feed(CRC32 crc32, byte[] r, int k, boolean last, int state) {
        if (last) {
            ARRAY_INT_LE.set(r, k - 4, (int) ARRAY_INT_LE.get(r, k - 4) ^ Integer.reverse(state));
        }
        crc32.update(r, 0, k);
    }

    /** R = rev(x^-(8n+32) (E + L) + x^-32 L mod P), E being CRC32's value over M''. */
    private static int fromCrc32(CRC32 crc32, int n) {
        int[] p = INVERSE_POWERS;
        int f = p[n & 0xFF];
        for (int k = 1, m = n >>> 8; m != 0; k++, m >>>= 8) {
            if ((m & 0xFF) != 0) {
                f = mulModP(f, p[k * 256 + (m & 0xFF)]);
            }
        }
        return Integer.reverse(mulModP(f, ~(int) crc32.getValue()) ^ INIT_TERM);
    }

    /**
     * a b mod P, both in CRC32's (reflected) form: bit 31 is x^0, bit 0 x^31. Horner over the bytes of
     * a, from its highest powers: p = p x^8 + (byte of a) b, with b x^j (j < 8) computed first.
     */
    static int mulModP(int a, int b) {
        int[] t = P_BYTE;
        int b1 = (b >>> 1) ^ t[(b << 7) & 0xFF];
        int b2 = (b >>> 2) ^ t[(b << 6) & 0xFF];
        int b3 = (b >>> 3) ^ t[(b << 5) & 0xFF];
        int b4 = (b >>> 4) ^ t[(b << 4) & 0xFF];
        int b5 = (b >>> 5) ^ t[(b << 3) & 0xFF];
        int b6 = (b >>> 6) ^ t[(b << 2) & 0xFF];
        int b7 = (b >>> 7) ^ t[(b << 1) & 0xFF];
        int p = 0;
        for (int shift = 24; shift >= 0; shift -= 8) {
            int y = a << shift;                 // a's x^shift .. x^(shift+7) on top, x^shift in bit 31
            int term = (b & (y >> 31)) ^ (b1 & (y << 1 >> 31)) ^ (b2 & (y << 2 >> 31)) ^ (b3 & (y << 3 >> 31))
                    ^ (b4 & (y << 4 >> 31)) ^ (b5 & (y << 5 >> 31)) ^ (b6 & (y << 6 >> 31)) ^ (b7 & (y << 7 >> 31));
            p = (p >>> 8) ^ t[p & 0xFF] ^ term;
        }
        return p;
    }

    /** x^-e mod P, reflected. x^-1 = (P + 1) / x: P's bits shifted down, with x^31. */
    static int powInverseX(long e) {
        int result = 1 << 31;                   // x^0
        int base = Integer.reverse((Integer.reverse(ETHERNET_REFLECTED) >>> 1) | (1 << 31));
        for (; e != 0; e >>>= 1) {
            if ((e & 1) != 0) {
                result = mulModP(result, base);
            }
            base = mulModP(base, base);
        }
        return result;
    }

    // ------------------------------------------------------------------ scratch areas

    /** A CRC32 and the reversed chunk it reads. */
    private static final class Scratch {
        final CRC32 crc32 = new CRC32();
        final byte[] bytes = new byte[CHUNK];
        /** A chunk of a direct buffer, copied out as it is. */
        final byte[] forward = new byte[CHUNK];
        /** The pool slot it came from and goes back to. */
        int slot;
    }

    /**
     * A scratch area for the length of one call. Shared by all threads rather than one per thread:
     * vitcp reads each connection with its own (virtual) thread, and a CRC call never blocks, so about as
     * many are in use at once as there are cores.
     */
    private static Scratch acquire() {
        int n = POOL.length();
        int home = (int) Thread.currentThread().threadId() & (n - 1);
        for (int i = 0; i < n; i++) {
            int slot = (home + i) & (n - 1);
            Scratch s = POOL.getPlain(slot) != null ? POOL.getAndSet(slot, null) : null;
            if (s != null) {
                s.slot = slot;
                return s;
            }
        }
        Scratch s = new Scratch();              // the pool's first use, or more callers than slots
        s.slot = home;
        return s;
    }

    /** Back to its slot: a plain store (no one else holds it); a spare put there meanwhile is dropped. */
    private static void release(Scratch s) {
        POOL.setRelease(s.slot, s);
    }

    // ------------------------------------------------------------------ tables

    private static int[] sliceTables() {
        int[] t = new int[8 * 256];
        for (int n = 0; n < 256; n++) {
            int c = n;
            for (int k = 0; k < 8; k++) {
                c = (c & 1) != 0 ? (c >>> 1) ^ REFLECTED : c >>> 1;
            }
            t[n] = c;
        }
        for (int n = 0; n < 256; n++) {
            for (int k = 1; k < 8; k++) {
                int prev = t[(k - 1) * 256 + n];
                t[k * 256 + n] = (prev >>> 8) ^ t[prev & 0xFF];
            }
        }
        return t;
    }

    private static int[] pByteTable() {
        int[] t = new int[256];
        for (int n = 0; n < 256; n++) {
            int c = n;
            for (int k = 0; k < 8; k++) {
                c = (c & 1) != 0 ? (c >>> 1) ^ ETHERNET_REFLECTED : c >>> 1;
            }
            t[n] = c;
        }
        return t;
    }

    private static int[] inversePowers() {
        int[] t = new int[4 * 256];
        for (int k = 0; k < 4; k++) {
            int step = powInverseX(8L << (8 * k));          // x^-(8 256^k)
            int p = k == 0 ? powInverseX(32) : 1 << 31;
            for (int d = 0; d < 256; d++) {
                t[k * 256 + d] = p;
                p = mulModP(p, step);
            }
        }
        return t;
    }
}
