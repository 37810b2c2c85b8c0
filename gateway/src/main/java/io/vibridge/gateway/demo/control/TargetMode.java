package io.vibridge.gateway.demo.control;

/** What the demo target does with the data Sends it receives (control Sends are answered in every mode). */
public enum TargetMode {
    /** Every Send (and RDMA Write with immediate) goes back as a Send with the same payload and immediate. */
    ECHO,
    /** Sends are counted and dropped (the receive is reposted). */
    SINK,
    /** Sinks what arrives and sends {@code --size}-byte Sends continuously while the peer can take them. */
    SOURCE;

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
}
