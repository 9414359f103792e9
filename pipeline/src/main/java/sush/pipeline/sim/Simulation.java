package sush.pipeline.sim;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import sush.gossip.Entropy;
import sush.gossip.net.MemoryNetwork;
import sush.gossip.node.GossipConfig;
import sush.gossip.node.GossipNode;
import sush.locker.store.Locker;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.RecordFormat;
import sush.locker.record.SignedRecord;
import sush.locker.store.LockerException;
import sush.locker.store.MemorySlot;
import sush.pipeline.exec.LedgerLauncher;
import sush.pipeline.exec.Limits;
import sush.pipeline.sled.Gossip;
import sush.pipeline.sled.SledConfig;
import sush.pipeline.sled.SledEvent;
import sush.pipeline.sled.SledRuntime;
import sush.projections.fold.FoldBounds;
import sush.projections.fold.Ordering;
import sush.projections.fold.StatusProjection;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.job.ClientChain;
import sush.projections.job.JobRequest;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerKey;
import sush.projections.job.TrustStore;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;
import sush.projections.targets.Sled;
import sush.projections.targets.Target;

/**
 * The deterministic rack simulator (verification.md section 3): N real sleds (gossip node, sled
 * runtime, locker) in one JVM on one virtual-time scheduler, an in-memory network that
 * partitions at will, in-memory slots with the drive fault model, crashes and cold boots, an
 * operator acting through any sled, and a ledger in place of processes. Everything random
 * derives from the seed, so a run reproduces exactly. Checkers: no (sled, job) launched twice,
 * chain order per sled, and after a calm tail, every known targeted job ends on every live sled.
 *
 * <p>Either session ordering runs. In {@code signed} (ordered-sessions.md) a session is a grant
 * whose epoch comes from the signer's clock (virtual time, kept increasing in its epoch file;
 * every fifth session the signer's clock is a minute behind and its file lost, so its grant may
 * be older than sessions already run); the operator re-submits the current grant after a
 * whole-rack cold boot ({@code sush session resume}); a wiped sled is re-provisioned with a fresh
 * epoch as its floor; and {@link Step.ReplayStart} is an ordinary action (the first grant again).
 * With {@link #signerClockGoesBack()}, every fifth session's grant comes from a signer whose clock
 * is a minute behind and whose epoch file was lost (its grant may be older than sessions run).
 */
public final class Simulation {
    /** Gossip timers for the simulation: quicker than the daemon's so runs converge in few steps. */
    static final GossipConfig GOSSIP = GossipConfig.defaults("sim").withPeriodicSync(Duration.ofSeconds(2),
            Duration.ofSeconds(20));

    /**
     * The fold's memories scaled down (issue 34): every eviction happens in short schedules, and
     * what an operator relies on (a running job's starter, the active grant, a kept stop) must
     * survive them. The daemon runs {@link FoldBounds#DEFAULTS}.
     */
    static final FoldBounds BOUNDS = new FoldBounds(4, 2, 16, 6, 16, 1, 1);

    /** What one run found and did. */
    public record Result(long seed, int sleds, int steps, long launches, Map<String, Long> skips, long floors,
            long hops, long flipFlops, long crashes, Set<String> faultKinds, List<String> violations,
            List<String> trace, long targeted, long refused) {
        public boolean ok() {
            return violations.isEmpty();
        }

        /** The one-line summary of the run. */
        public String summary() {
            return String.format(java.util.Locale.ROOT, "seed %d: %d sleds, %d steps, %d launches, skips %s, %d floors, "
                    + "%d hops, %d flip-flops, %d crashes, faults %s%s", seed, sleds, steps, launches, skips, floors, hops,
                    flipFlops, crashes, faultKinds, ok() ? "" : ", VIOLATIONS " + violations);
        }
    }

    private final long seed;
    private final int count;
    private final VirtualClock time = VirtualClock.create();
    private final MemoryNetwork network = new MemoryNetwork();
    private final List<SimSled> sleds = new ArrayList<>();
    private final List<LedgerLauncher.Launch> ledger = LedgerLauncher.newLedger();
    private final List<String> trace = new ArrayList<>();
    private final Set<String> faults = new TreeSet<>();
    private final SignerKey key;
    private final TrustStore trust;
    private final Operator operator = new Operator();
    private final Map<JobId, int[]> positions = new HashMap<>();
    /** Every job the operator signed and sent, in every session. */
    private final List<SignedJob> allJobs = new ArrayList<>();
    /** Every burn the operator sent, in every session. */
    private final List<Message.JobSkip> allBurns = new ArrayList<>();
    private long floors;
    private long hops;
    private long flipFlops;
    private long crashes;
    private final Map<String, Long> skips = new TreeMap<>();
    private final Ordering ordering;
    /** Signed ordering: the last epoch the signer issued (its epoch file). */
    private long signerLast;
    /** Signed ordering: every fifth session the signer's clock is a minute behind and its epoch file lost. */
    private boolean clockBack;
    /** Signed ordering: the next grant's signer clock is this far behind (its epoch file lost); 0: none. */
    private long nextClockBack;
    /** Signed ordering: the next grant reuses the previous grant's epoch (a broken signer). */
    private boolean nextReuse;
    /** (sled, job) pairs refused by a floor or a newer session: BelowFloor or Superseded skips. */
    private final Set<String> refusals = new HashSet<>();

