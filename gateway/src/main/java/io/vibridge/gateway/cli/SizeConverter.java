package io.vibridge.gateway.cli;

import io.vibridge.gateway.tools.Sizes;
import picocli.CommandLine;

/** Size options ({@code 65536}, {@code 64KiB}, {@code 16MiB}): {@link Sizes#parse}, a bad one being an option error. */
final class SizeConverter implements CommandLine.ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
        try {
            return Sizes.parse(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
