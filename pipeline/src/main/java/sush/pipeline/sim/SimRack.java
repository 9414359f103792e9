package sush.pipeline.sim;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

import sush.gossip.Entropy;
import sush.gossip.clock.Version;
import sush.gossip.net.MemoryNetwork;
import sush.gossip.node.GossipConfig;
import sush.gossip.node.GossipNode;
import sush.gossip.set.NetworkId;
import sush.locker.admission.FloorCause;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.RecordFormat;
import sush.locker.record.SignedRecord;
import sush.locker.store.Locker;
import sush.locker.store.LockerException;
import sush.pipeline.exec.LedgerLauncher;
import sush.pipeline.exec.Limits;
import sush.pipeline.sled.Gossip;
import sush.pipeline.sled.ReceiptSigner;
import sush.pipeline.sled.SledConfig;
import sush.pipeline.sled.SledEvent;
import sush.pipeline.sled.SledRuntime;
import sush.projections.fold.FoldBounds;
import sush.projections.fold.JobStatus;
import sush.projections.fold.Ordering;
import sush.projections.fold.Settlement;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.SignedJob;
import sush.projections.job.TrustStore;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;
import sush.projections.message.MessageException;

/**
 * The simulated rack: its sleds on one virtual-time scheduler and one in-memory network, the
 * ledger in place of processes, and what the run saw happen (the trace, the fault kinds met, the
 * floors, skips and crashes counted). It provisions, boots and crashes sleds, lets virtual time
 * pass, and reads a live sled's view; everything random derives from the seed.
 */
final class SimRack {
    /** Gossip timers for the simulation: quicker than the daemon's so runs converge in few steps. */
    static final GossipConfig GOSSIP = GossipConfig.defaults("sim").withPeriodicSync(Duration.ofSeconds(2),
            Duration.ofSeconds(20));

    /**
     * The fold's memories scaled down (issue 34): every eviction happens in short schedules, and
     * what an operator relies on (a running job's starter, the active grant, a kept stop) must
     * survive them. The daemon runs {@link FoldBounds#DEFAULTS}.
     */
    static final FoldBounds BOUNDS = new FoldBounds(4, 2, 16, 6, 16, 1, 1);

    /** {@code -Dsush.sim.debug=sN}: every event of sled N is printed as it happens (tracing a failing seed). */
    private static final String TRACED = System.getProperty("sush.sim.debug", "");

