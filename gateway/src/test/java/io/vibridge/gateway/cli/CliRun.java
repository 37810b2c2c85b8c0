package io.vibridge.gateway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import picocli.CommandLine;

/** One in-process run of {@code vibridge ...} with its output and error writers captured. */
public record CliRun(int code, String out, String err) {

    public static CliRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new CliRun(code, out.toString(), err.toString());
    }

    List<String> errLines() {
        return err.lines().toList();
    }

    /**
     * Exit code 2; stderr's first line is the error, after "vibridge COMMAND: " ("vibridge: " for ""), with
     * {@code fragments}; no stack trace, no usage.
     */
    CliRun assertUserError(String command, String... fragments) {
        assertThat(code).as(err).isEqualTo(2);
        assertThat(errLines()).as(err).isNotEmpty();
        assertThat(errLines().getFirst()).startsWith(command.isEmpty() ? "vibridge: " : "vibridge " + command + ": ")
                .contains(fragments);
        assertThat(out + err).doesNotContain("Exception").doesNotContain("at io.").doesNotContain("Usage:");
        return this;
    }

    /** {@link #assertUserError} and nothing else on stderr: configuration and start-up faults. */
    CliRun assertOneLineError(String command, String... fragments) {
        assertUserError(command, fragments);
        assertThat(errLines()).as(err).hasSize(1);
        return this;
    }
}
