package io.vibridge.testcontainers;

/** What the demo target does with a connection ({@code vibridge target --mode}). */
public enum TargetMode {
    /** Sends each Send back; RDMA Writes and Reads reach its region. */
    ECHO("echo"),
    /** Takes Sends and answers nothing. */
    SINK("sink"),
    /** Sends messages of {@code --size} bytes as fast as the client's receives allow. */
    SOURCE("source"),
    /** Echo, and each RDMA Write with immediate data answered by an empty Send with its immediate. */
    ECHO_ACK_WRITES("echo-ack-writes");

    private final String cliName;

    TargetMode(String cliName) {
        this.cliName = cliName;
    }

    /** As {@code vibridge target --mode} takes it. */
    public String cliName() {
        return cliName;
    }
}
