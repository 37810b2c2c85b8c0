package io.vibridge.gateway.admin;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vibridge.verbs.Capability;
import io.vibridge.verbs.VerbsDevice;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An opened verbs device as {@code vibridge devices} shows it and the admin endpoint {@code /device} serves
 * it: what {@code ibv_devinfo} shows of a RoCE port that this device can say.
 *
 * @param name         the device's name (soft: {@code soft-<ip>})
 * @param provider     the verbs provider that opened it
 * @param address      the port's IP address
 * @param gid          the port's GID 0, 16 bytes as 8 colon-separated groups (the IPv4-mapped address)
 * @param maxPathMtu   the port's largest path MTU in bytes (what connections use at most)
 * @param capabilities the {@link Capability} names the device has
 * @param properties   provider-specific settings, name to value ({@link VerbsDevice#properties()})
 * @param cm           the device's connection manager: {@code ib-cm} (the raw IB CM, 92 bytes of REQ private data),
 *                     {@code rdma-cm} (rdma_cm with IP addressing: it writes the CMA header, 56 bytes are left;
 *                     {@link io.vibridge.verbs.ConnectionManager#writesCmaHeader()}) or {@code none}
 */
public record DeviceInfo(String name, String provider, String address, String gid, int maxPathMtu,
                         List<String> capabilities, Map<String, String> properties, String cm) {
    public DeviceInfo {
        capabilities = List.copyOf(capabilities);
        properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
    }

    public static DeviceInfo of(VerbsDevice d) {
        return new DeviceInfo(d.name(), d.providerName(), d.address().getHostAddress(), gidText(d.gid()),
                d.maxPathMtu(), d.capabilities().stream().sorted().map(Capability::name).toList(), d.properties(),
                cm(d));
    }

    /** {@code ib-cm}, {@code rdma-cm} or {@code none} (a provider without a connection manager throws for it). */
    static String cm(VerbsDevice d) {
        try {
            return d.connectionManager().writesCmaHeader() ? "rdma-cm" : "ib-cm";
        } catch (UnsupportedOperationException e) {
            return "none";
        }
    }

    /** {@code 0000:0000:0000:0000:0000:ffff:7f00:0002}, as {@code ibv_devinfo -v} prints a GID. */
    static String gidText(byte[] gid) {
        StringBuilder b = new StringBuilder(39);
        for (int i = 0; i < 16; i += 2) {
            if (i > 0) {
                b.append(':');
            }
            b.append(String.format("%02x%02x", gid[i], gid[i + 1]));
        }
        return b.toString();
    }

    /** The GID as an address ({@code ::ffff:127.0.0.2}), as newer {@code ibv_devinfo -v} adds it. */
    public String gidAddress() {
        String[] groups = gid.split(":");
        byte[] raw = new byte[16];
        for (int i = 0; i < 8; i++) {
            int v = Integer.parseInt(groups[i], 16);
            raw[2 * i] = (byte) (v >> 8);
            raw[2 * i + 1] = (byte) v;
        }
        try {
            InetAddress a = InetAddress.getByAddress(raw); // Java turns an IPv4-mapped address into the IPv4 one
            return a instanceof Inet4Address ? "::ffff:" + a.getHostAddress() : a.getHostAddress();
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // 16 bytes always make an address
        }
    }

    public JsonObject toJson() {
        JsonObject p = new JsonObject();
        properties.forEach(p::put);
        return new JsonObject().put("name", name).put("provider", provider).put("address", address).put("gid", gid)
                .put("maxPathMtu", maxPathMtu).put("capabilities", new JsonArray(capabilities)).put("properties", p).put("cm", cm);
    }

    public static DeviceInfo fromJson(JsonObject j) {
        Map<String, String> p = new LinkedHashMap<>();
        j.getJsonObject("properties", new JsonObject()).forEach(e -> p.put(e.getKey(), String.valueOf(e.getValue())));
        return new DeviceInfo(j.getString("name"), j.getString("provider"), j.getString("address"), j.getString("gid"),
                j.getInteger("maxPathMtu"), j.getJsonArray("capabilities", new JsonArray()).stream()
                        .map(String::valueOf).toList(), p, j.getString("cm", "ib-cm"));
    }
}
