package sush.locker.store;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Function;

import sush.gossip.Entropy;
import sush.locker.record.RecordFormat;

/**
 * The boundary record on every M.2 slot (at-most-once.md section 8). Opening locks every slot and
 * loads them; {@link #reserve} hands the writer its newest record in order, {@link #store} makes
 * one durable on every slot. One writer: callers serialize stores (the pipeline runs them on one
 * thread, in reservation order). The records are of one ordering's {@link RecordFormat}.
 */
public final class Locker<R> implements Closeable {
    private final RecordFormat<R> format;
    private final String baseboard;
    private final List<Slot> slots;
    private final List<Closeable> locks;
    private final Load<R> load;
    private final byte[] nonce;
    /** The newest record handed to the writer (section 1: "the record"), queued or in flight. */
    private Optional<R> newest;
    private long reserved;
    private long stored;
    private boolean restamped;
    /**
     * What each slot holds as far as this locker knows (the bytes read at open or last written;
     * empty: no file; null: unknown after a failed read or write), for {@link #verify()}.
     */
    private final List<Optional<byte[]>> expected;
    /** Why the slots are no longer trusted in this life, once {@link #verify()} found a foreign change. */
    private volatile String tampered;
    /** Runs each slot's write of a store at once (D-029); null: one slot after the other. */
    private Executor parallel;

    /** What the locker keeps in memory, as a value: the model check resumes a locker from it. */
    public record Memory<R>(Load<R> load, byte[] nonce, Optional<R> newest, long reserved, long stored,
            boolean restamped) {
        public Memory {
            nonce = nonce.clone();
        }
    }

    /** A record reserved for writing: its sequence number fixes its place among stores. */
    public static final class Ticket<R> {
        private final Locker<R> locker;
        private final long seq;
        private final R record;
        private final byte[] body;

        private Ticket(Locker<R> locker, long seq, R record, byte[] body) {
            this.locker = locker;
            this.seq = seq;
            this.record = record;
            this.body = body;
        }

        public long seq() {
            return seq;
        }

        /**
         * The nonce of the process this record is stored under, in hex: with {@link #seq()} it
         * names the record among every record the slots ever held (sequences count one life's).
         */
        public String life() {
            return HexFormat.of().formatHex(locker.nonce);
        }

        public R record() {
            return record;
        }

        @Override
        public String toString() {
            return "Ticket(" + seq + ")";
        }
    }

    private Locker(RecordFormat<R> format, String baseboard, List<? extends Slot> slots, List<Closeable> locks, Memory<R> m) {
        this.format = format;
        this.expected = new ArrayList<>(Collections.nCopies(slots.size(), (Optional<byte[]>) null));
        this.baseboard = baseboard;
        this.slots = List.copyOf(slots);
        this.locks = locks;
        this.load = m.load();
        this.nonce = m.nonce();
        this.newest = m.newest();
        this.reserved = m.reserved();
        this.stored = m.stored();
        this.restamped = m.restamped();
    }

    /**
     * Locks every slot, reads them and judges the load. A second locker over the same slots fails
     * with {@link LockerException.Kind#LOCKED}. The process nonce is drawn here, once.
     */
    public static <R> Locker<R> open(RecordFormat<R> format, String baseboard, List<? extends Slot> slots, Entropy entropy)
            throws LockerException {
        List<Closeable> locks = new ArrayList<>();
        List<Load.Read> reads = new ArrayList<>();
        for (Slot s : slots) {
            try {
                locks.add(s.lock());
                reads.add(read(s));
            } catch (SlotLockedException e) {
                closeAll(locks);
                throw new LockerException(LockerException.Kind.LOCKED, "cannot lock slot " + s.name() + ": "
                        + e.getMessage(), e);
            } catch (IOException e) {
                // A slot that cannot even be locked (its directory is missing) reads as an I/O
                // error: the load discards, and this life runs nothing targeted.
                reads.add(new Load.Read.Failed(e));
            }
        }
        Load<R> load = Load.judge(reads, format, baseboard);
        byte[] nonce = new byte[SlotFile.NONCE_BYTES];
        entropy.nextBytes(nonce);
        Locker<R> l = new Locker<>(format, baseboard, slots, locks, new Memory<>(load, nonce, load.record(), 0, 0,
                false));
        for (int i = 0; i < reads.size(); i++) { // one read per slot, in order
            Load.Read r = reads.get(i);
            l.expected.set(i, r instanceof Load.Read.Present ? Optional.of(((Load.Read.Present) r).bytes().clone())
                    : r instanceof Load.Read.Missing ? Optional.empty() : null);
        }
        return l;
    }

