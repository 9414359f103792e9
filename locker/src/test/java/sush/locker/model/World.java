package sush.locker.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import sush.gossip.clock.Version;
import sush.gossip.set.NetworkId;
import sush.locker.record.BoundaryCodec;
import sush.locker.record.BoundaryRecord;
import sush.locker.store.Load;
import sush.locker.store.Locker;

/**
 * One state of the model check's bounded world: two universes of two partitions each, three
 * sessions of three jobs, and one sled X with its memory, its two slots and the ledger of jobs it
 * ran or may have run. Mutable only while a transition builds it from a {@link #copy()}.
 */
final class World {
    static final int UNIVERSES = 2;
    static final int SIDES = 2;
    static final int SESSIONS = 3;
    static final int JOBS = 3;
    /** Where each session is started: universe and side. A and B share a universe, C is alone. */
    static final int[] SESSION_UNIVERSE = {0, 0, 1};
    static final int[] SESSION_SIDE = {0, 1, 0};

    /** A request message in a universe's history: a session start ({@code job == -1}) or a job. */
    record Request(Version version, int session, int job) {
    }

    // The rack: what each partition knows, and the requests its operators made.
    Version[][] know = new Version[UNIVERSES][SIDES];
    List<List<Request>> log = new ArrayList<>();
    Version[] start = new Version[SESSIONS];
    int[] posted = new int[SESSIONS];
    int resends;
    int wipes;

    // The sled X.
    boolean alive;
    int universe;
    int side;
    int lives;
    int entries;
    Version front = Version.ZERO;
    Optional<Version> floor = Optional.empty();
    boolean committedAboveFloor;
    Optional<BoundaryRecord> snapshot = Optional.empty();
    int[] head = new int[SESSIONS];
    /** Jobs this life launched that have not ended (bit session * JOBS + job). */
    int running;
    Locker.Memory<BoundaryRecord> locker;
    byte[][] slots = new byte[2][];
    /** Jobs that ran or may have run on X, ever (bit session * JOBS + job). */
    int ledger;

    static World initial() {
        World w = new World();
        for (int u = 0; u < UNIVERSES; u++) {
            Arrays.fill(w.know[u], Version.ZERO);
            w.log.add(new ArrayList<>());
        }
        Arrays.fill(w.head, -1);
        return w;
    }

    World copy() {
        World w = new World();
        for (int u = 0; u < UNIVERSES; u++) {
            w.know[u] = know[u].clone();
            w.log.add(new ArrayList<>(log.get(u)));
        }
        w.start = start.clone();
        w.posted = posted.clone();
        w.resends = resends;
        w.wipes = wipes;
        w.alive = alive;
        w.universe = universe;
        w.side = side;
        w.lives = lives;
        w.entries = entries;
        w.front = front;
        w.floor = floor;
        w.committedAboveFloor = committedAboveFloor;
        w.snapshot = snapshot;
        w.head = head.clone();
        w.running = running;
        w.locker = locker;
        w.slots = new byte[][] {slots[0], slots[1]};
        w.ledger = ledger;
        return w;
    }

    /** Canonical bytes of everything that decides the future: equal keys, equal futures. */
    byte[] key() {
        Key k = new Key();
        for (int u = 0; u < UNIVERSES; u++) {
            for (int s = 0; s < SIDES; s++) {
                k.bytes(know[u][s].toBytes());
            }
            k.num(log.get(u).size());
            for (Request r : log.get(u)) {
                k.bytes(r.version().toBytes()).num(r.session()).num(r.job());
            }
        }
        for (int s = 0; s < SESSIONS; s++) {
            k.bytes(start[s] == null ? new byte[0] : start[s].toBytes()).num(posted[s]).num(head[s]);
        }
        k.num(resends).num(wipes).num(alive ? 1 : 0).num(universe).num(side).num(lives).num(entries).bytes(front.toBytes());
        k.bytes(floor.map(Version::toBytes).orElse(new byte[0])).num(committedAboveFloor ? 1 : 0);
        k.bytes(snapshot.map(World::digest).orElse(new byte[0])).num(running).num(ledger);
        for (byte[] slot : slots) {
            k.bytes(slot == null ? new byte[0] : digest(slot)).num(slot == null ? 0 : 1);
        }
        if (locker != null) {
            Load<BoundaryRecord> l = locker.load();
            k.num(l.verdict().ordinal()).bytes(locker.nonce()).num(locker.reserved()).num(locker.stored())
                    .num(locker.restamped() ? 1 : 0).bytes(locker.newest().map(World::digest)
                            .orElse(new byte[0]));
        }
        return k.digest();
    }

    /**
     * Digests of records and slot files, cached: worlds share them, and hashing them again for
     * every key would dominate the search. Weak keys: a byte array is its own identity, a record
     * equal to another has the same bytes.
     */
    private static final java.util.WeakHashMap<Object, byte[]> DIGESTS = new java.util.WeakHashMap<>();

    private static byte[] digest(BoundaryRecord r) {
        return DIGESTS.computeIfAbsent(r, k -> new Key().bytes(BoundaryCodec.encode(r)).digest());
    }

    private static byte[] digest(byte[] file) {
        return DIGESTS.computeIfAbsent(file, k -> new Key().bytes(file).digest());
    }

    static NetworkId network(int u) {
        byte[] b = new byte[NetworkId.SIZE_BYTES];
        b[0] = 'U';
        b[15] = (byte) (u + 1);
        return NetworkId.of(b);
    }

    /** A compact, collision-resistant key: SHA-256 of the canonical bytes (the visited set keeps 32 bytes). */
    private static final class Key {
        private static final ThreadLocal<java.security.MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
            try {
                return java.security.MessageDigest.getInstance("SHA-256");
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
            }
        });
        private byte[] buf = new byte[4096];
        private int size;

        Key num(long v) {
            ensure(Long.BYTES);
            for (int i = 7; i >= 0; i--) {
                buf[size++] = (byte) (v >>> (8 * i));
            }
            return this;
        }

        Key bytes(byte[] b) {
            num(b.length);
            ensure(b.length);
            System.arraycopy(b, 0, buf, size, b.length);
            size += b.length;
            return this;
        }

        private void ensure(int more) {
            if (size + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
            }
        }

        byte[] digest() {
            java.security.MessageDigest d = SHA256.get();
            d.update(buf, 0, size);
            return d.digest();
        }
    }
}
