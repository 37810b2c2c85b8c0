package io.vibridge.vitcp.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DiscriminatorTest {

    @Test
    void configurationTextIsUtf8OrHex() {
        assertThat(Discriminator.parse("hex:0a0B").bytes()).containsExactly(0x0A, 0x0B);
        assertThat(Discriminator.parse("HEX:")).isSameAs(Discriminator.EMPTY);
        assertThat(Discriminator.parse("héllo").bytes()).hasSize(6);
        assertThat(Discriminator.parse("x".repeat(64)).length()).isEqualTo(64);
        assertThat(Discriminator.parse("ab")).isEqualTo(Discriminator.parse("hex:6162"));
    }

    @Test
    void refusesBadHexAndMoreThan64Bytes() {
        assertThatThrownBy(() -> Discriminator.parse("x".repeat(65)))
                .hasMessage("a discriminator is at most 64 bytes, got 65");
        assertThatThrownBy(() -> Discriminator.of(new byte[65])).hasMessageContaining("at most 64");
        assertThatThrownBy(() -> Discriminator.parse("hex:abc")).hasMessageContaining("even number");
        assertThatThrownBy(() -> Discriminator.parse("hex:zz")).hasMessageContaining("hex");
    }

    @Test
    void printsTheConfigurationForm() {
        assertThat(Discriminator.parse("storage")).hasToString("\"storage\"");
        assertThat(Discriminator.parse("hex:00ff")).hasToString("hex:00ff");
        assertThat(Discriminator.parse("hex:6865783a")).as("text starting hex: prints as hex")
                .hasToString("hex:6865783a");
        assertThat(Discriminator.EMPTY).hasToString("\"\"");
    }
}
