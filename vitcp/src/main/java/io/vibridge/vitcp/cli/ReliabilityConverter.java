package io.vibridge.vitcp.cli;

import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.util.Locale;

/**
 * {@code --reliability}: {@code ud}, {@code rd}, {@code rr}; the level's name ({@code UNRELIABLE_DELIVERY},
 * {@code RELIABLE_DELIVERY}, {@code RELIABLE_RECEPTION}, {@code -} for {@code _}; {@code unreliable}); or its
 * Attributes code {@code 0}, {@code 1}, {@code 2} (VITCP-PROFILE §5). Case-insensitive.
 */
public final class ReliabilityConverter extends OptionConverter<ReliabilityLevel> {

    public ReliabilityConverter() {
        super(ReliabilityConverter::parse);
    }

    /**
     * The level {@code text} names.
     *
     * @throws IllegalArgumentException if it names none
     */
    public static ReliabilityLevel parse(String text) {
        return switch (text.strip().toLowerCase(Locale.ROOT).replace('_', '-')) {
            case "0", "ud", "unreliable", "unreliable-delivery" -> ReliabilityLevel.UNRELIABLE_DELIVERY;
            case "1", "rd", "reliable-delivery" -> ReliabilityLevel.RELIABLE_DELIVERY;
            case "2", "rr", "reliable-reception" -> ReliabilityLevel.RELIABLE_RECEPTION;
            default -> throw new IllegalArgumentException("must be ud, rd or rr (UNRELIABLE_DELIVERY, "
                    + "RELIABLE_DELIVERY or RELIABLE_RECEPTION; 0, 1 or 2), got '" + text + "'");
        };
    }
}