    /** One simulated sled and its current life. */
    private final class SimSled {
        final int index;
        final Sled sled;
        final MemorySlot a;
        final MemorySlot b;
        int life;
        GossipNode node;
        SledRuntime runtime;
        Locker<?> locker;
        LedgerLauncher launcher;
        boolean up;
        boolean dying;
        /** How long a boundary write takes on this sled's M.2s (a slow disk: the SlowDisk fault). */
        long writeMillis = SlowWriter.LATENCY_MILLIS;
        /** Dies right after its next launch (a commit on both slots, the job started). */
        boolean crashAfterLaunch;

        SimSled(int index) {
            this.index = index;
            this.sled = new Sled(String.format("913-0000019:SIM%04d", index), index);
            this.a = new MemorySlot(sled.baseboard() + "/m2-a");
            this.b = new MemorySlot(sled.baseboard() + "/m2-b");
        }

        String name() {
            return "s" + index;
        }
    }

    /**
     * The operator's side: the current session, and every session's chain kept by the client code
     * the CLI uses ({@link ClientChain}): where the next job goes, and what {@code session resume}
     * re-submits.
     */
    private static final class Operator {
        SessionId session;
        Message.SessionStart start;
        String starter = "operator";
        int sessions;
        int commands;
        /**
         * Burns of positions other than the next free one were sent: sleds may have followed
         * different branches, and those left on another branch end their jobs only when the
         * session ends (at-most-once.md section 9). The calm tail then stops the session.
         */
        boolean strayBurns;
        /** Stray burns were sent in some session of the run (the operator may have moved on since). */
        boolean strayBurnsEver;
        /** Every session's chain, as the client keeps it. */
        final Map<SessionId, ClientChain> chains = new HashMap<>();
        /** Every request signed in each session, in the order signed (what Resend and StopJob pick from). */
        final Map<SessionId, List<SignedJob>> signed = new HashMap<>();
        /** Sessions the operator stopped. */
        final Set<SessionId> stopped = new HashSet<>();
        /** Jobs the operator stopped: they never end by themselves (EndJobs leaves them running). */
        final Set<JobId> stoppedJobs = new HashSet<>();
        /** Every session the operator started, in order. */
        final List<SessionId> all = new ArrayList<>();
        /** Signed ordering: the current session's grant, the first one, and every grant issued by session. */
        sush.projections.job.SignedGrant grant;
        sush.projections.job.SignedGrant firstGrant;
        final Map<SessionId, sush.projections.job.SignedGrant> grants = new LinkedHashMap<>();
        /** The first session of the run: its start (what ReplayStart replays under the causal ordering). */
        Message.SessionStart firstStart;

        List<SignedJob> jobs() {
            return session == null ? List.of() : signed.getOrDefault(session, List.of());
        }
    }

    /**
     * How the simulated operator's client places jobs and resumes sessions: with the kept chain
     * (the CLI's code since issue 34), or as the CLI did before it, deliberately kept here so that
     * the checkers are seen to catch it: a job at the {@code next_job} the asked sled names, and
     * {@code session resume} re-submitting the grant alone.
     */
    public enum Client {
        KEPT_CHAIN,
        SLED_NEXT_JOB
    }

    private Client client = Client.KEPT_CHAIN;
    /** Violations the operator's side sees: a position given to two requests. */
    private final List<String> clientViolations = new ArrayList<>();
    /** Every request signed, by position: a position names one request. */
    private final Map<JobId, SignedJob> signedAt = new HashMap<>();
    /**
     * A sled said a session's chain was full: the jobs it did not remember were refused, and
     * later ones wait behind the hole they left until the session ends (the sled tells the
     * operator to start a new session; the calm tail then stops the sessions, as after stray burns).
     */
    private boolean chainFull;
    /** (sled, job) pairs a sled reserved a boundary record for, in any life: what may end Interrupted. */
    private final Set<String> reserved = new HashSet<>();

    /** The previous step was a burn: a crash now is a post-burn crash. */
    private boolean afterBurn;

    public Simulation(long seed, int sleds, SignerKey key, TrustStore trust) {
        this(seed, sleds, key, trust, Ordering.CAUSAL);
    }

    public Simulation(long seed, int sleds, SignerKey key, TrustStore trust, Ordering ordering) {
        this.ordering = ordering;
        this.seed = seed;
        this.count = sleds;
        this.key = key;
        this.trust = trust;
        for (int i = 0; i < sleds; i++) {
            this.sleds.add(new SimSled(i));
        }
    }

    /** Signed ordering: every fifth session is granted by a signer whose clock went back a minute. */
    public Simulation signerClockGoesBack() {
        this.clockBack = true;
        return this;
    }

    /** The operator's client places jobs and resumes sessions as {@code c} says (the CLI's own is the default). */
    public Simulation client(Client c) {
        this.client = c;
        return this;
    }

    /** Runs the schedule, then a calm tail, then the checkers. */
    public Result run(List<Step> schedule) {
        for (SimSled s : sleds) {
            provision(s);
        }
        for (SimSled s : sleds) {
            boot(s);
        }
        advance(3_000);
        for (Step step : schedule) {
            trace.add(step.toString());
            apply(step);
            reapDying();
        }
        List<String> violations = new ArrayList<>();
        checkSafety(violations);
        calm();
        checkSafety(violations);
        checkLiveness(violations);
        checkStopsHonoured(violations);
        checkStatusTruth(violations);
        violations.addAll(clientViolations);
        countLost();
        for (SimSled s : sleds) {
            if (s.up) {
                noteCoalesced(s);
                s.runtime.halt();
                s.node.stop();
            }
        }
        time.advanceTime();
        long targeted = 0;
        for (SignedJob j : allJobs) {
            for (SimSled s : sleds) {
                targeted += targets(j, s.sled) ? 1 : 0;
            }
        }
        return new Result(seed, count, schedule.size(), ledger.size(), skips, floors, hops, flipFlops, crashes,
                faults, violations, trace, targeted, refusals.size());
    }

