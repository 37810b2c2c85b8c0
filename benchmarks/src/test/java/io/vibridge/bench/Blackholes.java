package io.vibridge.bench;

import org.openjdk.jmh.infra.Blackhole;

/** A Blackhole for calling benchmark methods outside the JMH harness (JMH insists on the phrase). */
public final class Blackholes {

    private Blackholes() {
    }

    public static Blackhole create() {
        return new Blackhole("Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");
    }
}