    final long seed;
    final Ordering ordering;
    private final TrustStore trust;
    final VirtualClock time = VirtualClock.create();
    final MemoryNetwork network = new MemoryNetwork();
    final List<SimSled> sleds = new ArrayList<>();
    final List<LedgerLauncher.Launch> ledger = LedgerLauncher.newLedger();
    /** Numbers every job the operator signs: the checkers' sets of jobs are bits by these numbers. */
    final JobSet.Index jobIndex = new JobSet.Index();
    final List<String> trace = new ArrayList<>();
    final Set<String> faults = new TreeSet<>();
    long floors;
    long hops;
    long flipFlops;
    long crashes;
    final Map<String, Long> skips = new TreeMap<>();
    /** (sled, job) pairs refused by a floor or a newer session: BelowFloor or Superseded skips. */
    final Set<String> refusals = new HashSet<>();
    /**
     * A sled said a session's chain was full: the jobs it did not remember were refused, and
     * later ones wait behind the hole they left until the session ends (the sled tells the
     * operator to start a new session; the calm tail then stops the sessions, as after stray burns).
     */
    boolean chainFull;
    /** (sled, job) pairs a sled reserved a boundary record for, in any life: what may end Interrupted. */
    final Set<String> reserved = new HashSet<>();
    /**
     * Forgetting (issue 39): the sleds send watermarks and forget what their settlement answers,
     * with the rule given ({@link Settlement.Break#NONE}, or a deliberately wrong one to show the
     * checkers catch it); null: they do not.
     */
    Settlement.Break settling;
    /** Jobs in waves (issue 40): null when the operator signs none. */
    WaveRuns waves;
    /**
     * Issue 40 (D-060): each sled's receipt signer in each life (null: the sleds sign none), and
     * every receipt any sled gossiped, in order: what the sleds' journals hold together.
     */
    BiFunction<String, Integer, ReceiptSigner> receiptSigners;
    final List<Message.JobReceipt> receipts = new ArrayList<>();
    /** Each sled's first ending of each job in each life (sled, life and job to what it said). */
    private final Map<String, String> endingsSaid = new HashMap<>();
    /**
     * How often a sled said another ending of a job it had ended in the same life, by the pair
     * ("skipped SESSION_ENDED, then stopped with exit 0": a stopped session resumed). Counted,
     * not judged: the status-truth checker judges each status against the launches.
     */
    final Map<String, Long> endingsReSaid = new TreeMap<>();
    /** What the wave checkers found while the run went. */
    final List<String> waveViolations = new ArrayList<>();
    /** The sleds' memories' bounds: {@link #BOUNDS}, or the daemon's for a steady run. */
    FoldBounds bounds = BOUNDS;
    /** Each sled's watermark period, in virtual time. */
    static final Duration WATERMARK_EVERY = Duration.ofMillis(500);
    /**
     * Statuses a sled's fold took, when forgetting, that the status-truth checker must read even
     * if no fold holds them at the end: each with whether its reporter had launched the job when
     * the fold took it (a status is true or not as of then). Only those that were untrue then, and
     * the interrupted ones (judged at the end, against every commit), are kept: a million-job run
     * takes hundreds of millions of statuses.
     */
    final List<Seen> statusesSeen = new ArrayList<>();
    /** The ledger's launches noted in their sleds' {@link SimSled#launched} so far. */
    private int launchesNoted;
    private final Map<String, SimSled> byBoard = new HashMap<>();

    /** A status a fold took, and whether its reporter had launched the job at that moment. */
    record Seen(SledEvent.StatusChanged status, boolean launchedBefore) {
    }
    /** A sled's head jumped over forgotten positions, and the jobs it had seen itself end by then. */
    record Jump(SimSled sled, SledEvent.Jumped jump, JobSet endedBefore) {
    }

    /** Every skeleton jump, judged by the checkers at the end (they know the operator's chains). */
    final List<Jump> jumps = new ArrayList<>();
    /** What the forgetting checker found, as it happened (and the identity checker: D-053). */
    final List<String> forgetViolations = new ArrayList<>();
    /**
     * Per universe, every message any sled's replica held, by version (its payload's hash): no
     * version may name two messages (D-053: an identity taken back must not tick a version again).
     */
    private final Map<NetworkId, Fingerprints> messages = new HashMap<>();
    /** How restarted sleds take their identity (D-053): from their bookmarks unless told otherwise. */
    Simulation.Identity identity = Simulation.Identity.KEEP;
    /** Messages forgotten, over every sled. */
    long forgotten;
    /** Sleds that said they wait at a forgotten head ({@code RackError{ForgottenHead}}), as "sled/session". */
    final Set<String> saidStuck = new HashSet<>();
    /** Positions whose request some sled forgot, per universe (a request a universe lost is not among them). */
    final Map<NetworkId, Set<JobId>> forgottenRequests = new HashMap<>();

    SimRack(long seed, int sleds, TrustStore trust, Ordering ordering) {
        this.seed = seed;
        this.trust = trust;
        this.ordering = ordering;
        for (int i = 0; i < sleds; i++) {
            this.sleds.add(new SimSled(i, jobIndex));
            byBoard.put(this.sleds.get(i).sled.baseboard(), this.sleds.get(i));
        }
    }

    void provision(SimSled s) {
        provision(s, 0);
    }

