package io.vibridge.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.vertx.core.transport.Transport;
import io.vibridge.gateway.config.GatewayConfig;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which transport the event loops get for {@code vibridge.gateway.transport}, with epoll there and absent. */
class EventLoopsTest {

    /** An epoll transport whose native library did not load. */
    private static final Transport ABSENT = new Transport() {
        @Override
        public String name() {
            return "epoll";
        }

        @Override
        public boolean available() {
            return false;
        }

        @Override
        public Throwable unavailabilityCause() {
            return new UnsatisfiedLinkError("no netty_transport_native_epoll in java.library.path");
        }

        @Override
        public io.vertx.core.spi.transport.Transport implementation() {
            return null;
        }
    };

    @Test
    void autoTakesEpollWhenItLoadsElseNio() {
        assertThat(EventLoops.choose(GatewayConfig.Transport.AUTO, ABSENT)).isSameAs(Transport.NIO);
        if (Transport.EPOLL.available()) {
            assertThat(EventLoops.choose(GatewayConfig.Transport.AUTO, Transport.EPOLL)).isSameAs(Transport.EPOLL);
        }
    }

    @Test
    void nioIsNioAndEpollIsEpollOrAnErrorSayingWhy() {
        assertThat(EventLoops.choose(GatewayConfig.Transport.NIO, Transport.EPOLL)).isSameAs(Transport.NIO);
        assertThatThrownBy(() -> EventLoops.choose(GatewayConfig.Transport.EPOLL, ABSENT))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("transport = epoll")
                .hasMessageContaining("no netty_transport_native_epoll");
    }

    @Test
    void theNativeTransportIsPackagedForLinux() {
        // the gateway's lib directory (and so the image) carries netty-transport-native-epoll for x86_64 and aarch64
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        assumeTrue(System.getProperty("os.name", "").equalsIgnoreCase("linux") && Set.of("amd64", "aarch64").contains(arch),
                "Linux x86_64 or aarch64 only");
        assertThat(Transport.EPOLL.available()).as("%s", Transport.EPOLL.unavailabilityCause()).isTrue();
    }
}
