package io.vibridge.vitcp.provider;

import io.vibridge.vitcp.engine.BreakCause;
import io.vibridge.vitcp.engine.ConnectFailure;
import io.vibridge.vitcp.engine.ConnectionPeer;
import io.vibridge.vitcp.engine.InboundReceive;
import io.vibridge.vitcp.engine.OutboundWork;
import io.vibridge.vitcp.engine.ViConnection;
import io.vibridge.vitcp.wire.IsCode;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TCP connection and its {@link ViConnection} engine (threading model: one reader thread per
 * connection; one writer thread, started the first time the reader causes output, woken for it;
 * consumer threads write their own posts inline when the writer is idle). {@link #lock} serialises
 * every engine call; {@link #writeLock} serialises socket writes. Readers never write, so two peers
 * streaming at each other cannot deadlock. The read buffer and the write scratch come from the NIC's
 * pool and go back to it when the reader ends.
 */
final class Link implements ConnectionPeer {
    private static final Logger log = LoggerFactory.getLogger(Link.class);

    final ViNic nic;
    final SocketChannel channel;
    final ReentrantLock lock = new ReentrantLock();
    private final ReentrantLock writeLock = new ReentrantLock();
    private final AtomicBoolean writePending = new AtomicBoolean();
    ViConnection engine;
    volatile Vi vi;
    /** Started on the first {@link #signalWriter()}: a connection set up and closed by its consumer needs none. */
    private final AtomicReference<Thread> writer = new AtomicReference<>();
    private volatile boolean closed;
    private ByteBuffer[] io;

    // consumer callbacks raised inside the engine, run once the lock is released (guarded by lock)
    private final ArrayDeque<Runnable> deferred = new ArrayDeque<>(0);

    /** Under {@link #lock}: a consumer callback to run after the lock is released. */
    void defer(Runnable task) {
        deferred.addLast(task);
    }

    /** Runs deferred consumer callbacks; the caller must not hold {@link #lock}. */
    void runDeferred() {
        for (;;) {
            Runnable r;
            lock.lock();
            try {
                r = deferred.pollFirst();
            } finally {
                lock.unlock();
            }
            if (r == null) {
                return;
            }
            try {
                r.run();
            } catch (RuntimeException e) {
                log.warn("consumer callback failed", e);
            }
        }
    }

    // establishment outcome: written before setupDone (volatile), read after it
    private volatile boolean setupDone;
    private ConnectFailure setupFailure;
    private int setupIsCode;
    private volatile Thread setupWaiter;

    // passive: where the request was matched
    ConnectRequestInfo requestInfo;
    ConnectListener listener;

    /** Polling mode: where the reader and a writer whose socket is full block once their idle strategy says so. */
    private final SocketReadiness readReady;
    private final SocketReadiness writeReady;
    /** Serialises the reader thread's and polling consumers' reads of the socket; guards {@link #readBuf}. */
    private final ReentrantLock readLock = new ReentrantLock();
    private ByteBuffer readBuf;
    private volatile Thread reader;
    /** Consumers reading the socket themselves (polling mode): the reader thread parks while there are any. */
    private final AtomicInteger pollers = new AtomicInteger();
    /**
     * How long the reader thread, standing aside for polling consumers, sleeps between looks at {@link #pollers}.
     * The last consumer to stop polling with its completion does not wake it: it polls again within microseconds
     * (after each round trip), and a wake-up there put a futex call on its path and a third runnable thread beside
     * two spinning ones. Input that arrives once nobody polls waits at most this long.
     */
    static final long POLLERS_LOOK_NANOS = 200_000;

    Link(ViNic nic, SocketChannel channel) {
        this.nic = nic;
        this.channel = channel;
        this.readReady = new SocketReadiness(channel, SelectionKey.OP_READ);
        this.writeReady = new SocketReadiness(channel, SelectionKey.OP_WRITE);
    }

    InetSocketAddress remoteAddress() {
        try {
            return (InetSocketAddress) channel.getRemoteAddress();
        } catch (IOException e) {
            return null;
        }
    }

    void start() {
        if (!nic.config().idle().blocks()) {
            try {
                channel.configureBlocking(false);               // polling mode: reads and writes return at once
            } catch (IOException e) {
                log.debug("connection {}: cannot poll its socket: {}", remoteAddress(), e.toString());
                transportClosed();
                return;
            }
        }
        threads().name("vitcp-reader").start(this::readLoop);
    }

    /** Bytes the connecting thread reads at a time while it waits for the answer to its Connect Request. */
    private static final int SETUP_READ = 1024;

    /**
     * Active side, on the connecting thread before {@link #start()}: reads the peer's answer to the
     * Connect Request itself (a timed blocking read, no reader thread to wake and hand the outcome back)
     * until the engine reports the outcome, the connection ends or the deadline passes (false). Bytes
     * after the answer in the same read go to the engine as the reader would pass them.
     */
    boolean readSetup(long deadlineNanos) throws InterruptedException {
        byte[] b = new byte[SETUP_READ];
        ByteBuffer buf = ByteBuffer.wrap(b);
        try {
            InputStream in = channel.socket().getInputStream();
            while (!setupDone) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                channel.socket().setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, left / 1_000_000)));
                int n;
                try {
                    n = in.read(b, 0, b.length);
                } catch (SocketTimeoutException e) {
                    continue;
                }
                if (n < 0) {
                    break;
                }
                buf.limit(n).position(0);
                boolean out;
                lock.lock();
                try {
                    engine.receive(buf);
                    out = engine.hasOutput() || engine.closeRequested() && setupFailure == null;
                } finally {
                    lock.unlock();
                }
                runDeferred();
                // a failed setup is closed by the caller; anything else is the reader's business from now on
                if (out || hasOutputNow()) {
                    signalWriter();
                }
            }
        } catch (ClosedByInterruptException e) {
            Thread.interrupted();
            transportClosed();
            throw new InterruptedException("interrupted while connecting");
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                log.debug("connection {} read failed during setup: {}", remoteAddress(), e.toString());
            }
            if (e instanceof RuntimeException re) {
                log.warn("engine failure on {}", remoteAddress(), re);
            }
        }
        if (!setupDone) {
            transportClosed();                                  // EOF or a read error before the answer
        }
        return true;
    }

    private Thread.Builder threads() {
        // a polling thread must not pin one of the few carriers the virtual threads share
        boolean platform = nic.config().platformThreads() || !nic.config().idle().blocks();
        return platform ? Thread.ofPlatform().daemon() : Thread.ofVirtual();
    }

    // ------------------------------------------------------------------ I/O

    private void readLoop() {
        // idle connections keep a small buffer; a read that fills it grows it up to the configured size
        int max = nic.config().readBufferSize();
        IdleStrategy idle = nic.config().idle();
        readLock.lock();
        readBuf = max >= ViNic.SMALL_BUFFER ? nic.takeSmallBuffer() : ByteBuffer.allocateDirect(max);
        reader = Thread.currentThread();
        readLock.unlock();
        long lastRead = System.nanoTime();
        try {
            while (!closed) {
                if (pollers.get() > 0) {                        // a consumer in VipRecvWait reads meanwhile
                    LockSupport.parkNanos(this, POLLERS_LOOK_NANOS);
                    lastRead = System.nanoTime();
                    continue;
                }
                int n;
                readLock.lock();
                try {
                    n = readOnce();
                } finally {
                    readLock.unlock();
                }
                if (n < 0) {
                    break;
                }
                if (n > 0) {
                    lastRead = System.nanoTime();
                } else if (!idle.idle(System.nanoTime() - lastRead)) {   // polling mode, nothing there
                    readReady.await();
                    lastRead = System.nanoTime();
                }
            }
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                log.debug("connection {} read failed: {}", remoteAddress(), e.toString());
            }
            if (e instanceof RuntimeException re && !(e instanceof ClosedChannelException)) {
                log.warn("engine failure on {}", remoteAddress(), re);
            }
        }
        readLock.lock();
        nic.returnSmallBuffer(readBuf); // the engine keeps no view of it past receive()
        readBuf = null;
        readLock.unlock();
        transportClosed();
    }

    /**
     * One read of the socket handed to the engine; the bytes read, 0 when none were there (polling mode), -1 at
     * the end of the stream. Caller holds {@link #readLock}.
     */
    private int readOnce() throws IOException {
        ByteBuffer buf = readBuf;
        buf.clear();
        int n = channel.read(buf);
        if (n <= 0) {
            return n;
        }
        int max = nic.config().readBufferSize();
        boolean grow = n == buf.capacity() && buf.capacity() < max;
        buf.flip();
        boolean out;
        lock.lock();
        try {
            engine.receive(buf);
            out = engine.hasOutput() || engine.closeRequested();
        } finally {
            lock.unlock();
        }
        runDeferred();
        if (out || hasOutputNow()) {
            signalWriter();
        }
        if (grow) {
            readBuf = ByteBuffer.allocateDirect(Math.min(max, buf.capacity() * 4));
        }
        return n;
    }

    /**
     * Polling mode, a consumer waiting for a completion: reads the socket itself instead of waiting for the
     * reader thread to wake up and hand the completion over (one thread and no wake-up per round trip). The
     * reader thread parks meanwhile ({@link #beginPolling}/{@link #endPolling}). Returns what
     * {@link #readOnce} read, 0 when the reader holds the socket; the end of the stream and errors are left to
     * the reader thread, which is woken for them.
     */
    int pollInput() {
        if (!readLock.tryLock()) {
            return 0;
        }
        int n;
        try {
            n = readBuf == null || closed ? -1 : readOnce();
        } catch (IOException | RuntimeException e) {
            n = -1;
        } finally {
            readLock.unlock();
        }
        if (n < 0) {
            LockSupport.unpark(reader);                       // it reads the end (or the error) again and closes
        }
        return n;
    }

    void beginPolling() {
        pollers.incrementAndGet();
    }

    /**
     * {@code satisfied}: the consumer got its completion and will likely poll again soon, so the reader looks again
     * by itself ({@link #POLLERS_LOOK_NANOS}); otherwise it is about to block, and the last poller wakes the reader.
     */
    void endPolling(boolean satisfied) {
        if (pollers.decrementAndGet() == 0 && !satisfied) {
            LockSupport.unpark(reader);
        }
    }

    void transportClosed() {
        // let a write in progress finish first, so that what went to TCP completes as sent
        boolean writing = false;
        try {
            writing = writeLock.tryLock(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            lock.lock();
            try {
                engine.transportClosed();
            } finally {
                lock.unlock();
            }
        } finally {
            if (writing) {
                if (headers != null) {
                    nic.returnSmallBuffer(headerBlock); // no flush runs (write lock); a later one takes another
                    headers = null;
                    headerBlock = null;
                    io = null;
                }
                writeLock.unlock();
            }
        }
        close();
        runDeferred();
    }

    private boolean hasOutputNow() {
        lock.lock();
        try {
            return engine.hasOutput();
        } finally {
            lock.unlock();
        }
    }

    void signalWriter() {
        writePending.set(true);
        Thread w = writer.get();
        if (w == null) {
            Thread t = threads().name("vitcp-writer").unstarted(this::writeLoop);
            if (writer.compareAndSet(null, t)) {
                t.start();
                return;
            }
            w = writer.get();
        }
        LockSupport.unpark(w);
    }

    /** Consumer thread: write its output now unless a writer is busy (then that writer will). */
    void kick() {
        if (writeLock.tryLock()) {
            try {
                flush();
            } finally {
                writeLock.unlock();
            }
        } else {
            signalWriter();
        }
    }

    private void writeLoop() {
        while (!closed) {
            if (!writePending.getAndSet(false)) {
                LockSupport.park(this);
                continue;
            }
            writeLock.lock();
            try {
                flush();
            } finally {
                writeLock.unlock();
            }
        }
    }

    private static final int BATCH_SEGMENTS = 16;
    private static final int BATCH_BYTES = 256 * 1024;
    private ByteBuffer[] headers;
    private ByteBuffer headerBlock;

    /** Writes what the engine has, several segments per gathering write. Caller holds {@link #writeLock}. */
    private void flush() {
        if (headers == null) {
            ByteBuffer all = BATCH_SEGMENTS * ViConnection.MAX_HEADER <= ViNic.SMALL_BUFFER ? nic.takeSmallBuffer()
                    : ByteBuffer.allocateDirect(BATCH_SEGMENTS * ViConnection.MAX_HEADER);
            headerBlock = all;
            headers = new ByteBuffer[BATCH_SEGMENTS];
            for (int i = 0; i < BATCH_SEGMENTS; i++) {
                headers[i] = all.slice(i * ViConnection.MAX_HEADER, ViConnection.MAX_HEADER);
            }
            io = new ByteBuffer[2 * (nic.maxSegments() + 2)];
        }
        int room = nic.maxSegments() + 2;
        boolean close = false;
        try {
            for (;;) {
                int segs = 0;
                int bufs = 0;
                long bytes = 0;
                lock.lock();
                try {
                    while (segs < BATCH_SEGMENTS && io.length - bufs >= room && bytes < BATCH_BYTES
                            && engine.hasOutput()) {
                        ByteBuffer h = headers[segs];
                        int n = engine.produce(h, io, bufs + 1);
                        if (n < 0) {
                            break;
                        }
                        io[bufs] = h;
                        for (int i = bufs; i <= bufs + n; i++) {
                            bytes += io[i].remaining();
                        }
                        bufs += n + 1;
                        segs++;
                    }
                    if (segs == 0) {
                        close = engine.closeRequested();
                    }
                } finally {
                    lock.unlock();
                }
                if (segs == 0) {
                    break;
                }
                writeFully(bufs);
                lock.lock();
                try {
                    for (int i = 0; i < segs; i++) {
                        engine.written();
                    }
                } finally {
                    lock.unlock();
                }
                Arrays.fill(io, 0, bufs, null);
                if (!lock.isHeldByCurrentThread()) {
                    runDeferred();
                }
            }
        } catch (IOException e) {
            if (!closed) {
                log.debug("connection {} write failed: {}", remoteAddress(), e.toString());
            }
            transportClosed();
            return;
        }
        if (close) {
            close();
        }
    }

    private void writeFully(int count) throws IOException {
        long stalledSince = 0;                                  // polling mode: when writes began to return 0
        int first = 0;
        while (first < count) {
            long n = count == 1 ? channel.write(io[0]) : channel.write(io, first, count - first);
            if (n > 0) {
                stalledSince = 0;
            } else {
                long now = System.nanoTime();
                stalledSince = stalledSince == 0 ? now : stalledSince;
                if (!nic.config().idle().idle(now - stalledSince)) {
                    writeReady.await();
                    stalledSince = 0;
                }
            }
            while (first < count && !io[first].hasRemaining()) {
                first++;
            }
        }
    }

    void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing
        }
        readReady.close();
        writeReady.close();
        LockSupport.unpark(reader);
        Thread w = writer.get();
        if (w != null) {
            LockSupport.unpark(w);
        }
        nic.linkClosed(this);
    }

    boolean isClosed() {
        return closed;
    }

    /** Passive timer and active timeout: runs engine timers. */
    void tick(long now) {
        boolean out;
        lock.lock();
        try {
            engine.tick(now);
            out = engine.hasOutput() || engine.closeRequested();
        } finally {
            lock.unlock();
        }
        runDeferred();
        if (out) {
            signalWriter();
        }
    }

    // ------------------------------------------------------------------ establishment outcome

    /** The connecting thread: waits for the outcome (parked, so the reader's wake-up takes no lock). */
    boolean awaitSetup(long deadlineNanos) throws InterruptedException {
        setupWaiter = Thread.currentThread();
        try {
            while (!setupDone) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                LockSupport.parkNanos(this, left);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
            return true;
        } finally {
            setupWaiter = null;
        }
    }

    ConnectFailure setupFailure() {
        return setupDone ? setupFailure : null;
    }

    int setupIsCode() {
        return setupDone ? setupIsCode : 0;
    }

    /** The engine's outcome, once (under {@link #lock}, so outcomes are serialised). */
    private void setupFinished(ConnectFailure f, int is) {
        if (setupDone) {
            return;
        }
        setupFailure = f;
        setupIsCode = is;
        setupDone = true;
        Thread t = setupWaiter;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    // ------------------------------------------------------------------ ConnectionPeer (under lock)

    @Override
    public InboundReceive takeReceive() {
        Vi v = vi;
        return v == null ? null : v.takeReceive();
    }

    @Override
    public int checkRemoteAccess(long address, int handle, long length, boolean write) {
        // VITCP-PROFILE §9.6 order: handle, bounds, protection tag, enables (VIA 3.2.2)
        MemoryRegion r = nic.region(handle);
        if (r == null) {
            return IsCode.INVALID_MEMORY_HANDLE;
        }
        if (!r.contains(address, length)) {
            return IsCode.ADDRESS_OUT_OF_REGION;
        }
        Vi v = vi;
        ViAttributes va = v.attributes();
        MemoryAttributes ma = r.attributes();
        if (ma.ptag() != va.ptag()) {
            return IsCode.PROTECTION_TAG_MISMATCH;
        }
        boolean enabled = write ? ma.enableRdmaWrite() && va.enableRdmaWrite() : ma.enableRdmaRead() && va.enableRdmaRead();
        return enabled ? 0 : IsCode.ACCESS_NOT_ENABLED;
    }

    @Override
    public void rdmaPlace(long address, int handle, ByteBuffer src) {
        MemoryRegion r = nic.region(handle);
        r.raw().put((int) (address - r.address()), src, src.position(), src.remaining());
    }

    // RDMA Read Response payload views, reused (one per response segment; see ViewRing)
    private final ViewRing responseViews = new ViewRing();

    @Override
    public ByteBuffer rdmaSource(long address, int handle, int length) {
        MemoryRegion r = nic.region(handle);
        return responseViews.view(r.raw(), (int) (address - r.address()), length);
    }

    @Override
    public void connectRequested(ViConnection connection) {
        nic.dispatchIncoming(this);
    }

    @Override
    public void connected(ViConnection connection) {
        Vi v = vi;
        if (v != null) {
            v.connected(connection.negotiated());
        }
        setupFinished(null, 0);
    }

    @Override
    public void connectFailed(ViConnection connection, ConnectFailure failure, int isCode) {
        log.debug("connection {} setup failed: {} IS {}", remoteAddress(), failure, isCode);
        ConnectListener l = listener;
        if (l != null) {
            l.withdraw(this);
        }
        setupFinished(failure, isCode);
    }

    @Override
    public void workCompleted(OutboundWork work, int status, long length) {
        Descriptor d = ((Descriptor.Work) work).descriptor();
        d.owner.completeSend(d, status, length);
    }

    @Override
    public void receiveCompleted(InboundReceive receive, int status, long length, int immediate) {
        Descriptor d = ((Descriptor.Work) receive).descriptor();
        d.owner.completeRecv(d, status, length, immediate);
    }

    @Override
    public void broken(ViConnection connection, BreakCause cause, int viErrorType, int isCode) {
        Vi v = vi;
        if (v != null) {
            v.broken(this, cause, viErrorType, isCode);
        }
    }
}
