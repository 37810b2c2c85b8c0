package io.vibridge.gateway.cli;

import io.vibridge.gateway.admin.DeviceInfo;
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
        out.println("providers (automatic selection takes the first usable):");
        for (VerbsProvider p : providers) {
            out.printf("\t%-8s priority %-4d %s%n", p.name(), p.priority(), availability.get(p));
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

    /** An MTU as ibv_devinfo prints it: bytes and the IBA enumeration (256 = 1 .. 4096 = 5). */
    static String mtu(int bytes) {
        return bytes + " (" + (Integer.numberOfTrailingZeros(bytes) - 7) + ")";
    }
}
