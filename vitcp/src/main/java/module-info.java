/**
 * VI over TCP: the wire codecs, the sans-I/O connection engine and the VI Provider library for Java
 * applications ({@code io.vibridge.vitcp.provider}). An application needs slf4j-api beside it and nothing
 * else: picocli serves only the module's own {@code echo} command, the Vector API only a faster CRC when
 * the JVM runs with {@code --add-modules jdk.incubator.vector}.
 */
module io.vibridge.vitcp {
    requires org.slf4j;
    // the echo command (io.vibridge.vitcp.cli) only: not exported, not needed by applications
    requires static info.picocli;
    // VectorBitReversal, used only when the JVM has the module (BitReversal.best())
    requires static jdk.incubator.vector;

    exports io.vibridge.vitcp.provider;
    exports io.vibridge.vitcp.wire;
    exports io.vibridge.vitcp.engine;
    exports io.vibridge.vitcp.rdmatcp;
    exports io.vibridge.vitcp.security;

    // picocli fills the command's @Option fields reflectively
    opens io.vibridge.vitcp.cli to info.picocli;
}
