package io.vibridge.gateway.demo;

import io.vibridge.gateway.demo.control.Control;
import io.vibridge.cm.hello.FlowControl;
import io.vibridge.cm.hello.FlowControlHeader;
import io.vibridge.cm.hello.FlowCredits;
import io.vibridge.cm.hello.Hello;
import io.vibridge.cm.hello.HelloReply;
import io.vibridge.gateway.ib.FlowC0Channel;
import io.vibridge.verbs.Access;
import io.vibridge.verbs.CmEvent;
import io.vibridge.verbs.CmId;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.ConnectParams;
import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.QpInitAttributes;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.Verbs;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WcStatus;
import io.vibridge.verbs.WorkCompletion;
import io.vibridge.verbs.WrOpcode;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.EnumSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** A verbs-level stand-in for the gateway side of an RC connection to the target (test only). */
final class RcTestClient implements AutoCloseable {
    static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(20);
    private static final long CREDIT_UPDATE = 10;

    final VerbsDevice dev;
    final ProtectionDomain pd;
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    final QueuePair qp;
    final MemoryRegion rx;
    /** {@code size} bytes for the message being sent, then 16 for credit updates. */
    final MemoryRegion tx;
    /** Client memory the target may read and write. */
    final MemoryRegion mem;
    final int bufs;
    final int size;
    final FlowControl flowC;
    final BlockingQueue<CmEvent> events = new LinkedBlockingQueue<>();
    final FlowC0Channel channel;
    HelloReply reply;
    CmId id;
    private final WorkCompletion[] wc = {new WorkCompletion()};
    private final SendWorkRequest swr = new SendWorkRequest();
    private int nextReq = 1;
    private final ArrayDeque<Received> pending = new ArrayDeque<>();

    record Received(byte[] payload, boolean hasImm, int imm, WcOpcode opcode) {
    }

    RcTestClient(VerbsDevice dev, FlowControl flowC, int bufs, int size) {
        this(dev, flowC, bufs, size, 1 << 20);
    }

