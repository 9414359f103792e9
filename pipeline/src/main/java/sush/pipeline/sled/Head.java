package sush.pipeline.sled;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;

import sush.gossip.clock.Version;
import sush.locker.admission.Admission;
import sush.locker.admission.FloorCause;
import sush.locker.admission.HeadRules;
import sush.locker.admission.Verdict;
import sush.pipeline.journal.JournalRecord;
import sush.projections.fold.ChainProjection;
import sush.projections.fold.SessionProjection;
import sush.projections.fold.SledProjection;
import sush.projections.fold.StatusProjection;
import sush.projections.fold.Waves;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.JobMode;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;
import sush.projections.targets.Target;
import sush.projections.targets.TargetException;

/**
 * The head of the active session's chain (at-most-once.md sections 2 and 6, ordered-sessions.md
 * section 9): what the fold's outcomes mean for this sled, the job at the head screened and
 * admitted, refused or passed, a starter's stop honoured, and requests behind the head reported
 * as having run or maybe run. The decisions are the {@link HeadRules}' (shared with the chain
 * check) and the ordering's admission; this class acts on them, in the order they are made.
 */
final class Head {
    private final SledConfig cfg;
    private final Loop loop;
    /** The head rules and their memory of this life's commits and launches (shared with the chain check). */
    private final HeadRules head;
    private final OrderingRules order;
    private final Supplier<EntryState> entry;
    private final Launches launches;
    private final Adjudication adjudication;
    private final String me;

    /** @param entry the entry folding now */
    Head(SledConfig cfg, Loop loop, HeadRules head, OrderingRules order, Supplier<EntryState> entry,
            Launches launches, Adjudication adjudication) {
        this.cfg = cfg;
        this.loop = loop;
        this.head = head;
        this.order = order;
        this.entry = entry;
        this.launches = launches;
        this.adjudication = adjudication;
        this.me = cfg.me().baseboard();
    }

    /** The fold of the entry folding now. */
    private SledProjection fold() {
        return entry.get().fold();
    }

    /** Acts on what the fold reported after a delivery or a pass of the head, in order. */
    void handle(List<SledProjection.Outcome> outcomes) {
        for (SledProjection.Outcome o : outcomes) {
            if (o instanceof SledProjection.Outcome.AtHead) {
                atHead(((SledProjection.Outcome.AtHead) o).job());
            } else if (o instanceof SledProjection.Outcome.SessionEnded) {
                SledProjection.Outcome.SessionEnded e = (SledProjection.Outcome.SessionEnded) o;
                head.unwaitSession(e.session());
                e.queued().forEach(j -> adjudication.skip(j.request().job(), Message.SkipReason.SESSION_ENDED));
            } else if (o instanceof SledProjection.Outcome.Burnt) {
                JobId id = ((SledProjection.Outcome.Burnt) o).job().request().job();
                head.unwait(id);
                if (!head.committedThisLife(id)) {
                    adjudication.skip(id, Message.SkipReason.ALREADY_HANDLED); // section 6: it precedes the head now
                }
            } else if (o instanceof SledProjection.Outcome.ConcurrentSessions) {
                concurrent((SledProjection.Outcome.ConcurrentSessions) o);
            } else if (o instanceof SledProjection.Outcome.Released) {
                // Held until its session became active: behind a resumed head it ran or may have run.
                behindHead(((SledProjection.Outcome.Released) o).job());
            } else if (o instanceof SledProjection.Outcome.Conflict) {
                conflict((SledProjection.Outcome.Conflict) o);
            } else if (o instanceof SledProjection.Outcome.ChainFull) {
                SignedJob j = ((SledProjection.Outcome.ChainFull) o).job();
                if (targetsMe(j) && ownStatus(j.request().job()).isEmpty()
                        && entry.get().skipReported().add(j.request().job())) {
                    loop.send(new Message.JobErrored(me, j.request().job(), Message.JobError.INVALID_JOB, "the "
                            + "session's chain is full (" + cfg.bounds().chainPositions() + " positions): this job is "
                            + "not remembered and never runs here; start a new session", 0));
                }
            } else if (o instanceof SledProjection.Outcome.InvalidJob) {
                SledProjection.Outcome.InvalidJob i = (SledProjection.Outcome.InvalidJob) o;
                if (targetsMe(i.job()) && ownStatus(i.job().request().job()).isEmpty()) {
                    loop.send(new Message.JobErrored(me, i.job().request().job(), Message.JobError.INVALID_JOB,
                            i.reason().name().toLowerCase(Locale.ROOT), 0));
                }
            }
        }
    }

