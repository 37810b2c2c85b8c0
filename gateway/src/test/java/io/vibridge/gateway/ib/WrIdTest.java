package io.vibridge.gateway.ib;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class WrIdTest {

    private enum Kind { RECV, SEND, WRITE }

    private static final Kind[] KINDS = Kind.values();

    @Property
    void kindAndSlotRoundTrip(@ForAll Kind kind, @ForAll int slot) {
        long id = WrId.of(kind, slot);
        assertThat(WrId.kind(id, KINDS)).isEqualTo(kind);
        assertThat(WrId.slot(id)).isEqualTo(slot);
    }

    @Test
    void kindIsTheOrdinalPlusOneInTheHighHalf() {
        assertThat(WrId.of(Kind.RECV, 7)).isEqualTo((1L << 32) | 7);
        assertThat(WrId.of(Kind.WRITE, -1)).isEqualTo((3L << 32) | 0xFFFF_FFFFL);
    }

    @Test
    void idsNotMadeByTheCodecHaveNoKind() {
        assertThatThrownBy(() -> WrId.kind(0, KINDS)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WrId.kind(4L << 32, KINDS)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WrId.kind(-1L, KINDS)).isInstanceOf(IllegalArgumentException.class);
    }
}
