package io.vibridge.gateway.cli;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code vibridge connections}: the running gateway's bridges ({@code /connections}) as a table, the TCP side
 * then the InfiniBand side of each, named as {@code rdma res show qp} names a QP's fields (lqpn, rqpn,
 * sq-psn, rq-psn); what the verbs provider cannot report is {@code n/a}.
 */
@Command(name = "connections", description = "List the running gateway's bridged connections with their "
        + "queue pairs (rdma res show qp-like: QPN, remote QPN, PSNs, path MTU, state, retransmissions).")
final class ConnectionsCommand implements Callable<Integer> {
    private static final List<String> HEADER = List.of("id", "front", "client", "route", "target", "state",
            "bytes-in", "bytes-out", "lqpn", "rqpn", "qp-state", "sq-psn", "rq-psn", "mtu", "retrans", "timeouts");

    @Mixin
    AdminEndpoint admin;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        JsonArray connections;
        try {
            connections = new JsonArray(admin.get("/connections"));
        } catch (AdminClient.Unreachable e) {
            return AdminClient.report(spec, e);
        }
        PrintWriter out = spec.commandLine().getOut();
        if (connections.isEmpty()) {
            out.println("no connections");
        } else {
            List<List<String>> rows = new ArrayList<>();
            rows.add(HEADER);
            for (int i = 0; i < connections.size(); i++) {
                rows.add(row(connections.getJsonObject(i)));
            }
            print(out, rows);
        }
        out.flush();
        return 0;
    }

    static List<String> row(JsonObject c) {
        List<String> r = new ArrayList<>(List.of(text(c.getValue("id")), c.getString("frontEnd", "vitcp"),
                c.getString("client"), c.getString("route"), c.getString("target"), c.getString("state"),
                text(c.getValue("bytesIn")), text(c.getValue("bytesOut"))));
        JsonObject qp = c.getJsonObject("infiniband");
        for (String f : List.of("qpn", "remoteQpn", "state", "sendPsn", "expectedPsn", "pathMtu", "retransmissions",
                "timeouts")) {
            r.add(qp == null ? "-" : text(qp.getValue(f)));
        }
        return r;
    }

    private static String text(Object v) {
        return v == null ? "n/a" : String.valueOf(v);
    }

    /** Columns left-aligned, each as wide as its widest cell, two spaces apart. */
    static void print(PrintWriter out, List<List<String>> rows) {
        int[] width = new int[rows.getFirst().size()];
        for (List<String> r : rows) {
            for (int i = 0; i < r.size(); i++) {
                width[i] = Math.max(width[i], r.get(i).length());
            }
        }
        for (List<String> r : rows) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < r.size(); i++) {
                b.append(i == r.size() - 1 ? r.get(i) : String.format("%-" + (width[i] + 2) + "s", r.get(i)));
            }
            out.println(b);
        }
    }
}
