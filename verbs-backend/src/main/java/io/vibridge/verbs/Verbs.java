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
     * Opens a device. With {@code config.provider()} set, that provider or a {@link VerbsException} saying why it
     * is unusable; otherwise the highest-priority usable provider among those {@linkplain
     * VerbsProvider#selectedAutomatically() selected automatically}, logged in one line with why each one before it
     * was passed over.
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
            throw new VerbsException("no verbs provider named " + config.provider() + " (there are "
                    + String.join(", ", names(all)) + ")");
        }
        StringBuilder passed = new StringBuilder();
        for (VerbsProvider p : all) {
            String why;
            if (!p.selectedAutomatically()) {
                why = "only when named";
            } else {
                var a = p.availability(config);
                if (a.usable()) {
                    LOG.info("verbs provider {} selected for {}{}", p.name(), config.address().getHostAddress(),
                            passed.isEmpty() ? "" : " (" + passed + ")");
                    return p.open(config);
                }
                why = a.reason();
            }
            passed.append(passed.isEmpty() ? "" : "; ").append(p.name()).append(": ").append(why);
        }
        throw new VerbsException("no usable verbs provider: " + passed);
    }

    /** The providers' names, highest priority first. */
    public static List<String> names() {
        return names(providers());
    }

    private static List<String> names(List<VerbsProvider> providers) {
        return providers.stream().map(VerbsProvider::name).toList();
    }
}
