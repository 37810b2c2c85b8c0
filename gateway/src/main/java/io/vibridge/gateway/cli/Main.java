package io.vibridge.gateway.cli;

import io.vibridge.gateway.config.ConfigError;
import io.vibridge.gateway.server.StartupError;
import io.vibridge.vitcp.cli.CommandLines;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code vibridge} command line: one entry point for the gateway service and its tools. Every
 * command has {@code --help} and {@code --version} (inherited from here); errors follow
 * {@link CommandLines}: a bad option, configuration or start-up fault is one line and exit code 2.
 */
@Command(name = "vibridge",
        mixinStandardHelpOptions = true,
        scope = CommandLine.ScopeType.INHERIT,
        versionProvider = VersionProvider.class,
        description = "VI over TCP to InfiniBand RC bridging gateway.",
        subcommands = {
                GatewayCommand.class,
                DemoCommand.class,
                HealthcheckCommand.class,
                TargetCommand.class,
                PingCommand.class,
                PerfCommand.class,
                DevicesCommand.class,
                ConnectionsCommand.class,
                StatCommand.class,
                CommandLine.HelpCommand.class
        })
public final class Main implements Runnable {
    /** The environment variable (or -D property) choosing the log layout: text or json. */
    static final String LOG_FORMAT = "VIBRIDGE_LOG_FORMAT";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        // logback reads it (logback.xml); a value it has no layout for would leave the process without logs
        String logFormat = System.getProperty(LOG_FORMAT, System.getenv(LOG_FORMAT));
        if (logFormat != null && !logFormat.equals("text") && !logFormat.equals("json")) {
            System.err.println("vibridge: " + LOG_FORMAT + " must be text or json, got '" + logFormat + "'");
            System.exit(CommandLines.USER_ERROR);
        }
        System.exit(execute(args));
    }

    /** Runs the command line without exiting the JVM; returns the exit code. */
    public static int execute(String... args) {
        return commandLine().execute(args);
    }

    /** The whole command line with its error handling; tests set its output writers. */
    public static CommandLine commandLine() {
        return CommandLines.configure(new CommandLine(new Main()), Main::userError);
    }

    /** The one-line report of a configuration or start-up fault; null for anything else (a bug: stack trace). */
    static String userError(Exception e) {
        return e instanceof ConfigError || e instanceof StartupError ? e.getMessage() : null;
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(),
                "a command is required (vibridge help lists them)");
    }
}
