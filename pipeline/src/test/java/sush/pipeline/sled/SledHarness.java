package sush.pipeline.sled;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.test.scheduler.VirtualTimeScheduler;
import sush.gossip.Entropy;
import sush.gossip.clock.Version;
import sush.gossip.node.Entry;
import sush.gossip.set.NetworkId;
import sush.gossip.set.Replica;
import sush.locker.store.Locker;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.RecordFormat;
import sush.locker.record.SignedRecord;
import sush.locker.store.LockerException;
import sush.locker.store.MemorySlot;
import sush.pipeline.Rack;
import sush.pipeline.exec.LedgerLauncher;
import sush.pipeline.exec.Limits;
import sush.projections.fixtures.Signers;
import sush.projections.job.SignedJob;
import sush.projections.job.TrustStore;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;

/**
 * One sled under test: the real {@link SledRuntime} on a virtual-time loop, its replica fed by an
 * operator replica of the same universe (synced by hand: the partition is the test's choice),
 * in-memory slots that survive restarts, and a ledger in place of processes.
 */
final class SledHarness {
    final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    /** The boundary writer's scheduler: {@link #time} unless a test stalls the writer. */
    reactor.core.scheduler.Scheduler writerTime = time;
    final MemorySlot a = new MemorySlot("m2-a");
    final MemorySlot b = new MemorySlot("m2-b");
    final List<LedgerLauncher.Launch> ledger = LedgerLauncher.newLedger();
    /** Everything the sled emitted, in order; appended from the loop (other threads with a parallel ingress). */
    final List<SledEvent> events = java.util.Collections.synchronizedList(new ArrayList<>());
    LedgerLauncher launcher;
    SledRuntime sled;
    /** The locker of a causal sled's life (null when {@link #signed}). */
    Locker<BoundaryRecord> locker;
    /** The locker of a signed sled's life (ordered-sessions.md; null unless {@link #signed}). */
    Locker<SignedRecord> signedLocker;
    /** The rack's ordering is signed: lives open their slots with the signed record format. */
    boolean signed;
    Replica replica;
    /** The operators' replicas: side 0 of each universe seeds it, other sides fork from it. */
    final java.util.Map<String, Replica> racks = new java.util.HashMap<>();
    /** The side the sled syncs with now. */
    private String current;
    Optional<sush.pipeline.journal.Journal> journal = Optional.empty();
    /** Where deliveries are read and checked ahead of the loop: inline unless a test says otherwise. */
    reactor.core.scheduler.Scheduler ingress = reactor.core.scheduler.Schedulers.immediate();
    /** The bounds of the sled's memories (the daemon's unless a test scales them down). */
    sush.projections.fold.FoldBounds bounds = sush.projections.fold.FoldBounds.DEFAULTS;
    /** The output disk's reserve (never short unless a test gives one). */
    sush.pipeline.disk.DiskReserve disk = sush.pipeline.disk.DiskReserve.NONE;
    /** Bounded gossip (issue 39): the rack the sled settles with and its watermark period; none unless a test gives it. */
    SledConfig.Settling settling;
    /** The keys the sled trusts. */
    TrustStore trust = Signers.TRUST;
    /** Shapes the sled's configuration of each new life (a clock, settling); unchanged unless a test says. */
    java.util.function.UnaryOperator<SledConfig> configure = c -> c;
    /** Runs on each new runtime before it starts (tests install fault probes). */
    java.util.function.Consumer<SledRuntime> beforeStart = sled -> { };
    private Sinks.Many<Entry> entries;
    /** Thrown by every gossip send while set (the universe changed under the send). */
    RuntimeException sendFault;
    /** The launcher of the next life, given the ledger; a ledger launcher unless a test says otherwise. */
    java.util.function.Function<List<LedgerLauncher.Launch>, sush.pipeline.exec.Launcher> launchers = null;
    private long entrySeq;
    private int lives;

    SledHarness provision() throws LockerException {
        Locker.provision(RecordFormat.CAUSAL, List.of(a, b), Entropy.seeded(0), BoundaryRecord.genesis(Rack.ME.baseboard()));
        return this;
    }

