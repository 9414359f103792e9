package sush.pipeline.sim;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import sush.gossip.clock.Version;
import sush.gossip.set.Delivery;
import sush.gossip.set.NetworkId;
import sush.gossip.set.Replica;
import sush.pipeline.exec.LedgerLauncher;
import sush.pipeline.sled.SledEvent;
import sush.pipeline.sled.SledRuntime;
import sush.projections.fold.Ordering;
import sush.projections.fold.StatusProjection;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;
import sush.projections.message.MessageException;
import sush.projections.targets.Sled;
import sush.projections.targets.Target;
import sush.projections.targets.TargetException;

/**
 * The run's checkers, comparing what the operator signed and sent with what the sleds did (the
 * ledger) and hold (their folds): no (sled, job) launched twice, chain order per sled, every
 * known targeted job ended on every live sled, stops honoured, statuses true; and the count of
 * refusals no sled reports.
 */
final class Checkers {
    private final SimRack rack;
    private final Operator operator;

    Checkers(SimRack rack, Operator operator) {
        this.rack = rack;
        this.operator = operator;
    }

    /**
     * At most once and in order: no (sled, job) in the ledger twice, and each sled ran a
     * session's jobs in chain order.
     */
    void checkSafety(List<String> violations) {
        Set<String> seen = new HashSet<>();
        Map<String, Map<Integer, Integer>> lastPosition = new HashMap<>();
        for (LedgerLauncher.Launch l : List.copyOf(rack.ledger)) {
            String key = l.sled() + "/" + l.job().codephrase();
            if (!seen.add(key) && !violations.contains("twice: " + key)) {
                violations.add("twice: " + key);
            }
            int[] pos = operator.positions.get(l.job());
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
     * After the calm, the live sleds of one universe hold the same messages (without forgetting):
     * a sled lacking what another holds had it hidden from it (D-053: an identity taken back over
     * sends its provider never saw makes the old sends look seen, and no sync brings them).
     */
    void checkConverged(List<String> violations) {
        if (rack.settling != null) {
            return;
        }
        Map<NetworkId, Set<Version>> union = new HashMap<>();
        Map<SimSled, Set<Version>> held = new HashMap<>();
        for (SimSled s : rack.sleds) {
            if (!s.up || s.node.replica().network().isBootstrapping()) {
                continue;
            }
            Replica r = s.node.replica();
            Set<Version> versions = new HashSet<>();
            for (Delivery d : r.readFrom(0, Integer.MAX_VALUE)) {
                versions.add(d.version());
            }
            held.put(s, versions);
            union.computeIfAbsent(r.network(), n -> new HashSet<>()).addAll(versions);
        }
        held.forEach((s, versions) -> {
            int lacking = union.get(s.node.replica().network()).size() - versions.size();
            if (lacking > 0) {
                violations.add("not converged: " + s.name() + " lacks " + lacking
                        + " messages other sleds of its universe hold");
            }
        });
    }

    /**
     * Every targeted job a live sled knows (its request is in the sled's current universe, its
     * session in the fold) ends on it, whether its session is current or ended: no job stays
     * queued forever.
     */
    void checkLiveness(List<String> violations) {
        for (SimSled s : rack.sleds) {
            SledRuntime.View v = rack.liveView(s);
            if (v == null) {
                continue;
            }
            Set<JobId> known = requestsHeld(s);
            for (SignedJob j : operator.allJobs) {
                JobId id = j.request().job();
                if (rack.settling != null && targets(j, s.sled) && !known.contains(id)
                        && s.requestedIn(v.network(), id) && !s.endedIn(v.network(), id)) {
                    // Issue 39: a request this sled folded in this universe, no longer held by it:
                    // forgotten (nothing else takes a message from a replica), so it ended here first.
                    violations.add("liveness: " + s.name() + " forgot job " + operator.positions.get(id)[1]
                            + " of session " + operator.positions.get(id)[0] + " before it ended there");
                    continue;
                }
                if (!targets(j, s.sled) || !known.contains(id)
                        || v.fold().session(j.request().session()).isEmpty()) {
                    continue;
                }
                Optional<StatusProjection.Entry> st = v.fold().statuses().status(id, s.sled.baseboard());
                // Issue 39 (D-054): the fold forgot the statuses of a job this life's settlement settled.
                boolean terminal = st.map(e -> e.status().isTerminal()).orElse(false)
                        || (st.isEmpty() && s.settledThisLife.contains(id));
                if (!terminal && !v.running().contains(id)) {
                    boolean active = v.fold().activeSession().map(a -> a.id().equals(j.request().session()))
                            .orElse(false);
                    String head = v.fold().chain().map(c -> c.head().equals(id) ? "at the head" : "head elsewhere")
                            .orElse("no chain");
                    violations.add("liveness: " + s.name() + " left job " + operator.positions.get(id)[1]
                            + " of session " + operator.positions.get(id)[0] + " without an ending ("
                            + st.map(e -> e.status().name()).orElse("no status") + ", session "
                            + (active ? "active" : "not active") + ", " + head + (rack.ordering == Ordering.SIGNED ? ", newest grant " + v.fold().newestGrant()
                            .map(g -> g.grant().session().equals(j.request().session()) ? "its own" : "another")
                            .orElse("none") : "") + ")");
                }
            }
        }
    }

    /**
     * D-057: a sled says it waits at a forgotten head it cannot leave ({@code RackError{ForgottenHead}})
     * only in a session whose chain may have two ways on: one its starter burnt out of turn in. In
     * any other, the error would send an operator after a fork that is not there.
     */
    void checkStuckSaidTruly(List<String> violations) {
        for (String said : rack.saidStuck) {
            String session = said.substring(said.indexOf('/') + 1);
            if (operator.forked.stream().noneMatch(f -> f.toString().equals(session))) {
                violations.add("stuck said untruly: " + said.substring(0, said.indexOf('/')) + " said it waits at a "
                        + "forgotten head after a burn or a fork, in a session the operator never burnt out of turn");
            }
        }
    }

    /** Each position of the operator's chains by the one after it (a job's successor, a burn's next position). */
    private Map<JobId, JobId> links() {
        Map<JobId, JobId> before = new HashMap<>();
        for (SignedJob job : operator.allJobs) {
            before.put(job.request().successor(), job.request().job());
        }
        for (Message.JobSkip burn : operator.allBurns) {
            before.put(Chain.afterBurn(burn.position()), burn.position());
        }
        return before;
    }

    /**
     * Issue 39: where a live sled's chain endpoint tells a client the live chain goes on after a
     * position (its {@code continues_at}, for a client whose kept tip the rack forgot) lies on the
     * chain after that position, never on another branch: a client following it would sign its
     * next job where no sled walks. Asked of every position of the operator's chains.
     */
    void checkContinuations(List<String> violations) {
        Map<JobId, JobId> before = links();
        Map<JobId, SessionId> positions = new HashMap<>();
        for (SignedJob job : operator.allJobs) {
            positions.put(job.request().job(), job.request().session());
            positions.put(job.request().successor(), job.request().session());
        }
        for (Message.JobSkip burn : operator.allBurns) {
            positions.put(burn.position(), burn.session());
            positions.put(Chain.afterBurn(burn.position()), burn.session());
        }
        for (SimSled s : rack.sleds) {
            positions.forEach((p, session) -> rack.continuesAt(s, session, p).ifPresent(to -> {
                rack.faults.add("continues-at"); // how often there was an answer to judge
                String v = "continues across: " + s.name() + " tells a client the chain after " + name(p)
                        + " goes on at " + name(to) + ", which is not on the chain after it (another branch)";
                if (!follows(before, Chain.first(session), p, to) && !violations.contains(v)) {
                    violations.add(v);
                }
            }));
        }
    }

    /**
     * Issue 39: a sled's head jumps only over positions it is done with: every job of the
     * operator's chain from where it jumped to where it landed that targets the sled ended there
     * (in this life or an earlier one) before the jump. A jump from or to a position the operator
     * never used (a burn's) is judged by the other checkers.
     */
    void checkJumps(List<String> violations) {
        Map<JobId, JobId> before = links();
        for (SimRack.Jump j : rack.jumps) {
            if (!follows(before, Chain.first(j.jump().session()), j.jump().from(), j.jump().to())) {
                String v = "jumped across: " + j.sled().name() + " jumped from " + name(j.jump().from()) + " to "
                        + name(j.jump().to()) + ", which is not on the chain after it (another branch)";
                if (!violations.contains(v)) {
                    violations.add(v);
                }
            }
            int[] from = operator.positions.get(j.jump().from());
            int[] to = operator.positions.get(j.jump().to());
            if (to == null) {
                // Landed after the last job then: the successor of one of the operator's jobs.
                for (SignedJob job : operator.allJobs) {
                    if (job.request().successor().equals(j.jump().to())) {
                        int[] p = operator.positions.get(job.request().job());
                        to = new int[] {p[0], p[1] + 1};
                    }
                }
            }
            if (from == null || to == null) {
                continue;
            }
            for (SignedJob job : operator.allJobs) {
                int[] p = operator.positions.get(job.request().job());
                boolean between = p[0] == from[0] && p[1] >= from[1] && p[1] < to[1];
                if (between && targets(job, j.sled().sled) && !j.endedBefore().contains(job.request().job())) {
                    violations.add("jumped over: " + j.sled().name() + " jumped from job " + from[1] + " of session "
                            + from[0] + " over job " + p[1] + ", which targets it and had not ended there");
                    break;
                }
            }
        }
    }

    /**
     * Issue 39, before the operator's client re-sends anything: no live sled waits at a position
     * whose request it folded in this universe (in this life or an earlier one), which some sled
     * forgot, and which no live sled holds any more. The rack forgot what that sled still needed;
     * only the operator's resume (re-sending every kept request) would move it on. A request the
     * universe lost (held only by a sled that was wiped) is the operator's resume's to bring back,
     * with or without forgetting. A session whose starter burnt positions other than the next
     * free one may have two live branches; a sled there that cannot tell which one its forgotten
     * head leads to waits for the next session rather than guess (bounded-gossip.md section 3; a
     * guess ran a job across branches, D-055), which the calm's stop of such sessions brings.
     */
    void checkNotStuckOnForgotten(List<String> violations) {
        Set<JobId> held = new HashSet<>();
        for (SimSled s : rack.sleds) {
            if (rack.liveView(s) != null) {
                held.addAll(requestsHeld(s));
            }
        }
        for (SimSled s : rack.sleds) {
            SledRuntime.View v = rack.liveView(s);
            if (v == null || v.fold().chain().isEmpty()) {
                continue;
            }
            JobId head = v.fold().chain().get().head();
            boolean folded = s.requestedIn(v.network(), head);
            boolean forgotten = rack.forgottenRequests.getOrDefault(v.network(), Set.of()).contains(head);
            boolean forked = v.fold().activeSession().map(a -> operator.forked.contains(a.id())).orElse(false);
            if (!folded || !forgotten || held.contains(head) || v.fold().chain().get().known(head).isPresent()) {
                continue;
            }
            int[] pos = operator.positions.get(head);
            String at = pos == null ? head.codephrase() : "job " + pos[1] + " of session " + pos[0];
            if (!forked) {
                violations.add("stuck on forgotten: " + s.name() + " waits at " + at
                        + ", which it folded before and no live sled holds");
            } else if (!rack.saidStuck.contains(s.name() + "/" + v.fold().activeSession().get().id())) {
                // D-057: waiting there is right, unsaid it is not: the operator must learn why.
                violations.add("stuck unsaid: " + s.name() + " waits at " + at + " of a forked session and never said "
                        + "so (RackError ForgottenHead)");
            }
        }
    }

    /**
     * Whether {@code to} follows {@code from} in the chain the operator signed and burnt, walking
     * back from {@code to} (each position has one predecessor: a job's successor names its digest,
     * a burn's next position its burnt one) to the session's first position. A walk that stops
     * short of the first, at a position the operator never signed or burnt after, cannot tell
     * (true): the other checkers judge it.
     */
    private static boolean follows(Map<JobId, JobId> before, JobId first, JobId from, JobId to) {
        JobId at = to;
        for (int steps = 0; steps <= before.size() + 1; steps++) {
            if (at.equals(from)) {
                return true;
            }
            JobId previous = before.get(at);
            if (previous == null) {
                return !at.equals(first);
            }
            at = previous;
        }
        return false;
    }

    private String name(JobId position) {
        int[] pos = operator.positions.get(position);
        if (pos != null) {
            return "job " + pos[1] + " of session " + pos[0];
        }
        for (SignedJob j : operator.allJobs) {
            if (j.request().successor().equals(position)) {
                return "the position after " + name(j.request().job());
            }
        }
        for (Message.JobSkip b : operator.allBurns) {
            if (Chain.afterBurn(b.position()).equals(position)) {
                return "the position after the burn of " + name(b.position());
            }
        }
        return position.codephrase();
    }

    /**
     * Stop honoured (issue 34): a job its starter stopped never ends by itself here, so one still
     * running on a live sled after the calm tail is a stop that was lost (or refused).
     */
    void checkStopsHonoured(List<String> violations) {
        for (SimSled s : rack.sleds) {
            if (!s.up) {
                continue;
            }
            for (JobId j : operator.stoppedJobs) {
                if (s.launcher.isRunning(j)) {
                    int[] pos = operator.positions.get(j);
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
    void checkStatusTruth(List<String> violations) {
        Set<String> launched = new HashSet<>();
        for (LedgerLauncher.Launch l : List.copyOf(rack.ledger)) {
            launched.add(l.sled() + "/" + l.job().codephrase());
        }
        Set<String> found = new TreeSet<>();
        for (SimSled viewer : rack.sleds) {
            SledRuntime.View v = rack.liveView(viewer);
            if (v == null) {
                continue;
            }
            for (SignedJob j : operator.allJobs) {
                JobId id = j.request().job();
                v.fold().statuses().statuses(id).forEach((board, entry) -> {
                    String key = board + "/" + id.codephrase();
                    String lie = lie(entry, launched.contains(key), rack.reserved.contains(key));
                    if (lie != null) {
                        int[] pos = operator.positions.get(id);
                        found.add("status truth: " + board + " reports job " + (pos == null ? id.codephrase()
                                : pos[1] + " of session " + pos[0]) + " " + lie);
                    }
                });
            }
        }
        // Issue 39: statuses of forgotten jobs are no longer in any fold; every one a fold took is
        // judged, against the launches before it was taken: "cancelled (never ran)" said in one
        // universe stays true when, after a cold boot lost the stop with that universe, a replayed
        // request runs the job later (seed 2973 of 8 signed sleds; the folds that hold a status
        // now are judged against every launch, above).
        for (SimRack.Seen seen : rack.statusesSeen) {
            SledEvent.StatusChanged c = seen.status();
            String lie = untrue(seen, rack.reserved.contains(c.baseboard() + "/" + c.job().codephrase()));
            if (lie != null) {
                int[] pos = operator.positions.get(c.job());
                found.add("status truth: " + c.baseboard() + " reports job " + (pos == null ? c.job().codephrase()
                        : pos[1] + " of session " + pos[0]) + " " + lie);
            }
        }
        violations.addAll(found);
    }

    /** Why a status a fold took was untrue then, given whether its reporter committed the job; null if true. */
    static String untrue(SimRack.Seen seen, boolean committed) {
        return lie(new StatusProjection.Entry(seen.status().status(), seen.status().message()), seen.launchedBefore(),
                committed);
    }

    /** Why a reporter's status of a job is untrue, given whether it launched and whether it committed the job; null if true. */
    private static String lie(StatusProjection.Entry e, boolean launched, boolean committed) {
        switch (e.status()) {
            case STARTED:
            case STOPPED:
                return launched ? null : e.status().name().toLowerCase(Locale.ROOT) + ", yet never launched it";
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
    void countLost() {
        Set<String> ran = new HashSet<>();
        for (LedgerLauncher.Launch l : List.copyOf(rack.ledger)) {
            ran.add(l.sled() + "/" + l.job().codephrase());
        }
        for (SimSled s : rack.sleds) {
            SledRuntime.View v = rack.liveView(s);
            if (v == null) {
                continue;
            }
            Set<JobId> held = requestsHeld(s);
            for (SignedJob j : operator.allJobs) {
                if (targets(j, s.sled) && held.contains(j.request().job())
                        && j.request().session().equals(operator.session) && !operator.stopped.contains(operator.session)
                        && v.fold().session(j.request().session()).isEmpty()
                        && !ran.contains(s.sled.baseboard() + "/" + j.request().job().codephrase())) {
                    rack.refusals.add(s.sled.baseboard() + "/" + j.request().job().codephrase());
                }
            }
        }
    }

    /** The jobs whose requests the sled's current universe holds. */
    private static Set<JobId> requestsHeld(SimSled s) {
        Set<JobId> out = new HashSet<>();
        for (Delivery d : s.node.replica().readFrom(0, Integer.MAX_VALUE)) {
            try {
                Message m = MessageCodec.decode(d.payload());
                if (m instanceof Message.JobStart) {
                    out.add(((Message.JobStart) m).job().request().job());
                }
            } catch (MessageException e) {
                // Not a request.
            }
        }
        return out;
    }

    /** Whether the job's target names sled {@code s} (a target that does not parse names none). */
    static boolean targets(SignedJob j, Sled s) {
        Optional<Target> t = PARSED.computeIfAbsent(j.request().target(), Checkers::parse);
        return t.isPresent() && t.get().runsOn(s);
    }

    /** Targets as parsed, by their text: a run asks for each (job, sled) many times, of few texts. */
    private static final Map<String, Optional<Target>> PARSED = new ConcurrentHashMap<>();

    private static Optional<Target> parse(String target) {
        try {
            return Optional.of(Target.parse(target));
        } catch (TargetException e) {
            return Optional.empty();
        }
    }
}
