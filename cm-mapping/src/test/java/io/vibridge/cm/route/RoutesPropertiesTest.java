package io.vibridge.cm.route;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** Route matching against a naive reference: exact first, then the longest prefix. */
class RoutesPropertiesTest {

    private static final InetAddress TARGET = InetAddress.ofLiteral("127.0.0.1");

    @Provide
    Arbitrary<String> words() {
        return Arbitraries.strings().withChars("ab").ofMinLength(0).ofMaxLength(5);
    }

    @Provide
    Arbitrary<List<String>> specs() {
        // "=word" exact, "*word" prefix
        return Arbitraries.strings().withChars("ab").ofMaxLength(4)
                .flatMap(w -> Arbitraries.of("=", "*").map(k -> k + w))
                .list().uniqueElements().ofMaxSize(12);
    }

    @Property(tries = 500)
    void matchesTheReference(@ForAll("specs") List<String> specs, @ForAll("words") String called) {
        Routes.Builder b = Routes.builder();
        Map<String, Integer> portBySpec = new LinkedHashMap<>();
        for (int i = 0; i < specs.size(); i++) {
            String spec = specs.get(i);
            RouteTarget t = new RouteTarget(TARGET, i + 1, RouteParameters.DEFAULTS);
            if (spec.startsWith("=")) {
                b.exact(spec.substring(1), t);
            } else {
                b.prefix(spec.substring(1), t);
            }
            portBySpec.put(spec, i + 1);
        }
        Routes routes = b.build();

        Integer expected = portBySpec.get("=" + called);
        for (int len = called.length(); expected == null && len >= 0; len--) {
            expected = portBySpec.get("*" + called.substring(0, len));
        }
        Optional<Route> actual = routes.lookup(called);
        if (expected == null) {
            assertThat(actual).isEmpty();
        } else {
            assertThat(actual.orElseThrow().target().port()).isEqualTo(expected);
        }
    }

    @Test
    void lookupOfRandomBytesNeverThrows() {
        Routes routes = Routes.builder()
                .exact("hex:00", new RouteTarget(TARGET, 1, RouteParameters.DEFAULTS))
                .prefix("1", new RouteTarget(TARGET, 2, RouteParameters.DEFAULTS))
                .directRoutes(RouteParameters.DEFAULTS)
                .build();
        Random random = new Random(42);
        byte[] alphabet = "0123456789.:[]abcdef%".getBytes(StandardCharsets.US_ASCII);
        int direct = 0;
        for (int i = 0; i < 100_000; i++) {
            byte[] called;
            switch (i % 3) {
                case 0 -> {
                    called = new byte[random.nextInt(70)];
                    random.nextBytes(called);
                }
                case 1 -> {
                    called = new byte[random.nextInt(70)];
                    for (int j = 0; j < called.length; j++) {
                        called[j] = alphabet[random.nextInt(alphabet.length)];
                    }
                }
                default -> {
                    // a valid direct form with one character replaced (or none)
                    called = (random.nextBoolean() ? "10.20.30.40:4420" : "[fd00::2]:65535")
                            .getBytes(StandardCharsets.US_ASCII);
                    if (random.nextBoolean()) {
                        called[random.nextInt(called.length)] = alphabet[random.nextInt(alphabet.length)];
                    }
                }
            }
            Optional<Route> r = routes.lookup(called);
            if (r.isPresent() && r.get().kind() == Route.Kind.DIRECT) {
                direct++;
                assertThat(r.get().target().port()).isBetween(1, 65535);
            }
        }
        assertThat(routes.lookup("[a::1]:9").orElseThrow().kind()).isEqualTo(Route.Kind.DIRECT);
        assertThat(direct).as("the fuzz reaches the direct form").isGreaterThan(10_000);
    }
}