    /** Provisioning; in the signed ordering with {@code floor} (0 for a factory-new rack). */
    private void provision(SimSled s, long floor) {
        try {
            if (ordering == Ordering.SIGNED) {
                Locker.provision(RecordFormat.SIGNED, List.of(s.a, s.b), entropy(s, s.life, 3),
                        SignedRecord.provisioned(s.sled.baseboard(), floor));
            } else {
                Locker.provision(RecordFormat.CAUSAL, List.of(s.a, s.b), entropy(s, 0, 0),
                        BoundaryRecord.genesis(s.sled.baseboard()));
            }
        } catch (LockerException e) {
            throw new IllegalStateException(e);
        }
    }

    Entropy entropy(SimSled s, int life, int purpose) {
        return Entropy.seeded(seed * 1_000_003L + s.index * 10_007L + life * 101L + purpose);
    }

    void boot(SimSled s) {
        s.life++;
        s.settledThisLife.clear();
        s.dying = false;
        s.node = new GossipNode(new GossipConfig(s.name(), GOSSIP.sessionTimeout(), GOSSIP.idleTimeout(),
                GOSSIP.periodicSync(), GOSSIP.reconnectMin(), GOSSIP.reconnectMax()), network.transport(s.name()), time,
                entropy(s, s.life, 1));
        s.launcher = new LedgerLauncher(s.sled.baseboard(), ledger, false);
        try {
            s.locker = Locker.open(RecordFormat.of(ordering.wireName()), s.sled.baseboard(), List.of(s.a, s.b),
                    entropy(s, s.life, 2));
        } catch (LockerException e) {
            throw new IllegalStateException("the simulator's slots are never locked twice", e);
        }
        SledConfig cfg = new SledConfig(s.sled, trust, "sim", Limits.DEFAULT).withBounds(bounds);
        if (settling != null) {
            cfg = cfg.withSettling(new SledConfig.Settling(sleds.stream().map(x -> x.sled).toList(), WATERMARK_EVERY,
                    settling));
        }
        s.runtime = new SledRuntime(cfg,
                Gossip.of(s.node), s.locker, s.launcher, Optional.empty(), time, new SlowWriter(time, () -> s.writeMillis));
        s.runtime.events().subscribe(e -> observe(s, e));
        if (receiptSigners != null) {
            s.runtime.signReceipts(receiptSigners.apply(s.sled.baseboard(), s.life), time);
        }
        if (identity != Simulation.Identity.FORK) {
            s.node.keepIdentity(identity == Simulation.Identity.STALE ? s.bookmarks.stale() : s.bookmarks);
        }
        // A failure to record is said where the checkers' findings are, never dropped.
        s.node.entries().subscribe(e -> e.replica().deliveries(0)
                .subscribe(d -> noteMessage(s, e.network(), d.version(), d.payload()),
                        t -> forgetViolations.add("message record of " + s.name() + " failed: " + t)),
                t -> forgetViolations.add("entries of " + s.name() + " failed: " + t));
        s.runtime.start();
        // A gossip node that fails to start is said where the sled's own failures are.
        s.node.start().subscribe(v -> { }, e -> observe(s, new SledEvent.Failed("gossip node start: " + e)));
        Map<String, String> peers = new LinkedHashMap<>();
        for (SimSled o : sleds) {
            peers.put(o.name(), o.name());
        }
        s.node.setPeers(peers);
        s.up = true;
        s.a.beforeWrite(() -> { });
        s.b.beforeWrite(() -> { });
        time.advanceTime();
    }

    private void noteMessage(SimSled s, NetworkId network, Version v, byte[] payload) {
        int hash = Arrays.hashCode(payload);
        Integer before = messages.computeIfAbsent(network, n -> new Fingerprints())
                .putIfAbsent(Fingerprints.of(v.toBytes()), hash);
        if (before != null && before != hash) {
            forgetViolations.add("version named twice: " + s.name() + " (life " + s.life + ") holds a message at " + v
                    + " that another sled holds with other bytes");
        }
    }

