package io.vibridge.vitcp.cli;

import io.vibridge.vitcp.security.ConnectKeys;
import java.io.PrintWriter;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The conventions of every vibridge command line (the gateway's {@code vibridge}, this module's echo
 * endpoint): a user's mistake (a bad option, configuration or start-up fault) is one line on stderr
 * naming what is wrong, exit code {@value #USER_ERROR}, the usage only on request ({@code --help}); an
 * unexpected failure keeps its stack trace and exits 1.
 */
public final class CommandLines {
    /** Exit code of a user's mistake. */
    public static final int USER_ERROR = 2;

    private CommandLines() {
    }

    /**
     * {@code cl} with the handlers installed.
     *
     * @param userError the one-line message of an exception a command threw because of what the user
     *     gave it, or null when the exception is a bug (then: stack trace, exit 1)
     */
    public static CommandLine configure(CommandLine cl, Function<Exception, String> userError) {
        cl.setParameterExceptionHandler(CommandLines::badOption);
        cl.setExecutionExceptionHandler((e, c, parsed) -> {
            String line = userError.apply(e);
            if (line == null) {
                throw e; // picocli prints the stack trace and exits 1
            }
            c.getErr().println(c.getCommandSpec().qualifiedName() + ": " + line);
            c.getErr().flush();
            return USER_ERROR;
        });
        return cl;
    }

    /**
     * The bytes of a {@code --key} option ({@link ConnectKeys}), or null when it was not given; a bad key is
     * an option error of {@code spec}'s command. (Not a picocli converter: picocli takes a {@code byte[]}
     * option for a list of bytes.)
     */
    public static byte[] key(CommandSpec spec, String text) {
        if (text == null) {
            return null;
        }
        try {
            return ConnectKeys.decode(text);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "Invalid value for option '--key': " + e.getMessage());
        }
    }

    private static int badOption(CommandLine.ParameterException e, String[] args) {
        CommandLine c = e.getCommandLine();
        PrintWriter err = c.getErr();
        String name = c.getCommandSpec().qualifiedName();
        err.println(name + ": " + e.getMessage());
        CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
        err.println("Try '" + name + " --help' for more information.");
        err.flush();
        return USER_ERROR;
    }
}