    /** A sled of a signed rack, its slots provisioned with {@code floor} (ordered-sessions.md section 4). */
    SledHarness provisionSigned(long floor) throws LockerException {
        signed = true;
        Locker.provision(RecordFormat.SIGNED, List.of(a, b), Entropy.seeded(0),
                SignedRecord.provisioned(Rack.ME.baseboard(), floor));
        return this;
    }

    /** A sled of a signed rack whose slots hold nothing (never provisioned, or wiped). */
    SledHarness signedUnprovisioned() {
        signed = true;
        return this;
    }

    /** Both slots hold bytes that are no record: the next life's store is untrusted. */
    SledHarness garbled() {
        a.setContents(Optional.of(new byte[] {1, 2, 3}));
        b.setContents(Optional.of(new byte[] {4, 5, 6}));
        return this;
    }

    static NetworkId universe(int n) {
        byte[] id = new byte[NetworkId.SIZE_BYTES];
        id[0] = 'u';
        id[15] = (byte) n;
        return NetworkId.of(id);
    }

    /** The operators' replica of universe {@code n}, side 0, created on first use. */
    Replica rack(int n) {
        return side(n, 0);
    }

    /** Side {@code k} of universe {@code n}: a partition that forked from side 0 when first used. */
    Replica side(int n, int k) {
        String key = n + "/" + k;
        Replica r = racks.get(key);
        if (r == null) {
            if (k == 0) {
                r = Replica.seed(universe(n));
            } else {
                r = Replica.newcomer();
                r.adopt(side(n, 0).grant());
            }
            racks.put(key, r);
        }
        return r;
    }

    /** A new life of the sled joining universe {@code n} with what its operator side holds. */
    SledHarness boot(int n) throws LockerException {
        return boot(n, 0);
    }

    /** A new life joining side {@code k} of universe {@code n}. */
    SledHarness boot(int n, int k) throws LockerException {
        lives++;
        launcher = new LedgerLauncher(Rack.ME.baseboard(), ledger, false);
        sush.pipeline.exec.Launcher used = launchers == null ? launcher : launchers.apply(ledger);
        Locker<?> opened;
        if (signed) {
            signedLocker = Locker.open(RecordFormat.SIGNED, Rack.ME.baseboard(), List.of(a, b), Entropy.seeded(lives));
            opened = signedLocker;
        } else {
            locker = Locker.open(RecordFormat.CAUSAL, Rack.ME.baseboard(), List.of(a, b), Entropy.seeded(lives));
            opened = locker;
        }
        entries = Sinks.many().replay().all();
        entrySeq = 0;
        Gossip gossip = new Gossip() {
            @Override
            public Flux<Entry> entries() {
                return entries.asFlux();
            }

            @Override
            public void send(byte[] payload) {
                if (sendFault != null) {
                    throw sendFault;
                }
                replica.send(payload);
            }
        };
        SledConfig cfg = new SledConfig(Rack.ME, trust, "0.1.0", Limits.DEFAULT).withBounds(bounds).withDisk(disk);
        if (settling != null) {
            cfg = cfg.withSettling(settling);
        }
        sled = new SledRuntime(configure.apply(cfg), gossip, opened,
                used,
                journal, time, writerTime, ingress);
        sled.events().subscribe(events::add);
        beforeStart.accept(sled);
        sled.start();
        enter(n, k, Entry.Cause.START);
        return this;
    }

    /** The sled migrates (during this life) into universe {@code n}, side 0. */
    SledHarness migrate(int n) {
        enter(n, 0, Entry.Cause.MIGRATION);
        return this;
    }

    private void enter(int n, int k, Entry.Cause cause) {
        current = n + "/" + k;
        replica = Replica.newcomer();
        replica.adopt(side(n, k).grant());
        entries.tryEmitNext(new Entry(++entrySeq, cause, universe(n), replica));
        settle();
    }

    /** The gossip node's entry stream fails. */
    void entriesFail(RuntimeException e) {
        entries.tryEmitError(e);
        settle();
    }

