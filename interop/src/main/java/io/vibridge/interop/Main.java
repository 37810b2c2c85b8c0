package io.vibridge.interop;

import io.vibridge.interop.cli.InteropCommand;
import io.vibridge.interop.cli.PingpongCommand;
import io.vibridge.interop.cli.RpingCommand;
import io.vibridge.interop.cli.ViRpingCommand;
import io.vibridge.interop.cli.Watchdog;
import io.vibridge.interop.support.Outcome;
import java.io.PrintStream;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The interop suite's host-side programs:
 * {@code java --enable-native-access=ALL-UNNAMED -cp 'interop/target/lib/*' io.vibridge.interop.Main <command> ...}
 * with {@code rping}, {@code pingpong} or {@code vi-rping}. Each prints progress, then one line
 * {@code RESULT <name> PASS|FAIL <details>}, and exits 0 on PASS, 1 on FAIL.
 */
@Command(name = "interop",
        header = "Real-peer interop programs: rping, ibv_rc_pingpong and rping over VI/TCP through the gateway.",
        description = "Each prints progress, then RESULT <name> PASS|FAIL <details>; exit 0 on PASS, 1 on FAIL.",
        subcommands = {RpingCommand.class, PingpongCommand.class, ViRpingCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Runnable {
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        Watchdog.enable();
        System.exit(execute(System.out, args));
    }

    /** Runs a command line in this JVM (no watchdog unless {@link #main} armed it); returns the exit code. */
    public static int execute(PrintStream out, String... args) {
        return execute(out, System.err, args);
    }

    /** As {@link #execute(PrintStream, String...)}, with usage messages to {@code err}. */
    public static int execute(PrintStream out, PrintStream err, String... args) {
        CommandLine cl = new CommandLine(new Main(), new Factory(out));
        cl.setErr(new PrintWriter(err, true));
        cl.setParameterExceptionHandler((ex, a) -> {
            CommandLine c = ex.getCommandLine();
            c.getErr().println(ex.getMessage());
            c.usage(c.getErr());
            out.println(Outcome.fail(c.getCommandName(), "usage: " + ex.getMessage()).line());
            out.flush();
            return 1;
        });
        return cl.execute(args);
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(),
                "a command is required: rping, pingpong or vi-rping");
    }

    /** Gives every command the output stream. */
    private record Factory(PrintStream out) implements CommandLine.IFactory {
        @Override
        public <K> K create(Class<K> cls) throws Exception {
            K k = CommandLine.defaultFactory().create(cls);
            if (k instanceof InteropCommand c) {
                c.output(out);
            }
            return k;
        }
    }
}
