package io.vibridge.verbs.soft.wire;

import java.util.HexFormat;

/** Hex literals for golden vectors: whitespace and "0000:" style offsets are ignored. */
final class Hex {

    private Hex() {
    }

    static byte[] bytes(String dump) {
        StringBuilder sb = new StringBuilder();
        for (String line : dump.split("\n")) {
            String l = line.strip();
            int colon = l.indexOf(':');
            if (colon >= 0 && colon <= 6) {
                l = l.substring(colon + 1);
            }
            sb.append(l.replaceAll("\\s+", ""));
        }
        return HexFormat.of().parseHex(sb.toString());
    }

    static String of(byte[] b) {
        return HexFormat.of().formatHex(b);
    }
}