    /** The process dies: memory gone; slots keep what was durable. */
    void crash() {
        sled.halt();
        settle();
        (signed ? signedLocker : locker).close();
        a.crash();
        b.crash();
        settle();
    }

    /** An operator message, sent on the operator side of the sled's current universe (not yet synced). */
    Version operator(Message m) {
        return rack().send(MessageCodec.encode(m));
    }

    /** An operator message in universe {@code n} before the sled is there. */
    Version operator0(int n, Message m) {
        return rack(n).send(MessageCodec.encode(m));
    }

    /**
     * A hop (a provisioned harness, not booted): side 1 forks before anything happens; the sled
     * runs job A of session 1 on side 0, crashes, and boots on side 1, which never heard of A and
     * started session 2 with job B concurrently; after the sync its floor is raised. Returns A.
     */
    SignedJob hopToAConcurrentSide() throws Exception {
        side(1, 1);
        SignedJob a = Rack.jobs(Rack.session(1), 1, "a", "*").get(0);
        boot(1, 0);
        operator(Rack.start(1));
        operator(new Message.JobStart(a));
        sync();
        launcher.end(a.request().job(), 0);
        settle();
        crash();
        SignedJob b = Rack.jobs(Rack.session(2), 1, "b", "*").get(0);
        operator0side(1, 1, Rack.start(2));
        operator0side(1, 1, new Message.JobStart(b));
        boot(1, 1);
        sync();
        return a;
    }

    /** An operator message on side {@code k} of universe {@code n}. */
    Version operator0side(int n, int k, Message m) {
        return side(n, k).send(MessageCodec.encode(m));
    }

    Replica rack() {
        return racks.get(current);
    }

    /** The sled's peers change to side {@code k} of its universe (no entry: same universe). */
    void peers(int k) {
        current = current.substring(0, current.indexOf('/') + 1) + k;
    }

    /** A sync session between the sled and its operator side: both hold the union after it. */
    void sync() {
        Replica r = rack();
        replica.commit(r.network(), r.frontier(), r.missingFor(r.view(), replica.frontier()));
        r.commit(replica.network(), replica.frontier(), replica.missingFor(replica.view(), r.frontier()));
        settle();
    }

    /**
     * Boots (life 1) with every boundary write held in {@code held} until the test runs it, and
     * runs the boot's own: the next write waits for {@link #runHeld}.
     */
    SledHarness bootHoldingWrites(List<Runnable> held) throws LockerException {
        writerTime = reactor.core.scheduler.Schedulers.fromExecutor(held::add);
        boot(1);
        runHeld(held);
        return this;
    }

    /** Runs tasks a test held back (a stalled writer or ingress), and what they schedule, until none is left. */
    void runHeld(List<Runnable> held) {
        while (!held.isEmpty()) {
            List<Runnable> now = List.copyOf(held);
            held.clear();
            now.forEach(Runnable::run);
            settle();
        }
    }

    /** Lets every queued task of the loop and the writer run. */
    void settle() {
        for (int i = 0; i < 10; i++) {
            time.advanceTime();
        }
    }

    List<Message> gossiped() {
        List<Message> out = new ArrayList<>();
        for (SledEvent e : snapshot()) {
            if (e instanceof SledEvent.Gossiped) {
                out.add(((SledEvent.Gossiped) e).message());
            }
        }
        return out;
    }

    <T extends Message> List<T> gossiped(Class<T> kind) {
        List<T> out = new ArrayList<>();
        for (Message m : gossiped()) {
            if (kind.isInstance(m)) {
                out.add(kind.cast(m));
            }
        }
        return out;
    }

    /** A copy of the events so far, taken under the list's lock. */
    List<SledEvent> snapshot() {
        synchronized (events) {
            return new ArrayList<>(events);
        }
    }

    <T extends SledEvent> List<T> events(Class<T> kind) {
        List<T> out = new ArrayList<>();
        for (SledEvent e : snapshot()) {
            if (kind.isInstance(e)) {
                out.add(kind.cast(e));
            }
        }
        return out;
    }

    long launches(Predicate<LedgerLauncher.Launch> which) {
        return ledger.stream().filter(which).count();
    }
}
