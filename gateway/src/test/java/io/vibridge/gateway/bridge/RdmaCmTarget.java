package io.vibridge.gateway.bridge;

import io.vibridge.cm.cma.CmaHeader;
import io.vibridge.cm.serviceid.ServiceId;
import io.vibridge.cm.serviceid.ServiceIdScheme;
import io.vibridge.verbs.AcceptParams;
import io.vibridge.verbs.Access;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.ConnectionManager;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.Verbs;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * An rdma_cm-style target on the soft fabric, written against the verbs SPI: listens on the rdma-cm Service ID
 * of {@code port}, keeps each REQ's private data, rejects with {@code rejectData} (a consumer reject) when the
 * client's first byte behind the CMA header is {@code rejectMark} (-1: never), else accepts with {@code replyData}; with a
 * {@code greeting} it SENDs that first once the connection is up, as a server-first application does.
 */
final class RdmaCmTarget implements AutoCloseable {
    final BlockingQueue<byte[]> requests = new ArrayBlockingQueue<>(128);
    private final VerbsDevice device;
    private final ProtectionDomain pd;
    private final MemoryRegion greetingRegion;
    private final int greetingLength;
    private final int rejectMark;
    private final byte[] rejectData;
    private final byte[] replyData;
    private final Map<Integer, QueuePair> qps = new ConcurrentHashMap<>();
    private final ExecutorService thread = Executors.newSingleThreadExecutor();
    private final ConnectionManager.CmListener listener;

    RdmaCmTarget(String address, int port, int rejectMark, byte[] rejectData, byte[] replyData, byte[] greeting) {
        this.rejectMark = rejectMark;
        this.rejectData = rejectData;
        this.replyData = replyData;
        device = Verbs.open(DeviceConfig.of(address).withProvider("soft"));
        pd = device.allocateProtectionDomain();
        greetingLength = greeting == null ? -1 : greeting.length;
        ByteBuffer g = ByteBuffer.allocateDirect(Math.max(1, greetingLength));
        if (greeting != null) {
            g.put(greeting).clear();
        }
        greetingRegion = pd.registerMemory(g, EnumSet.of(Access.LOCAL_WRITE));
        listener = device.connectionManager().listen(ServiceId.valueOf(ServiceIdScheme.RDMA_CM, port), this::onCm,
                thread);
    }

    private void onCm(CmEvent e) {
        switch (e) {
            case CmEvent.ConnectRequest req -> {
                byte[] data = req.privateData();
                requests.add(data);
                if (data.length > CmaHeader.LENGTH && (data[CmaHeader.LENGTH] & 0xFF) == rejectMark) {
                    req.id().reject(rejectData);
                    return;
                }
                CompletionQueue cq = device.createCompletionQueue(8);
                QueuePair qp = pd.createQueuePair(new QpInitAttributes(cq, cq, 4, 4));
                qps.put(req.id().localCommId(), qp);
                req.id().accept(qp, AcceptParams.defaults(replyData));
            }
            case CmEvent.Established est -> {
                QueuePair qp = qps.get(est.id().localCommId());
                if (qp != null && greetingLength >= 0) {
                    qp.postSend(new SendWorkRequest().set(1, WrOpcode.SEND, greetingRegion, 0, greetingLength));
                }
            }
            case CmEvent.Disconnected d -> {
                QueuePair qp = qps.remove(d.id().localCommId());
                if (qp != null) {
                    qp.toError();
                }
            }
            default -> {
            }
        }
    }

    @Override
    public void close() {
        listener.close();
        device.close();
        thread.shutdownNow();
        try {
            thread.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
