package io.vibridge.gateway.bridge;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

/** The gateway's client front ends, for suites that run over every one of them ({@code @EnumSource}). */
enum FrontEndKind {
    /** VI over TCP (VITCP-PROFILE). */
    VI_TCP,
    /** iWARP: MPA, DDP and RDMAP over TCP (RFC 5040-5044, 6581). */
    IWARP;

    /** A driver for clients of {@code routes}, each reached through this front end's listeners. */
    ClientDriver open(Duration requestTimeout, String... routes) throws IOException {
        return switch (this) {
            case VI_TCP -> new ViTcpDriver(requestTimeout);
            case IWARP -> new IwarpDriver(requestTimeout, List.of(routes));
        };
    }
}
