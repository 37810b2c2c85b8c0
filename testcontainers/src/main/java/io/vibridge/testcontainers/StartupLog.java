package io.vibridge.testcontainers;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.function.Consumer;
import org.testcontainers.containers.output.OutputFrame;

/**
 * The last lines a container printed (stdout and stderr), kept so that a failure to start can quote them
 * and the target's readiness line can be seen. Frames arrive on Testcontainers' log thread.
 */
final class StartupLog implements Consumer<OutputFrame> {
    static final int LINES = 30;

    private final ArrayDeque<String> lines = new ArrayDeque<>();
    private final StringBuilder partial = new StringBuilder();

    @Override
    public synchronized void accept(OutputFrame frame) {
        if (frame.getBytes() == null) {
            return;
        }
        partial.append(new String(frame.getBytes(), StandardCharsets.UTF_8));
        int nl;
        while ((nl = partial.indexOf("\n")) >= 0) {
            add(partial.substring(0, nl));
            partial.delete(0, nl + 1);
        }
    }

    private void add(String line) {
        if (lines.size() == LINES) {
            lines.removeFirst();
        }
        lines.addLast(line.stripTrailing());
    }

    synchronized boolean contains(String text) {
        return lines.stream().anyMatch(l -> l.contains(text)) || partial.indexOf(text) >= 0;
    }

    /** The lines kept, one per line, each indented; "(no output)" when there are none. */
    synchronized String tail() {
        if (lines.isEmpty() && partial.isEmpty()) {
            return "  (no output)";
        }
        StringBuilder b = new StringBuilder();
        lines.forEach(l -> b.append("  ").append(l).append('\n'));
        if (!partial.isEmpty()) {
            b.append("  ").append(partial).append('\n');
        }
        return b.toString().stripTrailing();
    }
}
