package io.vibridge.bench.cm;

import io.vibridge.cm.route.Route;
import io.vibridge.cm.route.RouteParameters;
import io.vibridge.cm.route.RouteTarget;
import io.vibridge.cm.route.Routes;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Route lookup of a called discriminator, once per Connect Request, in a table of 1000 exact routes and
 * 1000 prefixes: an exact hit, a prefix hit and a direct {@code host:port} route.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class RoutesBench {

    static final int ROUTES = 1000;

    private Routes routes;
    private final byte[] calledExact = "service-500".getBytes(StandardCharsets.UTF_8);
    private final byte[] calledPrefix = "tenant-999/volume-7".getBytes(StandardCharsets.UTF_8);
    private final byte[] calledDirect = "10.0.0.1:4420".getBytes(StandardCharsets.UTF_8);

    @Setup
    public void setup() {
        InetAddress dst = InetAddress.ofLiteral("192.168.1.20");
        Routes.Builder builder = Routes.builder();
        for (int r = 0; r < ROUTES; r++) {
            RouteTarget t = new RouteTarget(dst, 1 + r, RouteParameters.DEFAULTS);
            builder.exact("service-" + r, t).prefix("tenant-" + r + "/", t);
        }
        routes = builder.directRoutes(RouteParameters.DEFAULTS).build();
    }

    @Benchmark
    public Optional<Route> exact() {
        return routes.lookup(calledExact);
    }

    @Benchmark
    public Optional<Route> prefix() {
        return routes.lookup(calledPrefix);
    }

    @Benchmark
    public Optional<Route> direct() {
        return routes.lookup(calledDirect);
    }
}
