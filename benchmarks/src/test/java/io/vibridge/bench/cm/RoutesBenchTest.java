package io.vibridge.bench.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.cm.route.Route;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Each lookup finds a route of the kind it is named for (a miss would measure another path). */
class RoutesBenchTest {

    private final RoutesBench bench = new RoutesBench();

    @BeforeEach
    void setUp() {
        bench.setup();
    }

    @Test
    void eachLookupHitsItsKindOfRoute() {
        assertThat(bench.exact()).get().extracting(Route::kind).isEqualTo(Route.Kind.EXACT);
        assertThat(bench.prefix()).get().extracting(Route::kind).isEqualTo(Route.Kind.PREFIX);
        assertThat(bench.direct()).get().extracting(Route::kind).isEqualTo(Route.Kind.DIRECT);
    }
}
