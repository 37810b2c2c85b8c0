package io.vibridge.verbs.soft.port;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** Views of a received GRO group: index 0 is each datagram's first byte; views are reused while sizes recur. */
class ReceivedGroupTest {
    private final ByteBuffer buf = ByteBuffer.allocateDirect(1 << 16);
    private final ReceivedGroup group = new ReceivedGroup(buf);

    @Test
    void eachDatagramStartsAtIndexZeroWithItsLength() {
        for (int i = 0; i < 3 * 100 + 40; i++) {
            buf.put(i, (byte) (i / 100));
        }
        ByteBuffer first = group.datagram(0, 100, 100);
        assertThat(first).isSameAs(buf);
        assertThat(first.get(0)).isEqualTo((byte) 0);
        assertThat(first.limit()).isEqualTo(100);
        ByteBuffer third = group.datagram(2, 100, 100);
        assertThat(third.get(0)).isEqualTo((byte) 2);
        assertThat(third.get(99)).isEqualTo((byte) 2);
        ByteBuffer last = group.datagram(3, 100, 40);               // a shorter last datagram
        assertThat(last.position()).isZero();
        assertThat(last.limit()).isEqualTo(40);
        assertThat(last.get(0)).isEqualTo((byte) 3);
    }

    @Test
    void viewsAreReusedForARecurringSize() {
        ByteBuffer a = group.datagram(5, 4112, 4112);
        group.datagram(5, 1024, 1024);                              // another size in between
        assertThat(group.datagram(5, 4112, 4112)).isSameAs(a);
    }

    @Test
    void aFifthSizeEvictsTheOldest() {
        ByteBuffer a = group.datagram(1, 100, 100);
        for (int size = 200; size <= 500; size += 100) {
            group.datagram(1, size, size);
        }
        assertThat(group.datagram(1, 100, 100)).isNotSameAs(a);
    }
}
