package io.vibridge.gateway.cli;

import io.vibridge.gateway.admin.DeviceInfo;
import io.vibridge.verbs.Capability;
import io.vibridge.verbs.VerbsProvider;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;

/**
 * Prints devices in {@code ibv_devinfo}'s layout (hca_id, then the port's state, MTUs, link layer and GID
 * table), with what a device of this project adds: its provider, capabilities and provider settings.
 */
final class DeviceListing {
    private DeviceListing() {
    }

    static void providers(PrintWriter out, List<VerbsProvider> providers, Map<VerbsProvider, String> availability) {
        out.println("providers (automatic selection takes the first usable that it may select):");
        for (VerbsProvider p : providers) {
            out.printf("\t%-9s priority %-4d %s%s%n", p.name(), p.priority(), availability.get(p),
                    p.selectedAutomatically() ? "" : " (only when named)");
        }
    }

    static void device(PrintWriter out, DeviceInfo d) {
        out.println("hca_id:\t" + d.name());
        out.println("\tprovider:\t\t\t" + d.provider());
        out.println("\ttransport:\t\t\tInfiniBand (0)");       // RoCE devices report the IB transport
        out.println("\tfw_ver:\t\t\t\tn/a");
        out.println("\tnode_guid:\t\t\tn/a");
        out.println("\tphys_port_cnt:\t\t\t1");
        out.println("\tcapabilities:\t\t\t" + String.join(", ", d.capabilities()));
        out.println("\t\tport:\t1");
        out.println("\t\t\tstate:\t\t\tPORT_ACTIVE (4)");
        out.println("\t\t\tmax_mtu:\t\t" + mtu(4096));
        out.println("\t\t\tactive_mtu:\t\t" + mtu(d.maxPathMtu()));
        out.println("\t\t\tlink_layer:\t\tEthernet");
        out.println("\t\t\tGID[  0]:\t\t" + d.gid() + ", RoCE v2 (" + d.gidAddress() + ")");
        d.properties().forEach((k, v) -> out.println("\t\t\t" + k + ":" + "\t".repeat(k.length() < 7 ? 3 : 2) + v));
    }

    /**
     * What the gateway's bridge carries on this device, by operation and direction (docs/hardware.md "What the bridge
     * carries, per provider"): client-initiated operations and Sends both ways always; target-initiated RDMA aimed at
     * a client's memory only with cut-through; the CM formats and Service IDs the device's CM can carry.
     */
    static void bridge(PrintWriter out, DeviceInfo d, boolean cutThroughAllowed) {
        boolean handler = d.capabilities().contains(Capability.REMOTE_ACCESS_HANDLER.name());
        out.println("\tbridge on this device:");
        out.println("\t\tclient Send -> target:\t\t\tyes");
        out.println("\t\tclient RDMA Write, Read -> target:\tyes");
        out.println("\t\ttarget SEND -> client:\t\t\tyes");
        out.println("\t\ttarget RDMA WRITE, READ -> client:\t" + (handler && cutThroughAllowed ? "yes (cut-through)"
                : handler ? "no (infiniband.cut-through = off)"
                : "no (the device executes incoming RDMA against its own registrations)"));
        if (d.cm().equals("none")) {
            out.println("\t\tconnections:\t\t\t\tnone (the provider has no connection manager yet)");
            return;
        }
        out.println("\t\tcm-format hello:\t\t\t" + (!d.capabilities().contains(Capability.CM_PRIVATE_DATA.name())
                ? "no (the provider delivers no CM private data)"
                : d.cm().equals("rdma-cm") ? "short Hello behind rdma_cm's CMA header (56 bytes)"
                : "whole Hello (92 bytes)"));
        out.println("\t\tcm-format rdma-cm:\t\t\tyes");
        out.println("\t\tService IDs:\t\t\t\t" + (d.capabilities().contains(Capability.ANY_SERVICE_ID.name()) ? "any"
                : "rdma_cm port spaces only"));
    }

    /** An MTU as ibv_devinfo prints it: bytes and the IBA enumeration (256 = 1 .. 4096 = 5). */
    static String mtu(int bytes) {
        return bytes + " (" + (Integer.numberOfTrailingZeros(bytes) - 7) + ")";
    }
}
