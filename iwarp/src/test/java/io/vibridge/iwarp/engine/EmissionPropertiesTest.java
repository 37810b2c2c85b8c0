package io.vibridge.iwarp.engine;

import io.vibridge.iwarp.wire.RdmapOpcode;
import io.vibridge.iwarp.wire.TerminateCode;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Any sequence of messages of any sizes at any FPDU size the engine accepts (56 bytes up, past the 16-bit
 * length field), with or without CRC, decodes back to the calls made ({@link Emitter#check}).
 */
class EmissionPropertiesTest {

    record Msg(int kind, int size) {
    }

    @Provide
    Arbitrary<Msg> messages() {
        Arbitrary<Integer> sizes = Arbitraries.oneOf(Arbitraries.integers().between(0, 3000),
                Arbitraries.integers().between(0, 140_000));
        return Combinators.combine(Arbitraries.integers().between(0, 6), sizes).as(Msg::new);
    }

    @Provide
    Arbitrary<Integer> fpduSizes() {
        return Arbitraries.oneOf(Arbitraries.integers().between(56, 70_000),
                Arbitraries.of(56, 57, 64, 1448, 9000, 32768, 65535, 65536, 65539, 65540, 65544));
    }

    @Property(tries = 250)
    void anyMessagesDecodeToWhatWasAsked(@ForAll("fpduSizes") int maxFpdu, @ForAll boolean crc,
            @ForAll @Size(min = 1, max = 8) List<@From("messages") Msg> msgs, @ForAll long seed,
            @ForAll @IntRange(min = 0, max = 1) int endWithTerminate) {
        Random rnd = new Random(seed);
        Emitter e = new Emitter(maxFpdu, crc);
        for (Msg m : msgs) {
            byte[] p = new byte[m.size()];
            rnd.nextBytes(p);
            switch (m.kind()) {
                case 0 -> e.send(RdmapOpcode.SEND, p, 0);
                case 1 -> e.send(RdmapOpcode.SEND_SE, p, 0);
                case 2 -> e.send(RdmapOpcode.SEND_INVALIDATE, p, rnd.nextInt());
                case 3 -> e.send(RdmapOpcode.SEND_SE_INVALIDATE, p, rnd.nextInt());
                case 4 -> e.write(rnd.nextInt(), rnd.nextLong() >>> 1, p);
                case 5 -> e.readResponse(rnd.nextInt(), rnd.nextLong() >>> 1, p);
                default -> e.readRequest(m.size(), rnd.nextInt(), rnd.nextLong());
            }
        }
        if (endWithTerminate == 1) {
            e.terminate(TerminateCode.values()[rnd.nextInt(TerminateCode.values().length)]);
        }
        e.check();
    }
}
