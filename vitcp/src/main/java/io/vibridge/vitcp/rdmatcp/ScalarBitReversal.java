package io.vibridge.vitcp.rdmatcp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * {@link BitReversal} in plain Java: a scalar pass that copies the chunk's 64-bit words in reverse order
 * (C2 does not vectorise a loop that reads backwards), then an in-place {@link Long#reverse} pass that it
 * does vectorise. This pass is most of what the reciprocal CRC path costs (RdmaTcpCrcBench).
 */
final class ScalarBitReversal implements BitReversal {

    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    @Override
    public void reverse(byte[] src, int hi, byte[] r, int k) {
        int words = k & ~7;
        for (int j = 0; j < words; j += 8) {
            LONG_LE.set(r, j, (long) LONG_LE.get(src, hi - 8 - j));
        }
        for (int j = 0; j < words; j += 8) {
            LONG_LE.set(r, j, Long.reverse((long) LONG_LE.get(r, j)));
        }
        BitReversal.reverseTail(src, hi, r, words, k);
    }

    @Override
    public String description() {
        return "scalar";
    }
}
