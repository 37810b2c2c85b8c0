/**
 * iWARP as Linux siw speaks it (RFC 5040 RDMAP, 5041 DDP, 5044 MPA, 6581): codecs and the sans-I/O
 * connection engine, plain Java over {@code ByteBuffer} with no dependency.
 */
module io.vibridge.iwarp {
    exports io.vibridge.iwarp.engine;
    exports io.vibridge.iwarp.mpa;
    exports io.vibridge.iwarp.wire;
}
