package io.vibridge.gateway.metrics;

import com.sun.management.OperatingSystemMXBean;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmHeapPressureMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmInfoMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import java.lang.management.ManagementFactory;

/**
 * The JVM and process meters beside the gateway's own, from Micrometer's binders: memory pools and buffer
 * pools ({@code jvm_buffer_memory_used_bytes{id="direct"}} is where the staging chunks live), GC, heap
 * pressure, threads, classes, CPU, uptime, file descriptors, the JVM's version; and
 * {@code vibridge_build_info{version}} = 1. The GC binders listen to JMX notifications until closed.
 *
 * <p>Two of Micrometer's names fail {@code promtool check metrics}' lint, which CI runs on a real scrape:
 * {@code process_cpu_time_ns_total} (an abbreviated unit) gives way to the Prometheus clients' standard
 * {@code process_cpu_seconds_total}, and {@code system_cpu_count} (a gauge with a histogram's suffix) is
 * exported as {@code system_cpu_processors}.
 */
public final class ProcessMeters implements AutoCloseable {
    private final JvmGcMetrics gc = new JvmGcMetrics();
    private final JvmHeapPressureMetrics heapPressure = new JvmHeapPressureMetrics();

    private ProcessMeters(MeterRegistry registry) {
        registry.config().meterFilter(MeterFilter.denyNameStartsWith("process.cpu.time"));
        registry.config().meterFilter(new MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                return id.getName().equals("system.cpu.count") ? id.withName("system.cpu.processors") : id;
            }
        });
        if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os) {
            FunctionCounter.builder("process.cpu", os, o -> o.getProcessCpuTime() / 1e9)
                    .description("CPU time the JVM process has used")
                    .baseUnit("seconds")
                    .register(registry);
        }
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        heapPressure.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new JvmInfoMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        Gauge.builder("vibridge.build.info", () -> 1)
                .description("The gateway's build: version from the jar manifest (\"development\" when run from classes)")
                .tag("version", version())
                .register(registry);
    }

    /** Registers every meter in {@code registry}; close the result when the registry goes. */
    public static ProcessMeters bindTo(MeterRegistry registry) {
        return new ProcessMeters(registry);
    }

    /** Implementation-Version of the gateway jar's manifest (the Maven project version). */
    static String version() {
        String v = ProcessMeters.class.getPackage().getImplementationVersion();
        return v == null ? "development" : v;
    }

    @Override
    public void close() {
        gc.close();
        heapPressure.close();
    }
}
