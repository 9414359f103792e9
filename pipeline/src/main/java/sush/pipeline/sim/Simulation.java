package sush.pipeline.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.BiFunction;

import sush.pipeline.exec.LedgerLauncher;
import sush.pipeline.sled.ReceiptSigner;
import sush.pipeline.sled.SledRuntime;
import sush.projections.fold.FoldBounds;
import sush.projections.fold.Ordering;
import sush.projections.fold.Settlement;
import sush.projections.id.SessionId;
import sush.projections.job.SignedGrant;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerKey;
import sush.projections.job.TrustStore;
import sush.projections.message.Message;

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
    /** What one run found and did. */
    public record Result(long seed, int sleds, int steps, long launches, Map<String, Long> skips, long floors,
            long hops, long flipFlops, long crashes, Set<String> faultKinds, List<String> violations,
            List<String> trace, long targeted, long refused, Signed signed, Map<String, Long> endingsReSaid) {
        public boolean ok() {
            return violations.isEmpty();
        }

        /** The one-line summary of the run. */
        public String summary() {
            return String.format(Locale.ROOT, "seed %d: %d sleds, %d steps, %d launches, skips %s, %d floors, "
                    + "%d hops, %d flip-flops, %d crashes, faults %s%s", seed, sleds, steps, launches, skips, floors, hops,
                    flipFlops, crashes, faultKinds, ok() ? "" : ", VIOLATIONS " + violations);
        }
    }

    /**
     * What was signed in a run (issue 40): each session the operator started, in order, with its
     * grant (signed ordering; null in a causal rack), every request it signed, every burn it sent,
     * and every receipt any sled gossiped (none unless {@link #receipts} gave the sleds signers).
     * What {@code sush audit export} would gather from a rack that lost nothing.
     */
    public record Signed(List<SessionId> sessions, Map<SessionId, SignedGrant> grants, List<SignedJob> requests,
            List<Message.JobSkip> burns, List<Message.JobReceipt> receipts) {
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

    private final long seed;
    private final int count;
    private final SimRack rack;
    private final Operator operator = new Operator();
    private final SimSigner signer;
    private final OperatorActions actions;
    private final FaultSteps faultSteps;
    private final Checkers checkers;

    /** The previous step was a burn: a crash now is a post-burn crash. */
    private boolean afterBurn;

    public Simulation(long seed, int sleds, SignerKey key, TrustStore trust) {
        this(seed, sleds, key, trust, Ordering.CAUSAL);
    }

    public Simulation(long seed, int sleds, SignerKey key, TrustStore trust, Ordering ordering) {
        this.seed = seed;
        this.count = sleds;
        this.rack = new SimRack(seed, sleds, trust, ordering);
        this.signer = new SimSigner(rack.time);
        this.actions = new OperatorActions(rack, operator, signer, key);
        this.faultSteps = new FaultSteps(rack, operator, actions, signer);
        this.checkers = new Checkers(rack, operator);
    }

    /** Signed ordering: every fifth session is granted by a signer whose clock went back a minute. */
    public Simulation signerClockGoesBack() {
        signer.clockBack = true;
        return this;
    }

    /**
     * Issue 39: the sleds send watermarks and forget what their settlement answers, by {@code rule}
     * ({@link Settlement.Break#NONE}: the sled's own; another: a wrong rule the checkers must catch).
     * Adds the checker "nothing live is forgotten" and reads forgotten jobs in the others.
     */
    public Simulation forgetting(Settlement.Break rule) {
        rack.settling = rule;
        return this;
    }

    /**
     * Issue 40 (D-059): one submit in three is signed in waves (random size and budget, drawn from
     * the seed's own stream, so the schedule is the same), some sleds' runs of it fail, and the
     * wave checkers run: at most N at once, at most K + N failures, every spent budget true.
     */
    public Simulation waves() {
        rack.waves = new WaveRuns(rack, seed);
        return this;
    }

    /**
     * Issue 40 (D-060): every sled signs receipts with {@code signers.apply(baseboard, life)}, on
     * the rack's virtual time (a signer drawing randomness from a seeded source keeps the seed's
     * replay exact); {@link Result#signed()} holds them.
     */
    public Simulation receipts(BiFunction<String, Integer, ReceiptSigner> signers) {
        rack.receiptSigners = Objects.requireNonNull(signers, "signers");
        return this;
    }

    /** How a restarted sled comes back into its universe's identity tree (D-053). */
    public enum Identity {
        /** From its bookmark when the provider saw its last send (the daemon's way). */
        KEEP,
        /** A fork of the provider's identity at every restart (before D-053). */
        FORK,
        /** Wrong: bookmarks that claim nothing was sent (the checkers must catch it). */
        STALE
    }

    /** Restarted sleds take their identity back as {@code identity} says ({@link Identity#KEEP} by default). */
    public Simulation identity(Identity identity) {
        rack.identity = identity;
        return this;
    }

    /** The operator's client places jobs and resumes sessions as {@code c} says (the CLI's own is the default). */
    public Simulation client(Client c) {
        actions.client = c;
        return this;
    }

    /** Runs the schedule, then a calm tail, then the checkers. */
    public Result run(List<Step> schedule) {
        for (SimSled s : rack.sleds) {
            rack.provision(s);
        }
        for (SimSled s : rack.sleds) {
            rack.boot(s);
        }
        rack.advance(3_000);
        for (Step step : schedule) {
            rack.trace.add(step.toString());
            apply(step);
            rack.reapDying();
            if (rack.waves != null) {
                rack.waves.checkAtOnce(rack.waveViolations);
            }
        }
        List<String> violations = new ArrayList<>();
        checkers.checkSafety(violations);
        calm();
        checkers.checkSafety(violations);
        checkers.checkConverged(violations);
        checkers.checkLiveness(violations);
        checkers.checkStopsHonoured(violations);
        checkers.checkStatusTruth(violations);
        violations.addAll(operator.clientViolations);
        checkers.checkJumps(rack.forgetViolations);
        checkers.checkStuckSaidTruly(rack.forgetViolations);
        checkers.checkContinuations(rack.forgetViolations);
        violations.addAll(rack.forgetViolations.stream().distinct().toList());
        if (rack.waves != null) {
            rack.waves.checkBudgets(rack.waveViolations);
            violations.addAll(rack.waveViolations.stream().distinct().toList());
        }
        checkers.countLost();
        for (SimSled s : rack.sleds) {
            if (s.up) {
                rack.noteCoalesced(s);
                s.runtime.halt();
                s.node.stop();
            }
        }
        rack.time.advanceTime();
        long targeted = 0;
        for (SignedJob j : operator.allJobs) {
            for (SimSled s : rack.sleds) {
                targeted += Checkers.targets(j, s.sled) ? 1 : 0;
            }
        }
        return new Result(seed, count, schedule.size(), rack.ledger.size(), rack.skips, rack.floors, rack.hops,
                rack.flipFlops, rack.crashes, rack.faults, violations, rack.trace, targeted, rack.refusals.size(),
                new Signed(List.copyOf(operator.all), Map.copyOf(operator.grants), List.copyOf(operator.allJobs),
                        List.copyOf(operator.allBurns), List.copyOf(rack.receipts)), Map.copyOf(rack.endingsReSaid));
    }

    /** One step: a fault or time passing happens to the rack, anything else is the operator's. */
    private void apply(Step step) {
        boolean burn = step instanceof Step.Skip || step instanceof Step.Burn || step instanceof Step.ResendBurn;
        if (step instanceof Step.Crash && afterBurn && rack.sleds.get(((Step.Crash) step).sled()).up) {
            rack.faults.add("post-burn-crash");
        }
        afterBurn = burn || (afterBurn && (step instanceof Step.Advance || step instanceof Step.Crash));
        if (!faultSteps.apply(step)) {
            actions.operate(step);
        }
        rack.time.advanceTime();
    }

    // ---- A steady rack ----------------------------------------------------------------------

    /** What a steady run measured: the largest gossip set of any sled, sampled as the jobs went. */
    public record Steady(int jobs, long launches, int setAtWarmup, int setMax, int setMaxAfterWarmup, int setLast,
            int chainLast, int chainMax, long forgotten, List<String> violations) {
    }

    /**
     * A rack with no faults and the daemon's bounds, taking {@code jobs} jobs through sessions
     * of {@code sessionJobs} jobs each (through every sled in turn, each on one cubby or, one in
     * ten, on every sled), each ending soon after it starts; the largest set of any sled is
     * sampled every {@code every} jobs (and the fullest memory of any sled's chain), and the checkers
     * run at the end. Issue 39's boundedness
     * in the simulator: {@code ./bench.sh sim --jobs N [--session-jobs S] [--sleds K] [--forgetting]}.
     */
    public Steady steady(int jobs, int sessionJobs, int every) {
        bootWithASession();
        int warmup = jobs / 10;
        int setAtWarmup = 0;
        int setMax = 0;
        int setMaxAfter = 0;
        int chainMax = 0;
        int ended = 0;
        for (int i = 0; i < jobs; i++) {
            SimSled via = rack.sleds.get(i % rack.sleds.size());
            if (i > 0 && i % sessionJobs == 0) {
                actions.operate(new Step.StartSession(i % rack.sleds.size()));
                rack.advance(200);
            }
            String target = i % 10 == 0 ? "*" : String.valueOf(i % rack.sleds.size());
            actions.submit(via, target, true);
            rack.advance(20);
            if (i % 5 == 4) {
                ended = endNew(ended);
            }
            if (jobs >= 100_000 && (i + 1) % (jobs / 10) == 0) { // a long run says how it goes
                System.err.printf(Locale.ROOT, "steady: %d jobs, largest set now %d messages, chain %d positions%n",
                        i + 1, largestSet(), largestChain());
            }
            if (i % every == every - 1 || i == jobs - 1) {
                int now = largestSet();
                setMax = Math.max(setMax, now);
                chainMax = Math.max(chainMax, largestChain());
                if (i >= warmup) {
                    setMaxAfter = Math.max(setMaxAfter, now);
                }
                if (i < warmup + every && i >= warmup) {
                    setAtWarmup = now;
                }
            }
        }
        List<String> violations = settleAndCheck(ended, 6);
        int chain = largestChain();
        int setLast = largestSet();
        haltAll();
        return new Steady(jobs, rack.ledger.size(), setAtWarmup, setMax, setMaxAfter, setLast, chain, chainMax,
                rack.forgotten, violations);
    }

    /** What a restarts run measured: the largest encoded version of any sled's frontier. */
    public record Restarts(int restarts, int versionAfterFirst32, int versionLast, int versionMax, long launches,
            List<String> violations) {
    }

    /**
     * Issue 39's identity bar: {@code restarts} restarts of random sleds (each a crash and a boot:
     * a kill -9 and a clean stop both leave a bookmark, D-053), a job on every sled after
     * every eighth, and the largest encoded frontier of any sled sampled after each: after the
     * first 32 restarts, at the end, and its largest. {@code ./bench.sh sim --restarts N}.
     */
    public Restarts restarts(int restarts, Random random) {
        bootWithASession();
        int after32 = 0;
        int max = 0;
        int ended = 0;
        for (int i = 0; i < restarts; i++) {
            SimSled s = rack.sleds.get(random.nextInt(rack.sleds.size()));
            rack.crash(s);
            rack.advance(200);
            rack.boot(s);
            rack.advance(2_000);
            if (i % 8 == 7) {
                actions.submit(rack.sleds.get(random.nextInt(rack.sleds.size())), "*", true);
                rack.advance(1_000);
                ended = endNew(ended);
            }
            int now = largestVersion();
            max = Math.max(max, now);
            if (i == 31) {
                after32 = now;
            }
        }
        List<String> violations = settleAndCheck(ended, 6);
        int last = largestVersion();
        haltAll();
        return new Restarts(restarts, after32, last, max, rack.ledger.size(), violations);
    }

    /**
     * The end of a steady or restarts run: {@code rounds} seconds in which the launches since
     * {@code ended} end, then what the checkers find (at most once, liveness, status truth, jumps,
     * the client's and forgetting's own).
     */
    private List<String> settleAndCheck(int ended, int rounds) {
        for (int round = 0; round < rounds; round++) {
            rack.advance(1_000);
            ended = endNew(ended);
        }
        List<String> violations = new ArrayList<>();
        checkers.checkSafety(violations);
        checkers.checkConverged(violations);
        checkers.checkLiveness(violations);
        checkers.checkStatusTruth(violations);
        checkers.checkJumps(rack.forgetViolations);
        checkers.checkStuckSaidTruly(rack.forgetViolations);
        checkers.checkContinuations(rack.forgetViolations);
        violations.addAll(operator.clientViolations);
        violations.addAll(rack.forgetViolations.stream().distinct().toList());
        return violations;
    }

    /** Every sled provisioned and booted, and a session started through sled 0 (the daemon's bounds). */
    private void bootWithASession() {
        rack.bounds = FoldBounds.DEFAULTS;
        for (SimSled s : rack.sleds) {
            rack.provision(s);
        }
        for (SimSled s : rack.sleds) {
            rack.boot(s);
        }
        rack.advance(3_000);
        actions.operate(new Step.StartSession(0));
        rack.advance(1_000);
    }

    private void haltAll() {
        for (SimSled s : rack.sleds) {
            s.runtime.halt();
            s.node.stop();
        }
        rack.time.advanceTime();
    }

    private int largestVersion() {
        int max = 0;
        for (SimSled s : rack.sleds) {
            if (s.up) {
                max = Math.max(max, s.node.replica().frontier().encodedSize());
            }
        }
        return max;
    }

    /** Ends the launches since {@code from} (the ledger's index), each with exit 0; the new index. */
    private int endNew(int from) {
        int size = rack.ledger.size(); // not a copy of it (a million-job run called this 200,000 times)
        for (int k = from; k < size; k++) {
            LedgerLauncher.Launch l = rack.ledger.get(k);
            for (SimSled s : rack.sleds) {
                if (l.sled().equals(s.sled.baseboard())) {
                    s.launcher.end(l.job(), rack.exitCode(l));
                }
            }
        }
        rack.time.advanceTime();
        return size;
    }

    /** The fullest memory of any live sled's active chain, in positions. */
    private int largestChain() {
        int chain = 0;
        for (SimSled s : rack.sleds) {
            SledRuntime.View v = rack.liveView(s);
            chain = Math.max(chain, v == null ? 0 : v.fold().chain().map(c -> c.remembered()).orElse(0));
        }
        return chain;
    }

    private int largestSet() {
        int max = 0;
        for (SimSled s : rack.sleds) {
            if (s.up) {
                max = Math.max(max, s.node.replica().size());
            }
        }
        return max;
    }

    // ---- The calm tail --------------------------------------------------------------------

    /**
     * Issue 40: what an operator does when a job's later waves wait for a cubby ({@code job status}
     * names it): skips that sled's part ({@code job skip --sled}) when the sled is down or the cubby
     * is empty, or when its history says it ended the job (the rack forgot its status: a cold boot,
     * or a restart after the rack settled the job).
     */
    private void skipDownSleds() {
        if (rack.waves == null) {
            return;
        }
        Optional<SimSled> via = rack.sleds.stream().filter(s -> s.up).findFirst();
        if (via.isEmpty()) {
            return;
        }
        for (SignedJob j : List.copyOf(rack.waves.jobs.values())) {
            for (int cubby : rack.waves.awaited(j)) {
                if (actions.send(via.get(), new Message.JobSledSkip(j.request().job(), cubby, operator.starter))) {
                    rack.faults.add("sled-skip");
                    rack.trace.add("  the operator skips cubby " + cubby + "'s part of " + j.request().job()
                            .codephrase());
                    rack.waves.skipped.computeIfAbsent(j.request().job(), k -> new java.util.HashSet<>()).add(cubby);
                }
            }
        }
    }

    /**
     * Faults stop: the network heals; the operator's client does what an operator does when jobs
     * stay queued (it resumes every session it keeps: grant, requests, burns and stops, in
     * order); jobs end (never one its starter stopped); then the operator asks for one more job
     * for every sled through a few sleds in turn, which every live sled must run.
     */
    private void calm() {
        rack.trace.add("calm: heal, resume every kept session, end jobs, one more job through each of a few sleds");
        rack.network.healAll();
        rack.advance(10_000);
        if (rack.settling != null) {
            checkers.checkNotStuckOnForgotten(rack.forgetViolations);
            checkers.checkContinuations(rack.forgetViolations); // while a forked session still runs
        }
        Optional<SimSled> via = rack.sleds.stream().filter(s -> s.up).findFirst();
        if (via.isPresent() && operator.session != null) {
            // Every session's: one the operator moved on from may still be active where the newer
            // start was lost with a losing universe, with a hole where a job was lost. The
            // current session last, so that its grant is the newest one re-submitted.
            for (SessionId s : operator.all) {
                if (!s.equals(operator.session)) {
                    actions.resume(via.get(), s);
                }
            }
            actions.resume(via.get(), operator.session);
        }
        for (int round = 0; round < 8; round++) {
            rack.advance(5_000);
            rack.endJobs(operator.stoppedJobs);
            if (round == 3) {
                skipDownSleds();
            }
        }
        // A sled armed to crash on its next write may have gone down in the rounds above: the
        // operator's client then talks to a sled that is still up.
        via = rack.sleds.stream().filter(s -> s.up).findFirst();
        if (via.isPresent() && operator.session != null && !operator.stopped.contains(operator.session)
                && !operator.strayBurns) {
            List<SimSled> up = rack.sleds.stream().filter(s -> s.up).limit(3).toList();
            for (SimSled through : up) {
                actions.submit(through, "*", false);
                rack.advance(2_000);
                rack.endJobs(operator.stoppedJobs);
            }
            for (int round = 0; round < 4; round++) {
                rack.advance(5_000);
                rack.endJobs(operator.stoppedJobs);
                if (round == 1) {
                    skipDownSleds();
                }
            }
        }
        if (rack.waves != null) {
            // Waves of one sled over a rack take a round (run, end, gossip) per sled, and the calm's
            // last jobs may each be in waves behind one another: rounds until every wave job ended
            // on every live sled it targets (bounded).
            for (int round = 0; round < 4 * rack.sleds.size() + 8 && !rack.waves.allEnded(); round++) {
                rack.advance(2_000);
                rack.endJobs(operator.stoppedJobs);
                if (round % 4 == 3) {
                    skipDownSleds(); // as an operator watching `job status` would, again as sleds go down
                }
            }
            for (int round = 0; round < 4; round++) {
                rack.advance(2_000); // the jobs behind the last wave
                rack.endJobs(operator.stoppedJobs);
            }
        }
        via = rack.sleds.stream().filter(s -> s.up).findFirst();
        if (via.isPresent() && operator.session != null && (operator.strayBurns || operator.strayBurnsEver
                || rack.chainFull)) {
            // Sleds on different branches, or behind a full chain's hole: what an operator does
            // then is end the sessions, and every job still queued anywhere must end
            // SessionEnded. Every session: one the operator moved on from may still be active
            // where the newer start was lost.
            rack.trace.add("calm: stray burns were sent, or a chain was full; the operator stops its sessions");
            for (SessionId s : operator.all) {
                actions.send(via.get(), new Message.SessionStop(s, operator.starter));
                operator.stopped.add(s);
            }
            rack.advance(10_000);
            rack.endJobs(operator.stoppedJobs);
            rack.advance(10_000);
        }
        rack.advance(10_000);
    }
}