    /** A locker over {@code slots} in the state {@code memory} (the model check's replay). */
    public static <R> Locker<R> resume(RecordFormat<R> format, String baseboard, List<? extends Slot> slots, Memory<R> memory)
            throws LockerException {
        return new Locker<>(format, baseboard, slots, lockAll(slots), memory);
    }

    /**
     * Provisioning (at-most-once.md section 4, ordered-sessions.md section 4): writes the first
     * record, {@code genesis}, to slots that hold nothing. Refuses slots holding any record,
     * readable or not.
     */
    public static <R> R provision(RecordFormat<R> format, List<? extends Slot> slots, Entropy entropy, R genesis)
            throws LockerException {
        try (Locker<R> l = open(format, format.baseboard(genesis), slots, entropy)) {
            if (!l.trusted()) {
                throw new LockerException(LockerException.Kind.IO, "cannot read the slots: " + l.load.reason());
            }
            if (l.load.verdict() != Load.Verdict.EMPTY) {
                throw new LockerException(LockerException.Kind.NOT_EMPTY,
                        "slots are not empty (" + l.load.verdict() + ": " + l.load.reason() + "); provisioning "
                                + "is for a new sled's empty slots only");
            }
            l.store(l.reserve(none -> genesis));
            return genesis;
        }
    }

    /**
     * {@code sush locker convert} (ordered-sessions.md section 4): replaces this locker's loaded
     * record by {@code how} of it, a record of another ordering, on every slot. Refuses an
     * untrusted store, empty slots (provision those instead) and a locker that stored anything
     * in this life. The loaded record is re-stamped under this process's nonce first, then the
     * converted one written to every slot; after it this locker writes nothing more (its records
     * are of the other format now). An interrupted conversion leaves slots of two orderings,
     * which every load discards (fail closed); re-provisioning with a fresh floor is then safe.
     */
    public synchronized <B> B convert(RecordFormat<B> to, Function<R, B> how)
            throws LockerException {
        if (!trusted()) {
            throw untrusted();
        }
        if (newest.isEmpty() || stored != 0 || reserved != 0) {
            throw new LockerException(LockerException.Kind.NOT_EMPTY, newest.isEmpty()
                    ? "no record to convert (the slots are empty): provision them instead"
                    : "this locker already wrote in this life; convert from a fresh open");
        }
        B next = how.apply(newest.get());
        if (!to.baseboard(next).equals(baseboard)) {
            throw new IllegalArgumentException("a record of " + to.baseboard(next) + " handed to " + baseboard);
        }
        byte[] body = to.encode(next);
        restamp();
        byte[] file = new SlotFile(nonce, 2, body).encode();
        for (Slot s : slots) {
            write(s, file);
        }
        tampered = "the record was converted to the " + to.ordering() + " ordering";
        return next;
    }

    /**
     * From now on each store writes every slot at once, each slot's write (file, fsync, rename,
     * directory fsync) on {@code writers}, and returns when all are done (D-029). On a sled the
     * two M.2s are separate devices, so a commit costs one slot's write instead of two. Safety is
     * the same: each slot is still replaced atomically, and a crash part-way leaves some slots
     * with the new record and the rest with the one before, under this process's nonce: the
     * one-nonce tear the load adopts conservatively, whichever slot got there first. The
     * re-stamp (the first write of a process) stays one slot after the other, in the order
     * section 8 gives. An executor running tasks on the calling thread gives the same outcomes
     * in a fixed order (the model check's).
     */
    public synchronized Locker<R> writeInParallel(Executor writers) {
        this.parallel = Objects.requireNonNull(writers);
        return this;
    }

    /** This locker as one of records in {@code f}, if that is its format. */
    @SuppressWarnings("unchecked")
    public <T> Optional<Locker<T>> as(RecordFormat<T> f) {
        return format == f ? Optional.of((Locker<T>) this) : Optional.empty();
    }

    /** The format (and so the ordering) of this locker's records. */
    public RecordFormat<R> format() {
        return format;
    }

    public Load<R> load() {
        return load;
    }

