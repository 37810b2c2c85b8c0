package io.vibridge.vitcp.cli;

import java.util.Locale;
import java.util.function.Function;
import picocli.CommandLine;

/**
 * A picocli converter that parses an option's text with a function of the type it makes: a refusal (an
 * {@link IllegalArgumentException}) becomes picocli's "Invalid value for option '--x': <em>reason</em>", exit
 * {@value CommandLines#USER_ERROR}. picocli instantiates a converter by its class, so each option type has a
 * subclass naming its function.
 */
public abstract class OptionConverter<T> implements CommandLine.ITypeConverter<T> {

    private final Function<String, T> parse;

    protected OptionConverter(Function<String, T> parse) {
        this.parse = parse;
    }

    @Override
    public final T convert(String text) {
        try {
            return parse.apply(text);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }

    /** How a constant is written on the command line: its name in lower case, {@code -} for {@code _}. */
    public static String cliName(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * The constant of {@code type} whose {@linkplain #cliName(Enum) command-line name} is {@code text}, ignoring
     * case and surrounding blanks.
     *
     * @throws IllegalArgumentException naming the accepted names
     */
    public static <E extends Enum<E>> E byCliName(Class<E> type, String text) {
        String name = text.strip().replace('_', '-');
        E[] all = type.getEnumConstants();
        StringBuilder names = new StringBuilder();
        for (int i = 0; i < all.length; i++) {
            if (cliName(all[i]).equalsIgnoreCase(name)) {
                return all[i];
            }
            names.append(i == 0 ? "" : i == all.length - 1 ? " or " : ", ").append(cliName(all[i]));
        }
        throw new IllegalArgumentException("must be " + names + ", got '" + text + "'");
    }
}