    private void provision(SimSled s) {
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

    private Entropy entropy(SimSled s, int life, int purpose) {
        return Entropy.seeded(seed * 1_000_003L + s.index * 10_007L + life * 101L + purpose);
    }

    private void boot(SimSled s) {
        s.life++;
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
        s.runtime = new SledRuntime(new SledConfig(s.sled, trust, "sim", Limits.DEFAULT).withBounds(BOUNDS),
                Gossip.of(s.node), s.locker, s.launcher, Optional.empty(), time, new SlowWriter(time, () -> s.writeMillis));
        s.runtime.events().subscribe(e -> observe(s, e));
        s.runtime.start();
        s.node.start().subscribe();
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

    private void crash(SimSled s) {
        if (!s.up) {
            return;
        }
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
    private void noteCoalesced(SimSled s) {
        if (s.runtime.coalescedStores() > 0) {
            faults.add("coalesced-store");
        }
    }

    /** {@code -Dsush.sim.debug=sN}: every event of sled N is printed as it happens (tracing a failing seed). */
    private static final String TRACED = System.getProperty("sush.sim.debug", "");

    private void observe(SimSled s, SledEvent e) {
        if (TRACED.equals(s.name())) {
            System.out.println("TRACE " + s.name() + " life " + s.life + " t=" + time.now(
                    java.util.concurrent.TimeUnit.MILLISECONDS) + " " + e);
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
        if (e instanceof SledEvent.FloorRaised) {
            floors++;
            if (((SledEvent.FloorRaised) e).cause() == sush.locker.admission.FloorCause.SESSION_HOP) {
                hops++;
            }
            if (((SledEvent.FloorRaised) e).cause() == sush.locker.admission.FloorCause.UNIVERSE_FLIP_FLOP) {
                flipFlops++;
            }
        } else if (e instanceof SledEvent.Gossiped && ((SledEvent.Gossiped) e).message() instanceof Message.JobSkipped) {
            Message.JobSkipped k = (Message.JobSkipped) ((SledEvent.Gossiped) e).message();
            skips.merge(k.reason().name(), 1L, Long::sum);
            if (k.reason() == Message.SkipReason.BELOW_FLOOR || k.reason() == Message.SkipReason.SUPERSEDED) {
                refusals.add(k.baseboard() + "/" + k.job().codephrase());
            }
        } else if (e instanceof SledEvent.Gossiped && ((SledEvent.Gossiped) e).message() instanceof Message.RackError) {
            faults.add("error-" + ((Message.RackError) ((SledEvent.Gossiped) e).message()).kind().name()
                    .toLowerCase(java.util.Locale.ROOT));
        } else if (e instanceof SledEvent.Entered && ((SledEvent.Entered) e).cause().equals("MIGRATION")) {
            faults.add("migration");
        }
    }

    private void apply(Step step) {
        boolean burn = step instanceof Step.Skip || step instanceof Step.Burn || step instanceof Step.ResendBurn;
        if (step instanceof Step.Crash && afterBurn && sleds.get(((Step.Crash) step).sled()).up) {
            faults.add("post-burn-crash");
        }
        afterBurn = burn || (afterBurn && (step instanceof Step.Advance || step instanceof Step.Crash));
        if (step instanceof Step.Advance) {
            advance(((Step.Advance) step).millis());
        } else if (step instanceof Step.Crash) {
            faults.add("crash");
            crash(sleds.get(((Step.Crash) step).sled()));
        } else if (step instanceof Step.Restart) {
            SimSled s = sleds.get(((Step.Restart) step).sled());
            if (!s.up) {
                faults.add("restart");
                boot(s);
            }
        } else if (step instanceof Step.SlowDisk) {
            Step.SlowDisk d = (Step.SlowDisk) step;
            faults.add("slow-disk");
            sleds.get(d.sled()).writeMillis = d.millis();
        } else if (step instanceof Step.ColdBoot) {
            faults.add("cold-boot");
            noteTargetedBeforeColdBoot();
            sleds.forEach(this::crash);
            sleds.forEach(this::boot);
            resumeAfterColdBoot(0);
        } else if (step instanceof Step.SplitBrainColdBoot) {
            faults.add("split-brain-cold-boot");
            noteTargetedBeforeColdBoot();
            sleds.forEach(this::crash);
            partition(((Step.SplitBrainColdBoot) step).groups());
            sleds.forEach(this::boot);
            for (Set<Integer> g : ((Step.SplitBrainColdBoot) step).groups()) {
                g.stream().findFirst().ifPresent(this::resumeAfterColdBoot);
            }
        } else if (step instanceof Step.Partition) {
            faults.add("partition");
            partition(((Step.Partition) step).groups());
        } else if (step instanceof Step.Heal) {
            network.healAll();
        } else if (step instanceof Step.SlotFault) {
            slotFault((Step.SlotFault) step);
        } else if (step instanceof Step.CrashOnWrite) {
            faults.add("crash-mid-store");
            SimSled s = sleds.get(((Step.CrashOnWrite) step).sled());
            Runnable die = () -> {
                s.dying = true;
                throw new IllegalStateException("simulated crash inside a slot write");
            };
            s.a.beforeWrite(die);
            s.b.beforeWrite(die);
        } else if (step instanceof Step.CrashAfterCommit) {
            SimSled s = sleds.get(((Step.CrashAfterCommit) step).sled());
            s.crashAfterLaunch = s.up;
        } else if (step instanceof Step.EndJobs) {
            endJobs();
        } else if (step instanceof Step.Wipe) {
            faults.add("wipe");
            SimSled s = sleds.get(((Step.Wipe) step).sled());
            crash(s);
            s.a.setContents(Optional.empty());
            s.b.setContents(Optional.empty());
            if (ordering == Ordering.SIGNED) {
                // Ordered-sessions.md section 4: re-provisioning with a fresh signer epoch is safe.
                faults.add("wipe-reprovision");
                // New drives: no armed fault, no crash hook.
                for (MemorySlot m : List.of(s.a, s.b)) {
                    m.heal();
                    m.beforeWrite(() -> { });
                }
                try {
                    Locker.provision(RecordFormat.SIGNED, List.of(s.a, s.b), entropy(s, s.life, 3),
                            SignedRecord.provisioned(s.sled.baseboard(), nextEpoch(false)));
                } catch (LockerException e) {
                    throw new IllegalStateException("new drives refused provisioning", e);
                }
            }
        } else {
            operate(step);
        }
        time.advanceTime();
    }

    /** A cold boot after a job of the current session that some sleds do not run (issue 34, item 3). */
    private void noteTargetedBeforeColdBoot() {
        for (SignedJob j : operator.jobs()) {
            if (sleds.stream().anyMatch(s -> !targets(j, s.sled))) {
                faults.add("cold-boot-after-targeted-job");
                return;
            }
        }
    }

    /** Exactly these groups: earlier cuts heal first. */
    private void partition(List<Set<Integer>> groups) {
        network.healAll();
        List<Set<String>> names = new ArrayList<>();
        for (Set<Integer> g : groups) {
            Set<String> n = new HashSet<>();
            g.forEach(i -> n.add("s" + i));
            names.add(n);
        }
        network.partition(names);
    }

    private void slotFault(Step.SlotFault f) {
        SimSled s = sleds.get(f.sled());
        MemorySlot slot = f.slot() == 0 ? s.a : s.b;
        faults.add("slot-" + f.kind());
        if (f.kind().equals("bit-flip")) {
            if (slot.contents().isPresent()) {
                slot.flipBit((int) (seed % 4096) + f.sled() * 8);
            }
        } else {
            slot.arm(MemorySlot.Fault.valueOf(f.kind()), false);
        }
    }

    private void endJobs() {
        for (SimSled s : sleds) {
            if (s.up) {
                for (LedgerLauncher.Launch l : List.copyOf(ledger)) {
                    // A job its starter stopped never ends by itself: only the stop ends it.
                    if (l.sled().equals(s.sled.baseboard()) && !operator.stoppedJobs.contains(l.job())) {
                        s.launcher.end(l.job(), 0);
                    }
                }
            }
        }
        time.advanceTime();
    }

    private void reapDying() {
        for (SimSled s : sleds) {
            if (s.up && s.dying) {
                crash(s);
            }
        }
    }

    private void advance(long millis) {
        for (long t = 0; t < millis; t += 100) {
            time.advanceTimeBy(Duration.ofMillis(Math.min(100, millis - t)));
            reapDying();
        }
    }

    // ---- The operator ---------------------------------------------------------------------

    /**
     * The signer's next epoch: {@code max(now ms, last + 1)} on its clock (virtual time plus a
     * fixed offset), or, when its clock went back, a minute behind now with its epoch file lost.
     */
    private long nextEpoch(boolean back) {
        long now = 1_700_000_000_000L + time.now(java.util.concurrent.TimeUnit.MILLISECONDS);
        long behind = nextClockBack > 0 ? nextClockBack : back ? 60_000 : 0;
        nextClockBack = 0;
        if (nextReuse && signerLast > 0) {
            nextReuse = false;
            return signerLast;
        }
        long epoch = behind > 0 ? now - behind : Math.max(now, signerLast + 1);
        signerLast = Math.max(signerLast, epoch);
        return epoch;
    }

    /**
     * Signed ordering: after a whole-rack cold boot the operator runs {@code session resume}
     * through {@code via}: the client re-submits the current grant and its kept chain.
     */
    private void resumeAfterColdBoot(int via) {
        if (ordering == Ordering.SIGNED && operator.grant != null) {
            advance(1_000);
            faults.add("session-resume");
            resume(sleds.get(via), operator.session);
        }
    }

    /**
     * {@code session resume} of {@code session} through {@code via}, as the client does it: its
     * grant (signed ordering), then every request, burn and stop it kept, in order. The client
     * of before issue 34 re-submitted the grant alone.
     */
    private void resume(SimSled via, SessionId session) {
        sush.projections.job.SignedGrant g = operator.grants.get(session);
        if (g != null) {
            send(via, new Message.SessionGrant(g));
        }
        if (client == Client.SLED_NEXT_JOB || !operator.chains.containsKey(session)) {
            return;
        }
        for (ClientChain.Entry e : operator.chains.get(session).entries()) {
            if (e instanceof ClientChain.Entry.Request) {
                send(via, new Message.JobStart(((ClientChain.Entry.Request) e).job()));
            } else if (e instanceof ClientChain.Entry.Burn) {
                send(via, new Message.JobSkip(session, ((ClientChain.Entry.Burn) e).position(), operator.starter));
            } else {
                send(via, new Message.JobStop(((ClientChain.Entry.Stop) e).job(), operator.starter));
            }
        }
    }

    private void operate(Step step) {
        if (step instanceof Step.StartSession && ordering == Ordering.SIGNED) {
            SimSled via = sleds.get(((Step.StartSession) step).via());
            boolean back = clockBack && operator.sessions % 5 == 4;
            if (back) {
                faults.add("signer-clock-back");
            }
            byte[] clientNonce = new byte[sush.projections.job.Grant.NONCE_BYTES];
            clientNonce[0] = (byte) operator.sessions;
            clientNonce[1] = (byte) (seed & 0xff);
            operator.sessions++;
            sush.projections.job.SignedGrant g = key.sign(new sush.projections.job.Grant(nextEpoch(back), key.id(),
                    operator.starter, clientNonce));
            if (send(via, new Message.SessionGrant(g))) {
                SessionId id = g.grant().session();
                if (operator.firstGrant == null) {
                    operator.firstGrant = g;
                }
                operator.grant = g;
                operator.grants.put(id, g);
                operator.start = null;
                begin(id);
            }
        } else if (step instanceof Step.StartSession) {
            SimSled via = sleds.get(((Step.StartSession) step).via());
            byte[] sledNonce = new byte[SessionIds.NONCE_BYTES];
            entropy(via, via.life, 100 + operator.sessions).nextBytes(sledNonce);
            byte[] clientNonce = {(byte) operator.sessions, (byte) (seed & 0xff)};
            operator.sessions++;
            SessionId id = SessionIds.compute(via.sled.baseboard(), sledNonce, clientNonce);
            Message.SessionStart start = new Message.SessionStart(id, via.sled.baseboard(), sledNonce, clientNonce,
                    operator.starter);
            if (send(via, start)) {
                if (operator.firstStart == null) {
                    operator.firstStart = start;
                }
                operator.start = start;
                begin(id);
            }
        } else if (operator.session == null) {
            trace.add("  (no session yet: nothing to do)");
        } else if (step instanceof Step.Submit) {
            Step.Submit s = (Step.Submit) step;
            submit(sleds.get(s.via()), s.target(), s.concurrent());
        } else if (step instanceof Step.Resend) {
            Step.Resend r = (Step.Resend) step;
            List<SignedJob> jobs = operator.jobs();
            if (!jobs.isEmpty()) {
                faults.add("resend");
                send(sleds.get(r.via()), new Message.JobStart(jobs.get(r.index() % jobs.size())));
            }
        } else if (step instanceof Step.StopSession) {
            faults.add("session-stop");
            if (send(sleds.get(((Step.StopSession) step).via()), new Message.SessionStop(operator.session,
                    operator.starter))) {
                operator.stopped.add(operator.session);
            }
        } else if (step instanceof Step.SignerClockBack) {
            if (ordering == Ordering.SIGNED) {
                faults.add("signer-clock-back");
                nextClockBack = ((Step.SignerClockBack) step).millis();
            }
        } else if (step instanceof Step.SignerReusesEpoch) {
            if (ordering == Ordering.SIGNED) {
                faults.add("epoch-reuse");
                nextReuse = true;
            }
        } else if (step instanceof Step.ReplayStart && ordering == Ordering.SIGNED) {
            // Ordinary in the signed ordering: the first grant again, with its place in the order;
            // the client goes back to that session's kept chain.
            faults.add("replayed-grant");
            if (operator.firstGrant != null) {
                send(sleds.get(((Step.ReplayStart) step).via()), new Message.SessionGrant(operator.firstGrant));
                operator.grant = operator.firstGrant;
                operator.session = operator.firstGrant.grant().session();
                operator.strayBurns = false;
            }
        } else if (step instanceof Step.ReplayStart) {
            faults.add("replayed-start (forbidden)");
            // The run's first session comes back: a client that believes it still stands re-sends it.
            if (operator.firstStart != null) {
                send(sleds.get(((Step.ReplayStart) step).via()), operator.firstStart);
                operator.session = operator.firstStart.session();
                operator.start = operator.firstStart;
                operator.strayBurns = false;
            }
        } else if (step instanceof Step.Skip) {
            faults.add("burn");
            SimSled via = sleds.get(((Step.Skip) step).via());
            Optional<JobId> next = placement(via);
            if (next.isPresent()) {
                burn(via, next.get());
            }
        } else if (step instanceof Step.Burn) {
            // Any position: the first, or a signed job's (maybe behind some heads, maybe running).
            Step.Burn b = (Step.Burn) step;
            List<SignedJob> jobs = operator.jobs();
            int pick = b.pick() % (jobs.size() + 1);
            JobId position = pick == 0 ? sush.projections.id.Chain.first(operator.session)
                    : jobs.get(pick - 1).request().job();
            faults.add("burn-any");
            JobId tip = operator.chains.get(operator.session).tip();
            if (burn(sleds.get(b.via()), position)) {
                operator.strayBurns |= !position.equals(tip);
                operator.strayBurnsEver |= operator.strayBurns;
            }
        } else if (step instanceof Step.ResendBurn) {
            Step.ResendBurn r = (Step.ResendBurn) step;
            if (!allBurns.isEmpty()) {
                faults.add("resent-burn");
                Message.JobSkip burn = allBurns.get(r.index() % allBurns.size());
                operator.strayBurns |= burn.session().equals(operator.session);
                operator.strayBurnsEver = true;
                send(sleds.get(r.via()), burn);
            }
        } else if (step instanceof Step.StopJob) {
            Step.StopJob st = (Step.StopJob) step;
            List<SignedJob> jobs = operator.jobs();
            if (!jobs.isEmpty()) {
                faults.add("job-stop");
                stop(sleds.get(st.via()), jobs.get(st.index() % jobs.size()).request().job());
            }
        } else if (step instanceof Step.StopNewest) {
            List<SignedJob> jobs = operator.jobs();
            if (!jobs.isEmpty()) {
                faults.add("job-stop-newest");
                stop(sleds.get(((Step.StopNewest) step).via()), jobs.get(jobs.size() - 1).request().job());
            }
        }
    }

    /**
     * Where the client places the session's next job (or burn of the next position), asked
     * through {@code via}: the kept chain's tip once extended by what that sled holds after it;
     * before issue 34, the {@code next_job} the sled names. Empty when the client cannot tell
     * (the sled is down, holds another session, or the chain forked).
     */
    private Optional<JobId> placement(SimSled via) {
        if (!via.up) {
            trace.add("  " + via.name() + " is down: the request fails");
            return Optional.empty();
        }
        SledRuntime.View v = liveView(via);
        Optional<sush.projections.fold.ChainProjection> chain = v == null ? Optional.empty()
                : v.fold().activeSession().filter(a -> a.id().equals(operator.session)).flatMap(a -> v.fold().chain());
        if (client == Client.SLED_NEXT_JOB) {
            if (chain.isEmpty()) {
                trace.add("  " + via.name() + " has no such active session: the client cannot place the job");
            }
            return chain.map(sush.projections.fold.ChainProjection::nextFree);
        }
        ClientChain kept = operator.chains.get(operator.session);
        try {
            if (chain.isPresent()) {
                int added = kept.extend(List.of(ClientChain.Held.of(chain.get().heldRequests(),
                        chain.get().heldBurns())));
                if (added > 0) {
                    trace.add("  the client's chain extended by " + added + " from " + via.name());
                }
            }
        } catch (ClientChain.Fork f) {
            trace.add("  " + f.getMessage());
            return Optional.empty();
        }
        return Optional.of(kept.tip());
    }

    /** Signs the session's next job for {@code target} and submits it through {@code via}. */
    private void submit(SimSled via, String target, boolean concurrent) {
        Optional<JobId> at = placement(via);
        if (at.isEmpty()) {
            return;
        }
        JobRequest r = new JobRequest(operator.session, at.get(), "job-" + operator.commands++, target, concurrent);
        SignedJob job = key.sign(r);
        ClientChain kept = operator.chains.get(operator.session);
        if (client == Client.KEPT_CHAIN) {
            kept.keep(job); // kept before it leaves: an answer lost on the way may hide a request gossiped
        }
        if (send(via, new Message.JobStart(job))) {
            // A request that left names its position for good (one refused at once never left).
            SignedJob before = signedAt.putIfAbsent(r.job(), job);
            if (before != null && !java.util.Arrays.equals(before.request().digest(), r.digest())) {
                clientViolations.add("a position names two requests: " + r.job().codephrase() + " holds "
                        + before.request().command() + " and " + r.command());
            }
            List<SignedJob> jobs = operator.signed.computeIfAbsent(operator.session, k -> new ArrayList<>());
            // The session's place among those the operator started (a replayed one keeps its own).
            positions.putIfAbsent(r.job(), new int[] {operator.all.indexOf(operator.session) + 1, jobs.size()});
            jobs.add(job);
            allJobs.add(job);
        } else if (client == Client.KEPT_CHAIN) {
            kept.forgetLast(); // refused: it never left
        }
    }

    /** Burns {@code position} of the current session through {@code via}; the client keeps the burn. */
    private boolean burn(SimSled via, JobId position) {
        Message.JobSkip burn = new Message.JobSkip(operator.session, position, operator.starter);
        ClientChain kept = operator.chains.get(operator.session);
        kept.keepBurn(position);
        if (send(via, burn)) {
            allBurns.add(burn);
            return true;
        }
        kept.forgetLast();
        return false;
    }

    /** The starter stops {@code job} through {@code via}; the client keeps the stop, and the job never ends by itself. */
    private void stop(SimSled via, JobId job) {
        ClientChain kept = operator.chains.get(operator.session);
        kept.keepStop(job);
        if (send(via, new Message.JobStop(job, operator.starter))) {
            operator.stoppedJobs.add(job);
        } else {
            kept.forgetLast();
        }
    }

    /** The operator's client now works in the new session {@code id}, from its first position. */
    private void begin(SessionId id) {
        operator.session = id;
        operator.all.add(id);
        operator.chains.putIfAbsent(id, new ClientChain(id));
        operator.strayBurns = false;
    }

    /** Sends through a sled as its API would; false (the client sees an error) if it cannot. */
    private boolean send(SimSled via, Message m) {
        if (!via.up) {
            trace.add("  " + via.name() + " is down: the request fails");
            return false;
        }
        try {
            via.node.send(MessageCodec.encode(m));
            return true;
        } catch (RuntimeException e) {
            trace.add("  " + via.name() + " refused the request: " + e.getMessage());
            return false;
        }
    }

    // ---- The calm tail and the checkers ---------------------------------------------------

    /**
     * Faults stop: the network heals; the operator's client does what an operator does when jobs
     * stay queued (it resumes every session it keeps: grant, requests, burns and stops, in
     * order); jobs end (never one its starter stopped); then the operator asks for one more job
     * for every sled through a few sleds in turn, which every live sled must run.
     */
    private void calm() {
        trace.add("calm: heal, resume every kept session, end jobs, one more job through each of a few sleds");
        network.healAll();
        advance(10_000);
        Optional<SimSled> via = sleds.stream().filter(s -> s.up).findFirst();
        if (via.isPresent() && operator.session != null) {
            // Every session's: one the operator moved on from may still be active where the newer
            // start was lost with a losing universe, with a hole where a job was lost. The
            // current session last, so that its grant is the newest one re-submitted.
            for (SessionId s : operator.all) {
                if (!s.equals(operator.session)) {
                    resume(via.get(), s);
                }
            }
            resume(via.get(), operator.session);
        }
        for (int round = 0; round < 8; round++) {
            advance(5_000);
            endJobs();
        }
        // A sled armed to crash on its next write may have gone down in the rounds above: the
        // operator's client then talks to a sled that is still up.
        via = sleds.stream().filter(s -> s.up).findFirst();
        if (via.isPresent() && operator.session != null && !operator.stopped.contains(operator.session)
                && !operator.strayBurns) {
            List<SimSled> up = sleds.stream().filter(s -> s.up).limit(3).toList();
            for (SimSled through : up) {
                submit(through, "*", false);
                advance(2_000);
                endJobs();
            }
            for (int round = 0; round < 4; round++) {
                advance(5_000);
                endJobs();
            }
        }
        via = sleds.stream().filter(s -> s.up).findFirst();
        if (via.isPresent() && operator.session != null && (operator.strayBurns || operator.strayBurnsEver || chainFull)) {
            // Sleds on different branches, or behind a full chain's hole: what an operator does
            // then is end the sessions, and every job still queued anywhere must end
            // SessionEnded. Every session: one the operator moved on from may still be active
            // where the newer start was lost.
            trace.add("calm: stray burns were sent, or a chain was full; the operator stops its sessions");
            for (SessionId s : operator.all) {
                send(via.get(), new Message.SessionStop(s, operator.starter));
                operator.stopped.add(s);
            }
            advance(10_000);
            endJobs();
            advance(10_000);
        }
        advance(10_000);
    }

    private void checkSafety(List<String> violations) {
        Set<String> seen = new HashSet<>();
        Map<String, Map<Integer, Integer>> lastPosition = new HashMap<>();
        for (LedgerLauncher.Launch l : List.copyOf(ledger)) {
            String key = l.sled() + "/" + l.job().codephrase();
            if (!seen.add(key) && !violations.contains("twice: " + key)) {
                violations.add("twice: " + key);
            }
            int[] pos = positions.get(l.job());
            if (pos != null) {
                Map<Integer, Integer> bySession = lastPosition.computeIfAbsent(l.sled(), k -> new HashMap<>());
                Integer last = bySession.put(pos[0], pos[1]);
                if (last != null && last >= pos[1]) {
                    String v = "chain order: " + l.sled() + " ran position " + pos[1] + " after " + last;
                    if (!violations.contains(v)) {
                        violations.add(v);
                    }
                }
            }
        }
    }

    /**
     * Every targeted job a live sled knows (its request is in the sled's current universe, its
     * session in the fold) ends on it, whether its session is current or ended: no job stays
     * queued forever.
     */
    private void checkLiveness(List<String> violations) {
        for (SimSled s : sleds) {
            SledRuntime.View v = liveView(s);
            if (v == null) {
                continue;
            }
            Set<JobId> known = requestsHeld(s);
            for (SignedJob j : allJobs) {
                JobId id = j.request().job();
                if (!targets(j, s.sled) || !known.contains(id)
                        || v.fold().session(j.request().session()).isEmpty()) {
                    continue;
                }
                Optional<StatusProjection.Entry> st = v.fold().statuses().status(id, s.sled.baseboard());
                boolean terminal = st.map(e -> e.status().isTerminal()).orElse(false);
                if (!terminal && !v.running().contains(id)) {
                    boolean active = v.fold().activeSession().map(a -> a.id().equals(j.request().session()))
                            .orElse(false);
                    String head = v.fold().chain().map(c -> c.head().equals(id) ? "at the head" : "head elsewhere")
                            .orElse("no chain");
                    violations.add("liveness: " + s.name() + " left job " + positions.get(id)[1] + " of session "
                            + positions.get(id)[0] + " without an ending (" + st.map(e -> e.status().name())
                                    .orElse("no status") + ", session " + (active ? "active" : "not active") + ", "
                            + head + (ordering == Ordering.SIGNED ? ", newest grant " + v.fold().newestGrant()
                            .map(g -> g.grant().session().equals(j.request().session()) ? "its own" : "another")
                            .orElse("none") : "") + ")");
                }
            }
        }
    }

    /**
     * Stop honoured (issue 34): a job its starter stopped never ends by itself here, so one still
     * running on a live sled after the calm tail is a stop that was lost (or refused).
     */
    private void checkStopsHonoured(List<String> violations) {
        for (SimSled s : sleds) {
            if (!s.up) {
                continue;
            }
            for (JobId j : operator.stoppedJobs) {
                if (s.launcher.isRunning(j)) {
                    int[] pos = positions.get(j);
                    violations.add("stop not honoured: " + s.name() + " still runs job " + (pos == null ? j.codephrase()
                            : pos[1] + " of session " + pos[0]) + ", which its starter stopped");
                }
            }
        }
    }

    /**
     * Status truth (issue 34): what any live sled holds of every sled's statuses agrees with the
     * ledger. A start or an ending of a run (Started, Stopped, an error that only a run has) only
     * from a sled that launched the job in some life; Cancelled (never ran) only from one that
     * never did; Interrupted (may have run) only from one that committed it.
     */
    private void checkStatusTruth(List<String> violations) {
        Set<String> launched = new HashSet<>();
        for (LedgerLauncher.Launch l : List.copyOf(ledger)) {
            launched.add(l.sled() + "/" + l.job().codephrase());
        }
        Set<String> found = new TreeSet<>();
        for (SimSled viewer : sleds) {
            SledRuntime.View v = liveView(viewer);
            if (v == null) {
                continue;
            }
            for (SignedJob j : allJobs) {
                JobId id = j.request().job();
                v.fold().statuses().statuses(id).forEach((board, entry) -> {
                    String key = board + "/" + id.codephrase();
                    String lie = lie(entry, launched.contains(key), reserved.contains(key));
                    if (lie != null) {
                        int[] pos = positions.get(id);
                        found.add("status truth: " + board + " reports job " + (pos == null ? id.codephrase()
                                : pos[1] + " of session " + pos[0]) + " " + lie);
                    }
                });
            }
        }
        violations.addAll(found);
    }

    /** Why a reporter's status of a job is untrue, given whether it launched and whether it committed the job; null if true. */
    private static String lie(StatusProjection.Entry e, boolean launched, boolean committed) {
        switch (e.status()) {
            case STARTED:
            case STOPPED:
                return launched ? null : e.status().name().toLowerCase(java.util.Locale.ROOT) + ", yet never launched it";
            case ERROR: {
                Message.JobError kind = ((Message.JobErrored) e.message()).kind();
                boolean ran = kind == Message.JobError.KILLED || kind == Message.JobError.OUTPUT_LIMIT
                        || kind == Message.JobError.LIMIT;
                return !ran || launched ? null : "killed (" + kind + "), yet never launched it";
            }
            case CANCELLED:
                return launched ? "cancelled (never ran), yet launched it" : null;
            case INTERRUPTED:
                return committed ? null : "interrupted, yet never committed it";
            default:
                return null;
        }
    }

    /**
     * Refusals that no sled reports: a targeted request of the operator's current session (not
     * stopped) that a live sled holds at the end, never run there, whose session it does not know
     * (its start, or grant, was lost with a universe and never came back) never runs there. Under the causal ordering a session start is never re-sent, so a
     * cold boot loses the session; under the signed one the grant is re-submitted.
     */
    private void countLost() {
        Set<String> ran = new HashSet<>();
        for (LedgerLauncher.Launch l : List.copyOf(ledger)) {
            ran.add(l.sled() + "/" + l.job().codephrase());
        }
        for (SimSled s : sleds) {
            SledRuntime.View v = liveView(s);
            if (v == null) {
                continue;
            }
            Set<JobId> held = requestsHeld(s);
            for (SignedJob j : allJobs) {
                if (targets(j, s.sled) && held.contains(j.request().job())
                        && j.request().session().equals(operator.session) && !operator.stopped.contains(operator.session)
                        && v.fold().session(j.request().session()).isEmpty()
                        && !ran.contains(s.sled.baseboard() + "/" + j.request().job().codephrase())) {
                    refusals.add(s.sled.baseboard() + "/" + j.request().job().codephrase());
                }
            }
        }
    }

    /** A live sled's view with a fold (read on its loop), or null for a sled that is down or entering. */
    private SledRuntime.View liveView(SimSled s) {
        if (!s.up) {
            return null;
        }
        SledRuntime.View[] got = new SledRuntime.View[1];
        s.runtime.view().subscribe(x -> got[0] = x, e -> { });
        time.advanceTime();
        return got[0] == null || got[0].fold() == null ? null : got[0];
    }

    /** The jobs whose requests the sled's current universe holds. */
    private static Set<JobId> requestsHeld(SimSled s) {
        Set<JobId> out = new HashSet<>();
        for (sush.gossip.set.Delivery d : s.node.replica().readFrom(0, Integer.MAX_VALUE)) {
            try {
                Message m = MessageCodec.decode(d.payload());
                if (m instanceof Message.JobStart) {
                    out.add(((Message.JobStart) m).job().request().job());
                }
            } catch (sush.projections.message.MessageException e) {
                // Not a request.
            }
        }
        return out;
    }

    private static boolean targets(SignedJob j, Sled s) {
        try {
            return Target.parse(j.request().target()).runsOn(s);
        } catch (sush.projections.targets.TargetException e) {
            return false;
        }
    }
}
