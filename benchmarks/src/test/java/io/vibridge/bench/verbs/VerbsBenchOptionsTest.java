package io.vibridge.bench.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code VerbsBench --cq-moderation}: what it accepts, and that the server is given the same value. */
class VerbsBenchOptionsTest {
    private final VerbsBench.ModerationConverter converter = new VerbsBench.ModerationConverter();

    @Test
    void countOverPeriodOrOff() {
        assertThat(converter.convert("16/500")).isEqualTo(new VerbsBench.Moderation(16, 500));
        assertThat(converter.convert(" 2 / 1 ")).isEqualTo(new VerbsBench.Moderation(2, 1));
        assertThat(converter.convert("OFF")).isNull();
        assertThat(converter.convert("65535/65535").toString()).isEqualTo("65535/65535");   // what the server gets
    }

    @Test
    void valuesTheVerbRefusesAreRefusedHere() {
        for (String bad : new String[] {"", "16", "16/", "/500", "1/500", "16/0", "65536/500", "16/65536", "a/b",
                "16/500/1", "-4/500"}) {
            assertThatThrownBy(() -> converter.convert(bad)).as(bad)
                    .isInstanceOf(CommandLine.TypeConversionException.class).hasMessageContaining("COUNT/PERIOD_US");
        }
    }

    @Test
    void theDefaultModerates() {
        VerbsBench bench = new VerbsBench();
        new CommandLine(bench).parseArgs();
        assertThat(bench.cqModeration).isEqualTo(new VerbsBench.Moderation(16, 500));
    }
}
