package io.vibridge.gateway.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code vibridge} command line: one entry point for the gateway service and its tools.
 */
@Command(name = "vibridge",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "VI over TCP to InfiniBand RC bridging gateway.",
        subcommands = {
                GatewayCommand.class,
                DemoCommand.class,
                HealthcheckCommand.class,
                TargetCommand.class,
                PingCommand.class,
                PerfCommand.class,
                CommandLine.HelpCommand.class
        })
public final class Main implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /** Runs the command line without exiting the JVM; returns the exit code. */
    public static int execute(String... args) {
        return new CommandLine(new Main()).execute(args);
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required");
    }
}
