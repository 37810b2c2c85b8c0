package io.vibridge.verbs.rdmacore;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** Process limits and libibverbs state that decide whether registrations work: RLIMIT_MEMLOCK and fork support. */
final class Limits {
    /** RLIM_INFINITY. */
    static final long UNLIMITED = -1L;
    /** Below this a gateway's buffers soon fail to register: warn at open. */
    static final long MEMLOCK_WARN = 64L << 20;
    private static final int RLIMIT_MEMLOCK = 8;

    private Limits() {
    }

    /** The soft RLIMIT_MEMLOCK in bytes ({@link #UNLIMITED} for infinity), -2 if getrlimit failed. */
    static long memlockBytes() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment rl = a.allocate(16, 8);               // struct rlimit {rlim_cur, rlim_max}
            if ((int) Ibv.GETRLIMIT.invokeExact(RLIMIT_MEMLOCK, rl) != 0) {
                return -2;
            }
            return rl.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            return -2;
        }
    }

    /** One line on RLIMIT_MEMLOCK and what it means for memory registration. */
    static String memlockLine() {
        long b = memlockBytes();
        if (b == UNLIMITED) {
            return "RLIMIT_MEMLOCK unlimited";
        }
        if (b == -2) {
            return "RLIMIT_MEMLOCK unknown (getrlimit failed)";
        }
        return "RLIMIT_MEMLOCK " + (b >> 10) + " KiB: registering more than that fails with ENOMEM unless the "
                + "process has CAP_IPC_LOCK (raise it: ulimit -l unlimited, docker --ulimit memlock=-1, "
                + "k8s IPC_LOCK)";
    }

    /** ibv_is_fork_initialized (rdma-core 35+): whether fork() is safe with registered memory. */
    static String forkStatus() {
        if (Ibv.IS_FORK_INITIALIZED == null) {
            return "fork status unknown (ibv_is_fork_initialized absent)";
        }
        try {
            int s = (int) Ibv.IS_FORK_INITIALIZED.invokeExact();
            return switch (s) {
                case 0 -> "fork protection disabled (ibv_fork_init not called; do not fork with registered memory)";
                case 1 -> "fork protection enabled";
                case 2 -> "fork protection unneeded (the kernel copies pinned pages on fork)";
                default -> "fork status " + s;
            };
        } catch (Throwable t) {
            return "fork status unknown (" + t + ")";
        }
    }
}
