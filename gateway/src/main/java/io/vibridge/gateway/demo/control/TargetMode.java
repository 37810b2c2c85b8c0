package io.vibridge.gateway.demo.control;

import java.util.Locale;

/**
 * What the demo target does with the data messages it receives (control Sends are answered in every
 * mode). The wire value in SET_MODE is the ordinal: new modes are appended, existing codes never move.
 */
public enum TargetMode {
    /**
     * Every Send goes back as a Send with the same payload and immediate. An RDMA Write with immediate
     * consumes a receive (VIA 10.2, CM-MAPPING §4) and is not answered: the receive is reposted, as
     * the vitcp {@code echo} command does.
     */
    ECHO("echo"),
    /** Sends (and RDMA Writes with immediate) are counted and dropped (the receive is reposted). */
    SINK("sink"),
    /** Sinks what arrives and sends {@code --size}-byte Sends continuously while the peer can take them. */
    SOURCE("source"),
    /**
     * {@link #ECHO}, and every RDMA Write with immediate is answered too, by an empty Send carrying the
     * same immediate (what echo did in earlier versions): for a peer that waits for a completion of
     * each write on its own receive queue. The peer must keep a receive posted for each such answer.
     */
    ECHO_ACK_WRITES("echo-ack-writes");

    private final String cliName;

    TargetMode(String cliName) {
        this.cliName = cliName;
    }

    /** The name on the command line ({@code --mode}) and in log lines. */
    public String cliName() {
        return cliName;
    }

    /** Whether data Sends are echoed. */
    public boolean echoesSends() {
        return this == ECHO || this == ECHO_ACK_WRITES;
    }

    /** Whether an RDMA Write with immediate is answered by an empty Send with its immediate. */
    public boolean answersWritesWithImmediate() {
        return this == ECHO_ACK_WRITES;
    }

    /** Wire value in SET_MODE. */
    public int code() {
        return ordinal();
    }

    public static TargetMode ofCode(int code) {
        TargetMode[] all = values();
        if (code < 0 || code >= all.length) {
            throw new IllegalArgumentException("mode code " + code);
        }
        return all[code];
    }

    /** Parses a {@link #cliName()} (case-insensitive; {@code _} accepted for {@code -}). */
    public static TargetMode fromCliName(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT).replace('_', '-');
        for (TargetMode m : values()) {
            if (m.cliName.equals(n)) {
                return m;
            }
        }
        throw new IllegalArgumentException("must be " + names() + ", got '" + name + "'");
    }

    /** "echo, sink, source or echo-ack-writes". */
    public static String names() {
        TargetMode[] all = values();
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < all.length; i++) {
            b.append(i == 0 ? "" : i == all.length - 1 ? " or " : ", ").append(all[i].cliName);
        }
        return b.toString();
    }
}
