package io.vibridge.verbs;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Entry point: finds providers with {@link ServiceLoader} and opens a device. */
public final class Verbs {
    private static final Logger LOG = LoggerFactory.getLogger(Verbs.class);

    private Verbs() {
    }

    public static List<VerbsProvider> providers() {
        List<VerbsProvider> list = new ArrayList<>();
        ServiceLoader.load(VerbsProvider.class, Verbs.class.getClassLoader()).forEach(list::add);
        list.sort(Comparator.comparingInt(VerbsProvider::priority).reversed());
        return list;
    }

    /**
     * Opens a device. With {@code config.provider()} set, that provider or a {@link VerbsException}
     * saying why it is unusable; otherwise the highest-priority usable provider (DiSNI when its native
     * library loads and a device exists, else soft).
     */
    public static VerbsDevice open(DeviceConfig config) {
        List<VerbsProvider> all = providers();
        if (config.provider() != null) {
            for (VerbsProvider p : all) {
                if (p.name().equalsIgnoreCase(config.provider())) {
                    var a = p.availability(config);
                    if (!a.usable()) {
                        throw new VerbsException("provider " + p.name() + " is unusable: " + a.reason());
                    }
                    return p.open(config);
                }
            }
            throw new VerbsException("no verbs provider named " + config.provider());
        }
        StringBuilder why = new StringBuilder();
        for (VerbsProvider p : all) {
            var a = p.availability(config);
            if (a.usable()) {
                LOG.info("verbs provider {} selected for {}", p.name(), config.address().getHostAddress());
                return p.open(config);
            }
            LOG.info("verbs provider {} skipped: {}", p.name(), a.reason());
            why.append(p.name()).append(": ").append(a.reason()).append("; ");
        }
        throw new VerbsException("no usable verbs provider: " + why);
    }
}
