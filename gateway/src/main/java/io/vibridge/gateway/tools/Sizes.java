package io.vibridge.gateway.tools;

import java.util.Locale;

/** Command-line value parsing shared by the tools: byte sizes. */
public final class Sizes {
    private Sizes() {
    }

    /** {@code 65536}, {@code 64KiB}, {@code 64k}, {@code 16MiB}, {@code 1G}: bytes, at most {@code Integer.MAX_VALUE}. */
    public static int parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT).replace("_", "");
        long mult = 1;
        String[][] units = {{"kib", "1024"}, {"mib", "1048576"}, {"gib", "1073741824"}, {"kb", "1000"},
            {"mb", "1000000"}, {"gb", "1000000000"}, {"k", "1024"}, {"m", "1048576"}, {"g", "1073741824"}, {"b", "1"}};
        for (String[] u : units) {
            if (t.endsWith(u[0])) {
                mult = Long.parseLong(u[1]);
                t = t.substring(0, t.length() - u[0].length()).trim();
                break;
            }
        }
        long v;
        try {
            v = Long.parseLong(t) * mult;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a size: '" + text + "' (e.g. 65536, 64KiB, 16MiB)");
        }
        if (v < 0 || v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("size out of range: '" + text + "'");
        }
        return (int) v;
    }
}