    void crash(SimSled s) {
        if (!s.up) {
            return;
        }
        s.noteSeen();
        crashes++;
        s.up = false;
        s.crashAfterLaunch = false;
        noteCoalesced(s);
        if (s.runtime.storesWaiting() > 0) {
            faults.add("crash-with-stores-queued");
        }
        s.runtime.halt();
        time.advanceTime();
        s.node.stop();
        s.locker.close();
        s.a.crash();
        s.b.crash();
        s.a.beforeWrite(() -> { });
        s.b.beforeWrite(() -> { });
        time.advanceTime();
    }

    /** Whether this life's writer took queued stores together (D-036). */
    void noteCoalesced(SimSled s) {
        if (s.runtime.coalescedStores() > 0) {
            faults.add("coalesced-store");
        }
    }

    private void observe(SimSled s, SledEvent e) {
        if (TRACED.equals(s.name())) {
            System.out.println("TRACE " + s.name() + " life " + s.life + " t=" + time.now(
                    TimeUnit.MILLISECONDS) + " " + e);
        }
        if (settling != null) {
            s.noteSeen(); // what it saw, before a migration replaces its replica
        }
        if (e instanceof SledEvent.Entered) {
            s.universe = ((SledEvent.Entered) e).network();
        } else if (e instanceof SledEvent.Requested && s.universe != null) {
            s.requested(s.universe, ((SledEvent.Requested) e).job());
        } else if (e instanceof SledEvent.StatusChanged && s.universe != null) {
            SledEvent.StatusChanged c = (SledEvent.StatusChanged) e;
            if (c.baseboard().equals(s.sled.baseboard()) && c.status().isTerminal()) {
                s.ended(s.universe, c.job());
            }
            if (settling != null) {
                seen(c);
            }
        } else if (e instanceof SledEvent.Gossiped && s.universe != null
                && ownEnding(s, ((SledEvent.Gossiped) e).message()) != null) {
            s.ended(s.universe, ownEnding(s, ((SledEvent.Gossiped) e).message()));
        } else if (e instanceof SledEvent.Forgot) {
            checkForgot(s, ((SledEvent.Forgot) e).versions());
            s.settledThisLife.addAll(((SledEvent.Forgot) e).jobs());
        } else if (e instanceof SledEvent.Jumped && s.universe != null) {
            faults.add("skeleton-jump");
            JobSet ended = s.ended.get(s.universe);
            jumps.add(new Jump(s, (SledEvent.Jumped) e, ended == null ? new JobSet(jobIndex) : ended.copy()));
        }
        if (e instanceof SledEvent.Reserved) {
            reserved.add(s.sled.baseboard() + "/" + ((SledEvent.Reserved) e).job().codephrase());
        } else if (e instanceof SledEvent.StopKept) {
            faults.add("stop-in-commit-window");
        } else if (e instanceof SledEvent.Evicted) {
            faults.add("evicted-" + ((SledEvent.Evicted) e).memory());
            chainFull |= ((SledEvent.Evicted) e).memory().equals("chain");
        }
        if (e instanceof SledEvent.Launched && s.crashAfterLaunch) {
            s.crashAfterLaunch = false;
            s.dying = true;
            faults.add("crash-after-commit");
        }
        if (e instanceof SledEvent.Gossiped) {
            noteEnding(s, ((SledEvent.Gossiped) e).message());
        }
        if (e instanceof SledEvent.Gossiped && ((SledEvent.Gossiped) e).message() instanceof Message.JobReceipt) {
            receipts.add((Message.JobReceipt) ((SledEvent.Gossiped) e).message());
        }
        if (waves != null && e instanceof SledEvent.Gossiped) {
            waves.gossiped(((SledEvent.Gossiped) e).message());
        }
        if (e instanceof SledEvent.FloorRaised) {
            floors++;
            if (((SledEvent.FloorRaised) e).cause() == FloorCause.SESSION_HOP) {
                hops++;
            }
            if (((SledEvent.FloorRaised) e).cause() == FloorCause.UNIVERSE_FLIP_FLOP) {
                flipFlops++;
            }
        } else if (e instanceof SledEvent.Gossiped && ((SledEvent.Gossiped) e).message() instanceof Message.JobSkipped) {
            Message.JobSkipped k = (Message.JobSkipped) ((SledEvent.Gossiped) e).message();
            skips.merge(k.reason().name(), 1L, Long::sum);
            if (k.reason() == Message.SkipReason.BELOW_FLOOR || k.reason() == Message.SkipReason.SUPERSEDED) {
                refusals.add(k.baseboard() + "/" + k.job().codephrase());
            }
        } else if (e instanceof SledEvent.Gossiped && ((SledEvent.Gossiped) e).message() instanceof Message.RackError) {
            Message.RackError r = (Message.RackError) ((SledEvent.Gossiped) e).message();
            faults.add("error-" + r.kind().name().toLowerCase(Locale.ROOT));
            if (r.kind() == Message.RackErrorKind.FORGOTTEN_HEAD) {
                saidStuck.add(s.name() + "/" + r.session());
            }
        } else if (e instanceof SledEvent.Entered && ((SledEvent.Entered) e).cause().equals("MIGRATION")) {
            faults.add("migration");
        }
    }