    // ---- Stops (section 2) ----------------------------------------------------------------

    /**
     * Section 2: a starter's stop. A running job is killed; a targeted job of the active session
     * that this sled has not started gets {@code Cancelled} here and, at the head, is passed
     * without running, so later jobs still run. A replayed stop's {@code Cancelled} is reported
     * after replay, and only if the job still has no status of this sled's then: an earlier life
     * already reported it.
     */
    void onStop(Message.JobStop stop) {
        JobId id = stop.job();
        HeadRules.OnStop what = head.onStop(stop, this::admits);
        switch (what) {
            case KILL -> launches.kill(id);
            case KEPT_FOR_LAUNCH -> {
                // Committed, its record in flight: the stop is applied at the launch (never spawned).
                loop.journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.VERDICT, id.codephrase(),
                        "stop kept until the commit lands: it will not be launched"));
                loop.emit(new SledEvent.StopKept(id));
            }
            case CANCEL -> {
                adjudication.reportCancelled(id);
                if (head.atHead(id)) {
                    pass(id, ChainProjection.Passed.NEVER_RAN);
                }
            }
            case BEHIND_HEAD -> fold().chain().flatMap(c -> c.known(id)).ifPresent(this::behindHeadOne);
            case KEPT -> loop.journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.VERDICT,
                    id.codephrase(), "stop kept until the job's request, or its place in the chain, is known"));
            case NONE -> { }
        }
    }

    /**
     * Whether admission would run {@code job} at the head now: only then is a job at or ahead of
     * the head provably never started here (ordered-sessions.md section 9). Pure: a verdict that
     * would raise a floor (a hop) is no admission.
     */
    private boolean admits(SignedJob job) {
        if (loop.failure().isPresent() || !order.mayAdmit(fold())) {
            return false;
        }
        return fold().activeSession().filter(s -> s.id().equals(job.request().session()))
                .map(s -> decide(s, job.request().job(), Admission.Position.AT_HEAD) instanceof Verdict.Admit)
                .orElse(false);
    }

    // ---- Behind the head (section 6) ------------------------------------------------------

    /**
     * Section 6: a targeted request of the active session that arrives behind the head (a
     * re-sent job, or one the head passed by a burn) ran or may have run here; it is reported
     * {@code AlreadyHandled} instead of hanging queued. The snapshot's committed job is left to
     * adjudication.
     */
    void behindHead(SignedJob job) {
        behindHeadOne(job);
        // This request may close a gap: earlier requests that did not lead to the head when they
        // arrived (a resumed head, requests re-sent after a cold boot) do now. Each is judged
        // once per entry, so the walk costs one step per request.
        walkBack(job.request().session(), job.request().job());
    }

    /**
     * Judges, as requests behind the head, the known requests before {@code position} when it
     * precedes the head of active session {@code session}: a request or a burn that arrives
     * late may link earlier requests to the head.
     */
    void walkBack(SessionId session, JobId position) {
        Optional<ChainProjection> chain = fold().chain();
        if (chain.isPresent() && fold().activeSession().map(s -> s.id().equals(session)).orElse(false)
                && chain.get().precedesHead(position)) {
            // Every position back from it, burnt ones included: a burn that arrives late also links
            // the request at the burnt position (a resumed head never stood there, so no burn
            // passed it over): it ran or may have run here. Each position is walked once per entry.
            Optional<JobId> at = Optional.of(position);
            while (at.isPresent() && entry.get().walkedBack().add(at.get())) {
                chain.get().known(at.get()).ifPresent(this::behindHeadOne);
                at = chain.get().previous(at.get());
            }
        }
    }

    private void behindHeadOne(SignedJob job) {
        JobId id = job.request().job();
        if (!head.behindHead(job)) {
            // This life's own commits report their real statuses (they may still be in flight).
            return;
        }
        Verdict v = decide(fold().activeSession().orElseThrow(), id, Admission.Position.BEHIND_HEAD);
        if (v instanceof Verdict.Skip) {
            adjudication.skip(id, ((Verdict.Skip) v).reason());
        } else if (v instanceof Verdict.Refuse && entry.get().skipReported().add(id)) {
            // An untrusted store (rule 1): the job ends with the store's error here instead of
            // hanging without a status (it is behind the head, so no session end reports it).
            loop.send(new Message.JobErrored(me, id, Message.JobError.IO, ((Verdict.Refuse) v).why(), 0));
        }
    }

    // ---- What else a request or a session means here ----------------------------------------

    /**
     * Ordered-sessions.md section 9: a request at a position this sled holds, committed or ran
     * another request at is a different job at a used position: {@code Skipped{Conflict}} naming
     * both (by their successors), once per entry, never the other request's ending.
     */
    private void conflict(SledProjection.Outcome.Conflict c) {
        JobId id = c.refused().request().job();
        if (!targetsMe(c.refused()) || !vouchesFor(id, c.held())
                || !entry.get().conflictsReported().add(id + "/" + c.refused().request().successor())) {
            return;
        }
        loop.journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.VERDICT, id.codephrase(), "Conflict: "
                + "this sled holds the request with successor " + c.held().codephrase() + " here; the one with "
                + "successor " + c.refused().request().successor().codephrase() + " is another job and never runs "
                + "here"));
        loop.send(new Message.JobConflict(me, id, c.held(), c.refused().request().successor()));
    }

    /**
     * Whether this sled can say that the request with successor {@code held} is the one it holds
     * at {@code id}: its record's own commit there, one it committed in this life, or a position
     * known to be at or ahead of its head (what it holds there is what would run). A position
     * behind the head that an earlier life executed may have run either request: the nemesis
     * (issue 38) saw a sled, restarted into a universe that delivered the other request first,
     * report a conflict holding that one and refusing the one it had run; and again (signed, 30
     * minutes) where the position was not known to be behind the head either: the request held
     * there has another successor, so the chain cannot walk from the position to the resumed
     * head. Such a position is reported by the behind-head rules (already handled), never as a
     * conflict.
     */
    private boolean vouchesFor(JobId id, JobId held) {
        Optional<SignedJob> inFold = fold().chain().flatMap(ch -> ch.known(id));
        if (inFold.isEmpty() || !inFold.get().request().successor().equals(held)) {
            return true;
        }
        return head.committedThisLife(id) || fold().chain().map(ch -> ch.aheadOfHead(id)).orElse(false);
    }

    /**
     * A request of the active session whose target no sled can parse: every sled says so
     * ({@code InvalidJob}) instead of passing it in silence (the API and the client refuse such
     * targets before anything is signed or gossiped; this is what a hand-made request meets).
     */
    void checkTarget(SignedJob job) {
        JobId id = job.request().job();
        // Only a request that passed its checks and took a position: a forged one is never
        // reported rack-wide (no sled amplifies what an attacker sends).
        if (!fold().chain().flatMap(c -> c.known(id)).map(k -> k == job || Arrays.equals(
                k.request().digest(), job.request().digest())).orElse(false)) {
            return;
        }
        try {
            Target.parse(job.request().target());
        } catch (TargetException e) {
            if (ownStatus(id).isEmpty() && entry.get().skipReported().add(id)) {
                loop.send(new Message.JobErrored(me, id, Message.JobError.INVALID_JOB, "target: " + e.getMessage(), 0));
            }
        }
    }

    /** Two concurrent sessions: one error for the rack, from the acceptor that sorts first. */
    private void concurrent(SledProjection.Outcome.ConcurrentSessions c) {
        String reporter = c.first().acceptor().compareTo(c.second().acceptor()) <= 0 ? c.first().acceptor()
                : c.second().acceptor();
        Version arrival = entry.get().arrival();
        if (reporter.equals(me) && (arrival.lessThan(c.first().start()) || arrival.lessThan(c.second().start()))) {
            loop.send(new Message.RackError(me, Message.RackErrorKind.CONCURRENT_SESSIONS, c.second().id(),
                    "sessions " + c.first().id().codephrase() + " and " + c.second().id().codephrase()
                            + " started concurrently; both ended"));
        }
    }

    // ---- At the head (section 6) ------------------------------------------------------------

    private void atHead(SignedJob job) {
        JobId id = job.request().job();
        switch (head.atHead(job)) {
            case CANCELLED -> pass(id, ChainProjection.Passed.NEVER_RAN); // stopped before it started
            case ALREADY_HANDLED -> {
                // Defence in depth (section 2): this sled has its own status for the job, or
                // committed it in this life: it ran or may have run here. Never admitted.
                loop.journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.VERDICT, id.codephrase(),
                        "AlreadyHandled: own status " + ownStatus(id).map(e -> e.status().name())
                                .orElse("(this life's commit)")));
                adjudication.skip(id, Message.SkipReason.ALREADY_HANDLED);
                pass(id, ChainProjection.Passed.MAY_HAVE_RUN);
            }
            case WAIT -> { } // sequential or in waves: it waits until the previous job or the earlier waves end
            case OPERATOR_SKIPPED -> neverHere(id, Message.SkipReason.OPERATOR, "the starter skipped this sled's part");
            case BUDGET_SPENT -> {
                Waves.Gate g = Waves.gate(job, cfg.me().cubby(), fold());
                neverHere(id, Message.SkipReason.BUDGET_SPENT, g instanceof Waves.Gate.Spent
                        ? ((Waves.Gate.Spent) g).detail() : "the earlier waves spent the budget");
            }
            case SCREEN -> screen(job);
        }
    }

    /**
     * D-059: a job this sled never started and now never will (the starter skipped its part, or
     * the earlier waves spent the budget): said once, and passed as never run.
     */
    private void neverHere(JobId id, Message.SkipReason reason, String detail) {
        loop.journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.VERDICT, id.codephrase(),
                reason.name() + ": " + detail));
        adjudication.skip(id, reason, detail);
        pass(id, ChainProjection.Passed.NEVER_RAN);
    }

    /** The job waiting at the head, offered again if it may now start. */
    void retryWaiting() {
        EntryState at = entry.get();
        if (at != null && at.folding()) {
            head.retry().ifPresent(this::atHead);
        }
    }

    private void screen(SignedJob job) {
        JobId id = job.request().job();
        if (!head.atHead(id)) {
            return; // the head moved (a burn) since the job was offered
        }
        Optional<SessionProjection.Session> active = fold().activeSession()
                .filter(s -> s.id().equals(job.request().session()));
        if (active.isEmpty()) {
            return; // the session ended meanwhile; SessionEnded reports it
        }
        List<String> refusals = refusals(job);
        if (!refusals.isEmpty()) {
            // D-031, D-034: a job this sled does not allow never runs here; later jobs still do.
            String why = String.join("; ", refusals);
            loop.journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.VERDICT, id.codephrase(), why));
            if (ownStatus(id).isEmpty() && entry.get().skipReported().add(id)) {
                loop.send(new Message.JobErrored(me, id, Message.JobError.INVALID_JOB, why, 0));
            }
            pass(id, ChainProjection.Passed.MAY_HAVE_RUN);
            return;
        }
        // After an unexpected failure the sled admits nothing, as with an untrusted store (rule 1).
        Optional<String> failed = loop.failure();
        Verdict v = failed.isPresent() ? new Verdict.Refuse("the sled stopped admitting jobs after an unexpected "
                + "failure (" + failed.get() + "); its daemon restarts")
                : decide(active.get(), id, Admission.Position.AT_HEAD);
        loop.journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.VERDICT, id.codephrase(), v.toString()));
        loop.emit(new SledEvent.Screened(id, v));
        if (v instanceof Verdict.Hop) {
            loop.send(new Message.RackError(me, Message.RackErrorKind.SESSION_HOP, active.get().id(),
                    "this sled executed a session concurrent with this one"));
            raiseFloor(FloorCause.SESSION_HOP);
            screen(job); // rule 2 now refuses it
        } else if (v instanceof Verdict.Admit) {
            if (head.admitted(id) == HeadRules.Admitted.CANCEL) {
                // Its starter stopped it before it started; it stands at the head, after
                // everything this sled started: it never ran here, and never will.
                adjudication.reportCancelled(id);
                pass(id, ChainProjection.Passed.NEVER_RAN);
            } else {
                pass(id, launches.commit(job, active.get()));
            }
        } else if (v instanceof Verdict.EpochReuse) {
            // Rule 7: the signer broke its promise. Refused, and the operator is told once per session.
            String why = ((Verdict.EpochReuse) v).why();
            if (entry.get().reuseReported().add(active.get().id())) {
                loop.send(new Message.RackError(me, Message.RackErrorKind.EPOCH_REUSE, active.get().id(), why));
            }
            if (ownStatus(id).isEmpty() && entry.get().skipReported().add(id)) {
                loop.send(new Message.JobErrored(me, id, Message.JobError.INVALID_JOB, "epoch reuse: " + why, 0));
            }
            pass(id, ChainProjection.Passed.MAY_HAVE_RUN);
        } else {
            if (v instanceof Verdict.Skip) {
                adjudication.skip(id, ((Verdict.Skip) v).reason());
            } else if (v instanceof Verdict.Refuse && ownStatus(id).isEmpty()) {
                loop.send(new Message.JobErrored(me, id, Message.JobError.IO, ((Verdict.Refuse) v).why(), 0));
            }
            // Refused: it may have run in an earlier life (that is why rules 2 and 7 refuse), so
            // no later burn may move the head back over it.
            pass(id, ChainProjection.Passed.MAY_HAVE_RUN);
        }
    }

    /**
     * What this sled does not allow of {@code job} whatever its place (D-031, D-034, D-059): a limit
     * above its maximum, a terminal or stream on more than one sled, waves on a target that is not
     * a list of cubbies. Empty when it allows the job; what {@code job plan} says too.
     */
    List<String> refusals(SignedJob job) {
        List<String> above = job.request().limits().above(cfg.limits().maxima());
        List<String> refusals = new ArrayList<>();
        if (!above.isEmpty()) {
            refusals.add("limit above this sled's maximum: " + String.join("; ", above));
        }
        if (Waves.gate(job, cfg.me().cubby(), fold()) instanceof Waves.Gate.NotCubbies) {
            // D-059: waves rank cubbies, so every sled ranks the same sleds; the client resolves targets.
            refusals.add("a job in waves targets a list of cubbies, not " + job.request().target());
        }
        if (cfg.trust().revoked(job)) {
            // Issue 41: admitted before its signer was revoked rack-wide, not started: never now.
            refusals.add("revoked_signer: its signer key was revoked rack-wide before it started");
        }
        if (job.request().mode() != JobMode.RECORDED && !namesOneSled(job.request().target())) {
            // D-034: a terminal or a stream belongs to one sled; the API refuses it too.
            refusals.add(job.request().mode().wire() + " jobs target exactly one sled, not " + job.request().target());
        }
        return refusals;
    }

    /**
     * Issue 40 ({@code sush job plan}): what this sled would do now with {@code job}, a request at
     * the active session's next free position, committing nothing: the rules the head applies,
     * in the order it applies them (target, a failure, the ordering, admission, what this sled
     * allows, the head's place and the job before it, the waves).
     */
    SledRuntime.Plan plan(SignedJob job) {
        EntryState at = entry.get();
        if (!targetsMe(job)) {
            return SledRuntime.Plan.of("not-targeted", "the target does not name this sled");
        }
        if (at == null || !at.folding()) {
            return SledRuntime.Plan.of("wait", "the sled is entering its universe");
        }
        if (loop.failure().isPresent()) {
            return SledRuntime.Plan.of("refuse", "the sled stopped admitting jobs after an unexpected failure ("
                    + loop.failure().get() + ")");
        }
        Optional<SessionProjection.Session> active = fold().activeSession();
        if (active.isEmpty()) {
            // `job start` begins a session when none is active: the job would be its first.
            List<String> refused = refusals(job);
            return refused.isEmpty() ? run(job, "as the first job of the session `job start` begins (none is active)")
                    : SledRuntime.Plan.of("refuse", String.join("; ", refused));
        }
        if (!order.mayAdmit(fold())) {
            return SledRuntime.Plan.of("refuse", "the ordering admits nothing here (no grant is active)");
        }
        JobId id = job.request().job();
        Verdict v = decide(active.get(), id, Admission.Position.AT_HEAD);
        if (v instanceof Verdict.Skip) {
            return SledRuntime.Plan.of("refuse", MessageCodec.wireName(((Verdict.Skip) v).reason()));
        } else if (v instanceof Verdict.Refuse) {
            return SledRuntime.Plan.of("refuse", ((Verdict.Refuse) v).why());
        } else if (v instanceof Verdict.Hop) {
            return SledRuntime.Plan.of("refuse", "session-hop: this sled executed a session concurrent with this one");
        } else if (v instanceof Verdict.EpochReuse) {
            return SledRuntime.Plan.of("refuse", "epoch-reuse: " + ((Verdict.EpochReuse) v).why());
        }
        List<String> refused = refusals(job);
        if (!refused.isEmpty()) {
            return SledRuntime.Plan.of("refuse", String.join("; ", refused));
        }
        Optional<ChainProjection> chain = fold().chain();
        if (chain.isPresent() && !chain.get().head().equals(id)) {
            return new SledRuntime.Plan("wait", "earlier jobs first: the head stands at "
                    + chain.get().head().codephrase(), null, chain.get().head().codephrase());
        }
        if (!fold().mayStart(job)) {
            return new SledRuntime.Plan("wait", "the job this sled ran before it has not ended", null, null);
        }
        return run(job, "at once");
    }

    /** A plan to run {@code job}: in its wave, after the earlier ones, when it runs in waves. */
    private SledRuntime.Plan run(SignedJob job, String when) {
        List<Integer> members = Waves.members(job).orElse(List.of());
        int wave = job.request().wave().isSet() ? job.request().wave().waveOf(members, cfg.me().cubby()) : -1;
        return new SledRuntime.Plan("run", wave > 0 ? when + ", after waves 0 to " + (wave - 1) : when,
                wave >= 0 ? wave : null, null);
    }

    /** The admission rules of the rack's ordering (at-most-once.md 5, or ordered-sessions.md 5). */
    private Verdict decide(SessionProjection.Session active, JobId id, Admission.Position position) {
        return order.decide(entry.get(), active, id, position);
    }

    private void pass(JobId job, ChainProjection.Passed how) {
        head.passed(job);
        loop.journal(new JournalRecord.Passed(job, how));
        handle(fold().passHead(job, how));
    }

    /**
     * A floor is raised at the replica's frontier for the rest of this entry: by the entry itself
     * (section 3, causes 1 and 2) or by a session hop (rule 2).
     */
    void raiseFloor(FloorCause cause) {
        EntryState at = entry.get();
        at.raiseFloor(at.replica().frontier());
        loop.journal(new JournalRecord.Decision(JournalRecord.Decision.Kind.FLOOR, "", cause.name()));
        loop.emit(new SledEvent.FloorRaised(cause, at.floor().get()));
    }

    private static boolean namesOneSled(String target) {
        try {
            return Target.parse(target).namesOneSled();
        } catch (TargetException e) {
            return false;
        }
    }

    /** This sled's own status of the job (the head rules' reading: queued and conflicts aside). */
    private Optional<StatusProjection.Entry> ownStatus(JobId job) {
        return head.ownStatus(job);
    }

    private boolean targetsMe(SignedJob job) {
        try {
            return Target.parse(job.request().target()).runsOn(cfg.me());
        } catch (TargetException e) {
            return false;
        }
    }
}