    /**
     * False after a Discard, or once {@link #verify()} found a slot changed by someone else: this
     * life never writes again and runs nothing targeted.
     */
    public boolean trusted() {
        return load.trusted() && tampered == null;
    }

    /** What {@link #verify()} found changed behind this locker's back, if anything. */
    public Optional<String> changed() {
        return Optional.ofNullable(tampered);
    }

    /**
     * Reads every slot and compares it with what this locker read at open or last wrote there.
     * A difference is a change this locker did not make (a job or a person wrote the M.2 file):
     * from then on the slots are untrusted for the rest of this life, exactly as if the next
     * load had found the change (fail closed). Returns the finding, once. The daemon calls it
     * when its file watch sees any change to a slot's directory; a store holds the same lock,
     * so the locker's own writes are never mistaken for foreign ones.
     */
    public synchronized Optional<String> verify() {
        return verify(true);
    }

    /**
     * As {@link #verify()}; with {@code unreadableCounts} false a slot that cannot be read now
     * is not taken for a change (a store checks so before every write, and a passing read error
     * of a flaky drive must not end the sled's trust: the write that follows fails or succeeds
     * on its own).
     */
    private Optional<String> verify(boolean unreadableCounts) {
        if (tampered != null) {
            return Optional.empty();
        }
        for (int i = 0; i < slots.size(); i++) {
            Optional<byte[]> known = expected.get(i);
            if (known == null) {
                continue;
            }
            Optional<byte[]> now;
            try {
                now = slots.get(i).read();
            } catch (IOException e) {
                if (!unreadableCounts) {
                    continue;
                }
                now = null;
            }
            boolean same = now != null && now.isPresent() == known.isPresent()
                    && (now.isEmpty() || Arrays.equals(now.get(), known.get()));
            if (!same) {
                tampered = "slot " + slots.get(i).name() + " was changed by something other than this daemon ("
                        + (now == null ? "now unreadable" : now.isEmpty() ? "removed" : known.isEmpty() ? "created"
                        : "rewritten") + ")";
                return Optional.of(tampered);
            }
        }
        return Optional.empty();
    }

    /** The newest record handed to the writer (or loaded). */
    public synchronized Optional<R> newest() {
        return newest;
    }

    public synchronized Memory<R> memory() {
        return new Memory<>(load, nonce, newest, reserved, stored, restamped);
    }

    /**
     * Builds the next record from the newest one and reserves it, atomically: every write is a pure
     * function of the newest record handed to the writer, never of the last one acknowledged
     * (sections 1 and 4), so a straggler cannot undo a newer record.
     */
    public synchronized Ticket<R> reserve(Function<Optional<R>, R> build)
            throws LockerException {
        if (!trusted()) {
            throw untrusted();
        }
        return reserve(build.apply(newest));
    }

    /**
     * Makes {@code next} the newest record and gives it the next sequence number. Checks it first
     * (the format's invariant, I1 or O1, against the newest record; metadata only, bounded).
     */
    private Ticket<R> reserve(R next) throws LockerException {
        if (!trusted()) {
            throw untrusted();
        }
        if (!format.baseboard(next).equals(baseboard)) {
            throw new IllegalArgumentException("a record of " + format.baseboard(next) + " handed to " + baseboard);
        }
        format.check(newest, next);
        byte[] body = format.encode(next);
        newest = Optional.of(next);
        reserved++;
        return new Ticket<>(this, reserved, next, body);
    }

    /**
     * Writes the ticket's record to every slot and returns once every slot holds it. Before the
     * first store of this process, the loaded record is re-stamped under this process's nonce.
     * Any I/O failure fails the store (the job it guards must not run); a ticket older than one
     * already stored is refused, so a straggler never lands after a newer record.
     */
    public synchronized void store(Ticket<?> t) throws LockerException {
        if (t.locker != this) {
            throw new IllegalArgumentException("a ticket of another locker");
        }
        if (!trusted()) {
            throw untrusted();
        }
        if (t.seq() <= stored) {
            throw new LockerException(LockerException.Kind.SUPERSEDED,
                    "record " + t.seq() + " is older than record " + stored + ", already stored");
        }
        // A slot changed since this locker read or wrote it is found here at the latest, before
        // this store would replace the change: the daemon's file watch may not have run yet (a
        // job that rewrote a slot and ended at once had its change overwritten by its own
        // outcome record, unnoticed, in a CI run of SlotTamperTest).
        if (verify(false).isPresent()) {
            throw untrusted();
        }
        if (!restamped) {
            restamp();
        }
        // Sequence numbers of this process: the re-stamp took 1, so tickets follow it.
        byte[] file = new SlotFile(nonce, t.seq() + 1, t.body).encode();
        if (parallel == null) {
            for (Slot s : slots) {
                write(s, file);
            }
        } else {
            writeAll(file);
        }
        stored = t.seq();
    }

