package io.vibridge.interop.support;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** A program's progress output, kept for the assertions (and shown when one fails). */
public final class Captured {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    public final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    @Override
    public synchronized String toString() {
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