    private static Optional<Message> decode(sush.gossip.set.Message m) {
        try {
            return Optional.of(MessageCodec.decode(m.payload()));
        } catch (MessageException e) {
            return Optional.empty();
        }
    }

    /** The job {@code m} ends on sled {@code s}, if it is a terminal status {@code s} sent of its own. */
    private static JobId ownEnding(SimSled s, Message m) {
        return Message.report(m).filter(r -> r.ending() && r.baseboard().equals(s.sled.baseboard()))
                .map(Message.Report::job).orElse(null);
    }

    /**
     * Nothing live is forgotten (issue 39), checked when it happens against every sled's replicas
     * (what no sled can see): a sled forgets a message only once every sled of the rack has seen
     * it in that universe, in this life or an earlier one (a replica's frontier at or past it). What
     * a restarted sled then needs of what was forgotten is the liveness checker's: it must still
     * run what targets it.
     */
    /** Counts a sled's second, different ending of a job in one life (see {@link #endingsReSaid}). */
    private void noteEnding(SimSled s, Message m) {
        Optional<Message.Report> r = Message.report(m);
        if (r.isEmpty() || !r.get().ending() || !r.get().baseboard().equals(s.sled.baseboard())) {
            return;
        }
        String said = m instanceof Message.JobStopped ? "stopped with exit " + ((Message.JobStopped) m).exitCode()
                : m instanceof Message.JobErrored ? "errored " + ((Message.JobErrored) m).kind()
                : m instanceof Message.JobSkipped ? "skipped " + ((Message.JobSkipped) m).reason()
                : m.getClass().getSimpleName();
        String before = endingsSaid.putIfAbsent(s.name() + "/" + s.life + "/" + r.get().job().codephrase(), said);
        if (before != null && !before.equals(said)) {
            endingsReSaid.merge(before + ", then " + said, 1L, Long::sum);
        }
    }

    /** Keeps {@code c} for the status-truth checker if it could be untrue (see {@link #statusesSeen}). */
    private void seen(SledEvent.StatusChanged c) {
        for (; launchesNoted < ledger.size(); launchesNoted++) {
            LedgerLauncher.Launch l = ledger.get(launchesNoted);
            SimSled by = byBoard.get(l.sled());
            if (by != null) {
                by.launched.add(l.job());
            }
        }
        SimSled reporter = byBoard.get(c.baseboard());
        Seen seen = new Seen(c, reporter != null && reporter.launched.contains(c.job()));
        if (c.status() == JobStatus.INTERRUPTED || Checkers.untrue(seen, true) != null) {
            statusesSeen.add(seen);
        }
    }

