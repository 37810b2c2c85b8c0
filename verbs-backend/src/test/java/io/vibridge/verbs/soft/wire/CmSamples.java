package io.vibridge.verbs.soft.wire;

import java.util.Random;

/** Random CM messages for property tests and fuzzing. */
final class CmSamples {

    private CmSamples() {
    }

    static CmMessage random(Random r) {
        return switch (r.nextInt(7)) {
            case 0 -> req(r);
            case 1 -> rep(r);
            case 2 -> new CmRtu(r.nextInt(), r.nextInt(), data(r, CmRtu.PRIVATE_DATA_SIZE));
            case 3 -> rej(r);
            case 4 -> new CmDreq(r.nextInt(), r.nextInt(), r.nextInt(1 << 24), data(r, CmDreq.PRIVATE_DATA_SIZE));
            case 5 -> new CmDrep(r.nextInt(), r.nextInt(), data(r, CmDrep.PRIVATE_DATA_SIZE));
            default -> new CmMra(r.nextInt(), r.nextInt(), CmTargetMessage.values()[r.nextInt(3)], r.nextInt(32),
                data(r, CmMra.PRIVATE_DATA_SIZE));
        };
    }

    static CmReq req(Random r) {
        return new CmReq(r.nextInt(), r.nextInt(1 << 24), r.nextLong(), r.nextLong(), r.nextInt(), r.nextInt(1 << 24),
            r.nextInt(256), r.nextInt(1 << 24), r.nextInt(256), r.nextInt(1 << 24), r.nextInt(32), r.nextInt(4),
            r.nextBoolean(), r.nextInt(1 << 24), r.nextInt(32), r.nextInt(8), r.nextInt(1 << 16), r.nextInt(16),
            r.nextBoolean(), r.nextInt(8), r.nextInt(16), r.nextBoolean(), r.nextInt(8), path(r),
            r.nextBoolean() ? CmPath.NONE : path(r), r.nextBoolean(), data(r, CmReq.PRIVATE_DATA_SIZE));
    }

    static CmPath path(Random r) {
        return new CmPath(r.nextInt(1 << 16), r.nextInt(1 << 16), new Gid(r.nextLong(), r.nextLong()),
            Gid.ofIpv4(r.nextInt()), r.nextInt(1 << 20), r.nextInt(64), r.nextInt(256), r.nextInt(256),
            r.nextInt(16), r.nextBoolean(), r.nextInt(32));
    }

    static CmRep rep(Random r) {
        return new CmRep(r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt(1 << 24), r.nextInt(1 << 24),
            r.nextInt(1 << 24), r.nextInt(1 << 24), r.nextInt(256), r.nextInt(256), r.nextInt(32), r.nextInt(4),
            r.nextBoolean(), r.nextInt(8), r.nextBoolean(), r.nextLong(), data(r, CmRep.PRIVATE_DATA_SIZE));
    }

    static CmRej rej(Random r) {
        return new CmRej(r.nextInt(), r.nextInt(), CmTargetMessage.values()[r.nextInt(3)], r.nextInt(1 << 16),
            data(r, CmRej.MAX_ARI_LENGTH), data(r, CmRej.PRIVATE_DATA_SIZE));
    }

    /** Random bytes of random length up to max (often empty or full). */
    static byte[] data(Random r, int max) {
        int n = switch (r.nextInt(4)) {
            case 0 -> 0;
            case 1 -> max;
            default -> r.nextInt(max + 1);
        };
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }
}
