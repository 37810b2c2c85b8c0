package io.vibridge.gateway.cli;

import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code vibridge stat}: the running gateway's device counters ({@code /stat}), one {@code name value} line
 * each under a {@code link <device>/1} line, as {@code rdma statistic show} names a port's counters.
 */
@Command(name = "stat", description = "Print the running gateway's InfiniBand device counters (rdma statistic-like).")
final class StatCommand implements Callable<Integer> {

    @Mixin
    AdminEndpoint admin;

    @Option(names = "--watch", paramLabel = "<seconds>",
            description = "Print again every this many seconds, until interrupted.")
    Integer watch;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        if (watch != null && watch < 1) {
            throw new ParameterException(spec.commandLine(),
                    "--watch must be at least 1 second, got " + watch);
        }
        PrintWriter out = spec.commandLine().getOut();
        while (true) {
            JsonObject stat;
            try {
                stat = new JsonObject(admin.get("/stat"));
            } catch (AdminClient.Unreachable e) {
                return AdminClient.report(spec, e);
            }
            if (watch != null) {
                out.println(ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
            }
            out.println("link " + stat.getString("device") + "/1");
            for (Map.Entry<String, Object> e : stat.getJsonObject("counters")) {
                out.println(e.getKey() + " " + e.getValue());
            }
            out.flush();
            if (watch == null) {
                return 0;
            }
            Thread.sleep(watch * 1000L);
            out.println();
        }
    }
}