    private void checkForgot(SimSled s, List<Version> versions) {
        forgotten += versions.size();
        faults.add("forgot");
        sleds.forEach(o -> {
            if (o.up) {
                o.noteSeen();
            }
        });
        NetworkId universe = s.node.replica().network();
        // A request is forgotten only once every sled it targets ended it (the sled says so
        // before it forgets: the request is still in its replica).
        for (Version v : versions) {
            Optional<Message> m = s.node.replica().get(v).flatMap(SimRack::decode);
            if (m.isPresent() && m.get() instanceof Message.JobStart) {
                SignedJob job = ((Message.JobStart) m.get()).job();
                forgottenRequests.computeIfAbsent(universe, u -> new HashSet<>()).add(job.request().job());
                for (SimSled t : sleds) {
                    if (Checkers.targets(job, t.sled)
                            && !t.endedIn(universe, job.request().job())) {
                        forgetViolations.add("forgotten unended: " + s.name() + " forgot a request that " + t.name()
                                + " had not ended");
                        return;
                    }
                }
            }
        }
        // Every forgotten version is at most what a sled saw exactly when their join is (the
        // join is their least upper bound): one comparison per sled instead of one per version.
        Version all = Version.ZERO;
        for (Version v : versions) {
            all = all.join(v);
        }
        for (SimSled o : sleds) {
            if (!all.leq(o.seen.getOrDefault(universe, Version.ZERO))) {
                forgetViolations.add("forgotten unseen: " + s.name() + " (life " + s.life + ") forgot a message "
                        + o.name() + " never saw");
                return;
            }
        }
    }

    /** Exactly these groups: earlier cuts heal first. */
    void partition(List<Set<Integer>> groups) {
        network.healAll();
        List<Set<String>> names = new ArrayList<>();
        for (Set<Integer> g : groups) {
            Set<String> n = new HashSet<>();
            g.forEach(i -> n.add("s" + i));
            names.add(n);
        }
        network.partition(names);
    }

    /** Every running job on every live sled exits 0, except the jobs in {@code stoppedJobs}. */
    void endJobs(Set<JobId> stoppedJobs) {
        if (waves != null) {
            waves.checkAtOnce(waveViolations);
        }
        for (SimSled s : sleds) {
            if (s.up) {
                for (LedgerLauncher.Launch l : List.copyOf(ledger)) {
                    // A job its starter stopped never ends by itself: only the stop ends it.
                    if (l.sled().equals(s.sled.baseboard()) && !stoppedJobs.contains(l.job())) {
                        s.launcher.end(l.job(), exitCode(l));
                    }
                }
            }
        }
        time.advanceTime();
    }

    /** The exit code of launch {@code l}: 0, or 1 for a wave job's run drawn to fail. */
    int exitCode(LedgerLauncher.Launch l) {
        return waves == null ? 0 : waves.exitCode(l.job(), l.sled());
    }

    void reapDying() {
        for (SimSled s : sleds) {
            if (s.up && s.dying) {
                crash(s);
            }
        }
    }

    void advance(long millis) {
        for (long t = 0; t < millis; t += 100) {
            time.advanceTimeBy(Duration.ofMillis(Math.min(100, millis - t)));
            reapDying();
        }
    }

    /** A live sled's view with a fold (read on its loop), or null for a sled that is down or entering. */
    /** What live sled {@code s}'s chain endpoint tells a client about {@code position} (empty when down). */
    Optional<JobId> continuesAt(SimSled s, SessionId session, JobId position) {
        if (!s.up) {
            return Optional.empty();
        }
        List<Optional<JobId>> got = new ArrayList<>(1);
        s.runtime.continuesAt(session, position).subscribe(got::add,
                e -> forgetViolations.add("chain endpoint of " + s.name() + " failed: " + e)); // never silently empty
        time.advanceTime();
        return got.isEmpty() ? Optional.empty() : got.get(0);
    }

    SledRuntime.View liveView(SimSled s) {
        if (!s.up) {
            return null;
        }
        SledRuntime.View[] got = new SledRuntime.View[1];
        s.runtime.view().subscribe(x -> got[0] = x, e -> { });
        time.advanceTime();
        return got[0] == null || got[0].fold() == null ? null : got[0];
    }
}