    /**
     * Every slot's write started at once; waits for all of them whatever each one's fate (a
     * failed slot never cuts another's write short), then fails with the first slot's failure in
     * slot order. An unchecked exception from a write (the model check's crash) is rethrown as is.
     */
    private void writeAll(byte[] file) throws LockerException {
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (Slot s : slots) {
            writes.add(CompletableFuture.runAsync(() -> {
                try {
                    write(s, file);
                } catch (LockerException e) {
                    throw new CompletionException(e);
                }
            }, parallel));
        }
        Throwable first = null;
        for (CompletableFuture<Void> w : writes) {
            try {
                w.join();
            } catch (CompletionException | CancellationException e) {
                if (first == null) {
                    first = e.getCause() == null ? e : e.getCause();
                }
            }
        }
        if (first instanceof LockerException) {
            throw (LockerException) first;
        } else if (first instanceof RuntimeException) {
            throw (RuntimeException) first;
        } else if (first instanceof Error) {
            throw (Error) first;
        } else if (first != null) {
            throw new LockerException(LockerException.Kind.IO, "recording the execution boundary failed: " + first,
                    first);
        }
    }

    /**
     * Section 8: before its first commit a process writes the adopted body to every slot under its
     * own nonce, slots whose body differs or is missing first. A crash in between leaves equal
     * bodies or a one-nonce tear, never a two-nonce disagreement.
     */
    private void restamp() throws LockerException {
        if (load.body().isPresent()) {
            byte[] file = new SlotFile(nonce, 1, load.body().get()).encode();
            for (int i : load.restampOrder()) {
                write(slots.get(i), file);
            }
        }
        restamped = true;
    }

    private void write(Slot s, byte[] file) throws LockerException {
        int i = slots.indexOf(s);
        try {
            expected.set(i, null);
            s.write(file);
            expected.set(i, Optional.of(file.clone()));
        } catch (IOException e) {
            throw new LockerException(LockerException.Kind.IO, "recording the execution boundary on " + s.name()
                    + " failed: " + e, e);
        }
    }

    private LockerException untrusted() {
        if (tampered != null) {
            return new LockerException(LockerException.Kind.UNTRUSTED, tampered + "; this sled runs no job until "
                    + "serviced");
        }
        return new LockerException(LockerException.Kind.UNTRUSTED, "the M.2 boundary records disagree or are "
                + "unreadable (" + load.reason() + "); this sled runs no job until serviced");
    }

    private static Load.Read read(Slot s) {
        try {
            Optional<byte[]> bytes = s.read();
            return bytes.isPresent() ? new Load.Read.Present(bytes.get()) : new Load.Read.Missing();
        } catch (IOException e) {
            return new Load.Read.Failed(e);
        }
    }

    private static List<Closeable> lockAll(List<? extends Slot> slots) throws LockerException {
        List<Closeable> taken = new ArrayList<>();
        for (Slot s : slots) {
            try {
                taken.add(s.lock());
            } catch (IOException e) {
                closeAll(taken);
                LockerException.Kind kind = e instanceof SlotLockedException ? LockerException.Kind.LOCKED
                        : LockerException.Kind.IO;
                throw new LockerException(kind, "cannot lock slot " + s.name() + ": " + e.getMessage(), e);
            }
        }
        return taken;
    }

    private static void closeAll(List<Closeable> locks) {
        for (Closeable c : locks) {
            try {
                c.close();
            } catch (IOException e) {
                // Releasing a lock fails only if the file is gone; the process still ends its hold.
            }
        }
    }

    @Override
    public void close() {
        closeAll(locks);
    }

    @Override
    public String toString() {
        return "Locker(" + baseboard + ", " + format + ", " + load.verdict() + ", nonce " + Arrays.hashCode(nonce) + ")";
    }
}
