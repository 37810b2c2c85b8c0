package io.vibridge.vitcp.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.vitcp.wire.Encapsulation;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine.TypeConversionException;

class OptionConverterTest {

    @ParameterizedTest
    @CsvSource({"ud,UNRELIABLE_DELIVERY", "UD,UNRELIABLE_DELIVERY", "unreliable,UNRELIABLE_DELIVERY",
        "0,UNRELIABLE_DELIVERY", "UNRELIABLE_DELIVERY,UNRELIABLE_DELIVERY", "rd,RELIABLE_DELIVERY",
        "reliable-delivery,RELIABLE_DELIVERY", "RELIABLE_DELIVERY,RELIABLE_DELIVERY", "1,RELIABLE_DELIVERY",
        "rr,RELIABLE_RECEPTION", "Reliable-Reception,RELIABLE_RECEPTION", "2,RELIABLE_RECEPTION"})
    void everySpellingOfEveryCommandNamesItsLevel(String text, ReliabilityLevel level) {
        assertThat(new ReliabilityConverter().convert(text)).isEqualTo(level);
    }

    @Test
    void aRefusalNamesTheAcceptedForms() {
        assertThatThrownBy(() -> new ReliabilityConverter().convert("sometimes"))
                .isInstanceOf(TypeConversionException.class)
                .hasMessage("must be ud, rd or rr (UNRELIABLE_DELIVERY, RELIABLE_DELIVERY or RELIABLE_RECEPTION; "
                        + "0, 1 or 2), got 'sometimes'");
        assertThatThrownBy(() -> new EncapsulationConverter().convert("tcp"))
                .isInstanceOf(TypeConversionException.class).hasMessageContaining("vitcp or rdmatcp");
    }

    @Test
    void enumConstantsByTheirLowerCaseNames() {
        assertThat(OptionConverter.cliName(ReliabilityLevel.RELIABLE_RECEPTION)).isEqualTo("reliable-reception");
        assertThat(OptionConverter.byCliName(ReliabilityLevel.class, " Reliable_Delivery "))
                .isEqualTo(ReliabilityLevel.RELIABLE_DELIVERY);
        assertThat(OptionConverter.byCliName(Encapsulation.class, "rdmatcp")).isEqualTo(Encapsulation.RDMATCP);
        assertThatThrownBy(() -> OptionConverter.byCliName(ReliabilityLevel.class, "best-effort"))
                .hasMessage("must be unreliable-delivery, reliable-delivery or reliable-reception, got 'best-effort'");
    }
}