    RcTestClient(VerbsDevice dev, FlowControl flowC, int bufs, int size, int memSize) {
        this.dev = dev;
        this.flowC = flowC;
        this.bufs = bufs;
        this.size = size;
        pd = dev.allocateProtectionDomain();
        sendCq = dev.createCompletionQueue(40);
        recvCq = dev.createCompletionQueue(bufs + 8);
        qp = pd.createQueuePair(new QpInitAttributes(sendCq, recvCq, 32, bufs));
        rx = pd.registerMemory(ByteBuffer.allocateDirect(bufs * size), EnumSet.of(Access.LOCAL_WRITE));
        tx = pd.registerMemory(ByteBuffer.allocateDirect(size + FlowControlHeader.LENGTH), EnumSet.of(Access.LOCAL_WRITE));
        mem = pd.registerMemory(ByteBuffer.allocateDirect(memSize),
                EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE));
        channel = flowC == FlowControl.TRANSPORT ? FlowC0Channel.of(qp, tx, size, CREDIT_UPDATE)
                : FlowC0Channel.bare(qp);
        for (int i = 0; i < bufs; i++) {
            repost(i);
        }
    }

    static VerbsDevice device(String ip) {
        return Verbs.open(DeviceConfig.of(ip).withProvider("soft"));
    }

    /** Sends a REQ with {@code privateData}; returns the CM outcome event. */
    CmEvent connect(InetAddress target, long sid, byte[] privateData) throws InterruptedException {
        id = dev.connectionManager().connect(ConnectParams.defaults(target, sid, privateData).withTimeouts(14, 16, 4),
                qp, events::add, null);
        CmEvent e = events.poll(20, TimeUnit.SECONDS);
        if (e instanceof CmEvent.Established est) {
            reply = HelloReply.fromBytes(est.privateData());
            channel.start(new FlowCredits(reply.bufs(), bufs));
        }
        return e;
    }

    CmEvent connectHello(InetAddress target, long sid, long desRemRcvSz) throws InterruptedException {
        Hello h = Hello.of(bufs, flowC, desRemRcvSz, size, 40000, dev.address(), target);
        return connect(target, sid, h.toBytes());
    }

    private void repost(int i) {
        channel.postReceive(i, rx, i * size, size);
    }

    /** Posts a Send of {@code payload} (header added for FlowC 0) and waits for its completion. */
    void send(byte[] payload, boolean withImm, int imm) {
        tx.buffer().put(channel.headroom(), payload);
        awaitCredit();
        channel.send(7, tx, channel.headroom(), payload.length, withImm, imm);
        awaitSend();
    }

    /** RDMA WRITE WITH IMMEDIATE into the target's region; with FlowC 0 one message without header (CM-MAPPING §4). */
    void writeImm(long va, int rkey, byte[] data, int imm) {
        mem.buffer().put(0, data);
        awaitCredit();
        channel.writeWithImmediate(8, mem, 0, data.length, va, rkey, imm);
        awaitSend();
    }

    /** Receives (keeping what arrives) until the target's credits allow a message. */
    private void awaitCredit() {
        long deadline = System.nanoTime() + TIMEOUT_NS;
        while (!channel.canSend()) {
            Received r = receiveOne(1_000_000);
            if (r != null) {
                pending.add(r);
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no credit update from the target");
            }
        }
    }

    /** Plain RDMA WRITE from client memory offset 0. */
    void write(long va, int rkey, byte[] data) {
        mem.buffer().put(0, data);
        swr.set(9, WrOpcode.RDMA_WRITE, mem, 0, data.length).remote(va, rkey).immediate(0);
        qp.postSend(swr);
        awaitSend();
    }

    void awaitSend() {
        long deadline = System.nanoTime() + TIMEOUT_NS;
        while (sendCq.poll(wc) == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("send did not complete");
            }
            LockSupport.parkNanos(50_000);
        }
        if (wc[0].status != WcStatus.SUCCESS) {
            throw new AssertionError("send failed: " + wc[0]);
        }
    }

    /** Next data message (credit updates consumed silently), or null on timeout. */
    Received receive(long timeoutNs) {
        if (!pending.isEmpty()) {
            return pending.poll();
        }
        long deadline = System.nanoTime() + timeoutNs;
        for (;;) {
            Received r = receiveOne(Math.max(0, deadline - System.nanoTime()));
            if (r != null || System.nanoTime() > deadline) {
                return r;
            }
        }
    }

    /** One receive completion: a data message, or null for a credit update or a timeout. */
    private Received receiveOne(long timeoutNs) {
        long deadline = System.nanoTime() + timeoutNs;
        {
            while (recvCq.poll(wc) == 0) {
                if (System.nanoTime() > deadline) {
                    return null;
                }
                LockSupport.parkNanos(50_000);
            }
            if (wc[0].status != WcStatus.SUCCESS) {
                throw new AssertionError("receive failed: " + wc[0]);
            }
            int i = (int) wc[0].wrId;
            FlowC0Channel.Inbound inbound = channel.onReceive(wc[0], rx.buffer(), i * size);
            int h = channel.headroom();
            byte[] payload = new byte[inbound == FlowC0Channel.Inbound.WRITE_WITH_IMMEDIATE ? 0 : wc[0].byteLength - h];
            rx.buffer().get(i * size + h, payload);
            Received r = new Received(payload, wc[0].hasImmediate, wc[0].immediate, wc[0].opcode);
            repost(i);
            channel.maybeSendCreditUpdate();
            awaitCreditUpdates();
            return inbound == FlowC0Channel.Inbound.CREDIT_UPDATE ? null : r;
        }
    }

    /** Hands credit-update completions to the channel until none is in flight: one work request at a time here. */
    private void awaitCreditUpdates() {
        long deadline = System.nanoTime() + TIMEOUT_NS;
        while (channel.creditUpdateInFlight()) {
            if (sendCq.poll(wc) == 0) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("credit update did not complete");
                }
                LockSupport.parkNanos(50_000);
            } else if (!channel.onSendCompletion(wc[0]) || wc[0].status != WcStatus.SUCCESS) {
                throw new AssertionError("not a successful credit update: " + wc[0]);
            }
        }
    }

    Received receive() {
        Received r = receive(TIMEOUT_NS);
        if (r == null) {
            throw new AssertionError("nothing received");
        }
        return r;
    }

    /** Sends a control request with {@code args} and returns the reply payload. */
    ByteBuffer control(int command, ByteBuffer args) {
        int req = nextReq++;
        byte[] msg = new byte[Control.HEADER + args.remaining()];
        ByteBuffer b = ByteBuffer.wrap(msg);
        Control.writeRequest(b, 0, command, req);
        b.put(Control.HEADER, args, args.position(), args.remaining());
        send(msg, false, 0);
        Received r = receive();
        ByteBuffer reply = ByteBuffer.wrap(r.payload());
        if (!Control.isReply(reply, 0, reply.remaining()) || Control.command(reply, 0) != command
                || Control.requestId(reply, 0) != req) {
            throw new AssertionError("not the reply to " + Control.commandName(command));
        }
        return reply;
    }

    void disconnect() throws InterruptedException {
        id.disconnect();
        long deadline = System.nanoTime() + TIMEOUT_NS;
        while (System.nanoTime() < deadline) {
            CmEvent e = events.poll(1, TimeUnit.SECONDS);
            if (e instanceof CmEvent.Disconnected) {
                return;
            }
        }
        throw new AssertionError("no Disconnected event");
    }

    @Override
    public void close() {
        qp.close();
        rx.close();
        tx.close();
        mem.close();
        pd.close();
    }
}
