package sush.projections.fold;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.SignedJob;
import sush.projections.targets.Sled;

/**
 * One sled's walk along one session's job chain (at-most-once.md section 2): the head is the
 * next position this sled may start. Jobs that do not target the sled and burnt positions are
 * walked past; a missing position is a hole that holds everything after it. Pure.
 */
public final class ChainProjection {
    /** Bound on the jobs and burns remembered for one session. */
    public static final int MAX_POSITIONS = 65_536;

    /**
     * Bound on the positions behind the head this chain forgot (the rack settled them, D-058) and
     * still recognizes: a request re-sent at one of the most recent ones is known to precede the
     * head, as it was before it was forgotten. An older one is a position this chain cannot
     * place, as after a restart.
     */
    static final int MAX_FORGOTTEN = 4_096;

    private final TargetsMe targetsMe;
    /** This chain's bound on jobs, burns and walked positions ({@link #MAX_POSITIONS} unless scaled down). */
    private final int maxPositions;
    private final Map<JobId, Known> jobs = new HashMap<>();
    private final Set<JobId> burns = new HashSet<>();
    /** Each known job's position by its successor: the chain walked backwards (bounded with {@link #jobs}). */
    private final Map<JobId, JobId> bySuccessor = new HashMap<>();
    /**
     * Burns of positions already behind the head: they never move it, but they are links of the
     * chain, so a job before them is known to precede the head (reported, never run). Bounded.
     */
    private final Set<JobId> behindBurns = new HashSet<>();
    /** Each known burn's position by the position after it (burns and burns behind the head). */
    private final Map<JobId, JobId> byAfterBurn = new HashMap<>();
    /**
     * Positions the head left in this entry, after resumption, without this sled starting a job
     * there (jobs for other sleds, burnt positions, jobs passed as never run): the only ones a
     * burn behind the head may move it back over (at-most-once.md section 2, convergence).
     */
    private final Set<JobId> walked = new HashSet<>();
    /** The most recent positions forgotten behind the head, oldest first ({@link #MAX_FORGOTTEN}). */
    private final Set<JobId> forgotten = new LinkedHashSet<>();
    private final JobId first;
    private JobId head;
    private JobId lastStarted;
    /** The successor of {@link #lastStarted}, known even when its job is not (the committed one). */
    private JobId lastStartedSuccessor;
    private long ignoredBurns;
    /** Jobs for this sled whose burnt positions the head left since the last {@link #drainBurnt()}. */
    private final List<SignedJob> burnt = new ArrayList<>();
    /** Jobs and burns refused because the session's memory is full, and walked positions not remembered. */
    private long overflow;

    /** How this sled passed the job at its head. */
    public enum Passed {
        /** It started the job. */
        RAN,
        /** It did not start it now, but it ran or may have run here (an own status, a refusal). */
        MAY_HAVE_RUN,
        /** It never ran here and never will (cancelled before it started). */
        NEVER_RAN
    }

    /** A job at a position, with its parsed target and successor. */
    private record Known(SignedJob job, boolean targetsMe, JobId successor) {
    }

    /**
     * @param committed the snapshot's committed job and its successor when this session is the
     *                  committed one (resumption: earlier positions never reach the head again,
     *                  and the committed job counts as the last one this sled started), else empty
     */
    public ChainProjection(Sled me, SessionId session, Optional<JobId[]> committed) {
        this(new TargetsMe(me), session, committed, MAX_POSITIONS);
    }

    ChainProjection(TargetsMe targetsMe, SessionId session, Optional<JobId[]> committed,
            int maxPositions) {
        this.targetsMe = targetsMe;
        this.maxPositions = maxPositions;
        this.first = Chain.first(session);
        this.head = committed.map(c -> c[1]).orElse(first);
        committed.ifPresent(c -> {
            lastStarted = c[0];
            lastStartedSuccessor = c[1];
        });
        walk();
    }

    /** An independent copy with the same state (see {@link SledProjection#copy()}). */
    ChainProjection(ChainProjection o, TargetsMe targetsMe) {
        this.targetsMe = targetsMe;
        this.maxPositions = o.maxPositions;
        this.jobs.putAll(o.jobs);
        this.bySuccessor.putAll(o.bySuccessor);
        this.behindBurns.addAll(o.behindBurns);
        this.byAfterBurn.putAll(o.byAfterBurn);
        this.burns.addAll(o.burns);
        this.walked.addAll(o.walked);
        this.forgotten.addAll(o.forgotten);
        this.first = o.first;
        this.head = o.head;
        this.lastStarted = o.lastStarted;
        this.lastStartedSuccessor = o.lastStartedSuccessor;
        this.ignoredBurns = o.ignoredBurns;
        this.burnt.addAll(o.burnt);
        this.overflow = o.overflow;
    }

    /** Two signed requests at one position: the one this chain does not keep, and the one it holds there. */
    public record Conflict(SignedJob refused, SignedJob held) {
    }

    /** What became of a request this chain was given. */
    public sealed interface Taken {
        /** It holds the request at its position (or already held that very request). */
        record Held() implements Taken {
        }

        /** Another request claims the position too: one of the two is refused (ordered-sessions.md section 9). */
        record Conflicting(Conflict conflict) implements Taken {
        }

        /** The chain's memory is full: the request is not remembered (a hole; the sled reports it). */
        record Full() implements Taken {
        }
    }

    private static final Taken HELD = new Taken.Held();
    private static final Taken FULL = new Taken.Full();

    /** A job of this session arrived; an unparsable target targets no one (the chain advances). */
    public Taken onJob(SignedJob job) {
        JobId position = job.request().job();
        Known existing = jobs.get(position);
        if (existing != null) {
            if (Arrays.equals(job.request().digest(), existing.job.request().digest())) {
                return HELD;
            }
            // Two signed requests for one position: the smaller digest wins on every sled, but
            // only while the head has not reached the position (what stood there may have run).
            boolean ahead = !position.equals(head) && !precedesHead(position);
            if (!ahead || Arrays.compareUnsigned(job.request().digest(), existing.job.request().digest()) >= 0) {
                return new Taken.Conflicting(new Conflict(job, existing.job));
            }
            bySuccessor.remove(existing.successor);
            jobs.put(position, new Known(job, targetsMe.test(job.request().target()), job.request().successor()));
            bySuccessor.put(job.request().successor(), position);
            walk();
            return new Taken.Conflicting(new Conflict(existing.job, job));
        } else if (jobs.size() >= maxPositions) {
            overflow++; // the sled reports it: the request is refused, and a hole here holds the rest of the chain
            return FULL;
        }
        jobs.put(job.request().job(), new Known(job, targetsMe.test(job.request().target()), job.request().successor()));
        bySuccessor.put(job.request().successor(), job.request().job());
        walk();
        return HELD;
    }

    /**
     * The starter burnt {@code position} (at-most-once.md section 2). It moves the head only if it
     * is the head; or it is the last job this sled started and the head is still that job's
     * successor; or every position from it up to the head was walked past in this entry, after
     * resumption, without being started. Any other burn behind the head is ignored: a burn must
     * never move the head back over a position this sled started, in this life or an earlier one.
     * After a restart nothing before the resumed head is known to be unstarted, so a replayed or
     * re-sent burn behind it is always ignored. A burn is applied once: re-deliveries change nothing.
     */
    public void onBurn(JobId position) {
        if (burns.contains(position)) {
            return;
        }
        if (burns.size() >= maxPositions) {
            ignoredBurns++;
            overflow++;
            return;
        }
        boolean atHead = position.equals(head);
        boolean lastStartedStillNext = position.equals(lastStarted) && head.equals(lastStartedSuccessor);
        if (atHead || lastStartedStillNext || walkedUpToHead(position)) {
            if (atHead) {
                leave(head);
                noteBurnt(head);
            }
            burns.add(position);
            head = Chain.afterBurn(position);
            walk();
        } else if (precedesHead(position)) {
            ignoredBurns++;
            if (behindBurns.size() < maxPositions) {
                behindBurns.add(position);
                byAfterBurn.put(Chain.afterBurn(position), position);
            }
        } else {
            // A position the head has not reached (or not known to be behind it): the burn waits
            // there, and the head walks past it on arrival. It can never move the head backwards.
            burns.add(position);
            byAfterBurn.put(Chain.afterBurn(position), position);
        }
    }

    /**
     * Convergence: whether every position from {@code from} up to the head, following known jobs
     * and burns, was walked past in this entry without being started. Then sleds that saw the
     * burn before the jobs for other sleds, and sleds that saw it after, end on the same head.
     */
    private boolean walkedUpToHead(JobId from) {
        JobId at = from;
        for (int steps = 0; steps <= jobs.size() + burns.size() + 1; steps++) {
            if (at.equals(head)) {
                return steps > 0;
            }
            if (!walked.contains(at)) {
                return false;
            }
            Known k = jobs.get(at);
            at = burns.contains(at) ? Chain.afterBurn(at) : k != null ? k.successor : null;
            if (at == null) {
                return false;
            }
        }
        return false;
    }

    /** The head left a burnt position: a job there for this sled never runs here. */
    private void noteBurnt(JobId position) {
        Known k = jobs.get(position);
        if (k != null && k.targetsMe) {
            burnt.add(k.job);
        }
    }

    /**
     * Jobs for this sled the head left behind at burnt positions since the last call: each now
     * precedes the head and is reported {@code Skipped{AlreadyHandled}} instead of hanging queued.
     */
    public List<SignedJob> drainBurnt() {
        if (burnt.isEmpty()) {
            return List.of();
        }
        List<SignedJob> out = List.copyOf(burnt);
        burnt.clear();
        return out;
    }

    /** The head leaves {@code position} without this sled starting a job there. */
    private void leave(JobId position) {
        if (walked.size() < maxPositions) {
            walked.add(position);
        } else {
            overflow++; // not remembered: a later burn behind it is ignored (the safe direction)
        }
    }

    /**
     * The position just before {@code position} on the chain, as this sled holds it: the known
     * job whose successor it is, or the burnt position it comes after. Walking back with it meets
     * every position, burnt ones and the requests at them included.
     */
    public Optional<JobId> previous(JobId position) {
        JobId before = bySuccessor.get(position);
        Known k = before == null ? null : jobs.get(before);
        if (k != null && k.successor.equals(position)) {
            return Optional.of(before);
        }
        return Optional.ofNullable(byAfterBurn.get(position));
    }

    /** Every request this chain holds, at or behind the head or ahead of it (what a client extends its chain by). */
    public List<SignedJob> heldRequests() {
        List<SignedJob> out = new ArrayList<>(jobs.size());
        jobs.values().forEach(k -> out.add(k.job));
        return out;
    }

    /** Whether this chain holds anything at {@code position}: a request, or a burn ahead of the head or behind it. */
    public boolean holds(JobId position) {
        return jobs.containsKey(position) || burns.contains(position) || behindBurns.contains(position);
    }

    /** Every burnt position this chain holds, ahead of the head or behind it. */
    public Set<JobId> heldBurns() {
        Set<JobId> out = new HashSet<>(burns);
        out.addAll(behindBurns);
        return out;
    }

    /** One link of the chain as this sled holds it: the request at a position, or (empty) a burn of it. */
    public record Link(JobId position, Optional<SignedJob> request) {
    }

    /**
     * At most {@code max} links from {@code position} on, in chain order, as a sled walks them (a
     * burn before a request): what a client extends its kept chain by ({@code GET
     * /sessions/{sid}/chain}). Stops at the first position this chain does not fill.
     */
    public List<Link> from(JobId position, int max) {
        List<Link> out = new ArrayList<>();
        Set<JobId> seen = new HashSet<>();
        JobId at = position;
        while (out.size() < max && seen.add(at)) {
            Known k = jobs.get(at);
            if (burns.contains(at) || behindBurns.contains(at)) {
                out.add(new Link(at, Optional.empty()));
                at = Chain.afterBurn(at);
            } else if (k != null) {
                out.add(new Link(at, Optional.of(k.job)));
                at = k.successor;
            } else {
                break;
            }
        }
        return out;
    }

    /** The signed job known at {@code position}, if any. */
    public Optional<SignedJob> known(JobId position) {
        Known k = jobs.get(position);
        return k == null ? Optional.empty() : Optional.of(k.job);
    }

    /** The job at the head if it targets this sled: the only job this sled may start next. */
    public Optional<SignedJob> atHead() {
        return Optional.ofNullable(jobAtHead());
    }

    /** {@link #atHead()}, or null: asked after every message. */
    SignedJob jobAtHead() {
        Known k = jobs.get(head);
        return k != null && k.targetsMe ? k.job : null;
    }

    public JobId head() {
        return head;
    }

    /**
     * This sled passed {@code job}, which must still be at the head, as {@code how} says: the head
     * moves past it. Naming the job keeps a burn that moved the head meanwhile from making this
     * sled pass a job it never looked at. Only a job that never ran counts as walked past.
     */
    public void passHead(JobId job, Passed how) {
        Known k = jobs.get(head);
        if (k == null || !head.equals(job)) {
            throw new IllegalStateException("job " + job + " is not at the head " + head);
        }
        if (how == Passed.NEVER_RAN) {
            leave(head);
        } else {
            lastStarted = head;
            lastStartedSuccessor = k.successor;
        }
        head = k.successor;
        walk();
    }

    /**
     * Where this sled would resume this session after a restart: the successor of the last job
     * it started (or may have started) in it, as its boundary record names it, else the session's
     * first position. Every position from there to the head it walked without starting a job.
     */
    public JobId resumePoint() {
        return lastStartedSuccessor != null ? lastStartedSuccessor : first;
    }

    /**
     * The rack settled {@code position} (bounded-gossip.md section 3: every sled it targets ended
     * it, and every sled's head passed it): this chain forgets what it holds there (the request or
     * the burn, and that it walked it) when the position precedes the head and nothing held leads
     * to it, so that a session's chain follows its live work and not its length (D-058; until
     * then a session stopped at {@link #MAX_POSITIONS} positions). The rack settles a session's
     * positions in chain order, so a held position's next one is never forgotten and what is
     * held still leads to the head; a position still behind a held one is kept. At most once
     * never rested on this memory: the boundary record guards it.
     *
     * @return whether it was forgotten
     */
    public boolean settle(JobId position) {
        if (position.equals(head) || !leadsToHead(position, null) || heldBefore(position)) {
            return false;
        }
        Known k = jobs.remove(position);
        if (k != null && position.equals(bySuccessor.get(k.successor))) {
            bySuccessor.remove(k.successor);
        }
        if (burns.remove(position) | behindBurns.remove(position)) {
            byAfterBurn.remove(Chain.afterBurn(position), position);
        }
        walked.remove(position);
        forgotten.add(position);
        if (forgotten.size() > MAX_FORGOTTEN) {
            Iterator<JobId> oldest = forgotten.iterator();
            oldest.next();
            oldest.remove();
        }
        return true;
    }

    /** Whether something this chain holds leads to {@code position}: a request whose successor it is, or a burn before it. */
    private boolean heldBefore(JobId position) {
        JobId job = bySuccessor.get(position);
        Known k = job == null ? null : jobs.get(job);
        if (k != null && k.successor.equals(position)) {
            return true;
        }
        JobId burnt = byAfterBurn.get(position);
        return burnt != null && (burns.contains(burnt) || behindBurns.contains(burnt));
    }

    /**
     * The chain's skeleton (bounded-gossip.md section 3): the rack forgot the positions from the
     * head {@code from} up to {@code to}, each settled (every sled it targets ended it, this one
     * included, and every sled's head passed it), so the head jumps to {@code to} as if it had
     * walked them. Only when the head is {@code from} and nothing is known there; nothing is
     * started on the way, and what precedes the head stays as it was (a burn behind it never
     * moves it back over the forgotten positions: they are not walked).
     *
     * @return whether the head jumped
     */
    public boolean jump(JobId from, JobId to) {
        if (!head.equals(from) || from.equals(to) || jobs.containsKey(head) || burns.contains(head)) {
            return false;
        }
        head = to;
        walk();
        return true;
    }

    /** Whether {@code job} is the position at the head (a job waiting there is screened only while it is). */
    public boolean isHead(JobId job) {
        return head.equals(job);
    }

    /** Jobs, burns and walked positions this chain could not remember (its bounds): the sled reports them. */
    public long overflow() {
        return overflow;
    }

    /**
     * The fullest of this chain's memories (jobs, burns, burns behind the head, walked positions),
     * in entries: at {@link #bound()} the next one of that kind is not remembered.
     */
    public int remembered() {
        return Math.max(Math.max(jobs.size(), burns.size()), Math.max(behindBurns.size(), walked.size()));
    }

    /** This chain's bound on each of its memories ({@link #MAX_POSITIONS} unless scaled down). */
    public int bound() {
        return maxPositions;
    }

    /**
     * Whether {@code job} stands at the head or ahead of it: the head, following known jobs and
     * burns forward, reaches it. Such a position is after everything this sled started in the
     * session (the head only walks forward from where the record resumed it).
     */
    public boolean aheadOfHead(JobId job) {
        JobId at = head;
        for (int steps = 0; steps <= jobs.size() + burns.size() && at != null; steps++) {
            if (at.equals(job)) {
                return true;
            }
            at = forward(at);
        }
        return false;
    }

    /** The position after {@code at} as the head would walk (a burn before a job), or null where nothing is known. */
    private JobId forward(JobId at) {
        if (burns.contains(at)) {
            return Chain.afterBurn(at);
        }
        Known k = jobs.get(at);
        return k == null ? null : k.successor;
    }

    /**
     * Whether a job of this session is behind the head: the first job whenever the head is past
     * it, or a job whose successors lead through known jobs and burns to the head. Such a job
     * "ran or may have run" here and is reported {@code AlreadyHandled} instead of hanging queued.
     */
    public boolean precedesHead(JobId job) {
        return leadsToHead(job, null);
    }

    /**
     * Jobs of this session that target this sled and are still ahead: at the head or after it
     * (not behind it). When the session ends they are {@code Skipped{SessionEnded}}.
     */
    public List<SignedJob> queuedForMe() {
        List<SignedJob> out = new ArrayList<>();
        // Whether each known position leads to the head, each position resolved once: the
        // paths share their tails, and a session may hold tens of thousands of jobs.
        Map<JobId, Boolean> leads = new HashMap<>();
        for (Known k : jobs.values()) {
            JobId id = k.job.request().job();
            if (k.targetsMe && !leadsToHead(id, leads)) {
                out.add(k.job);
            }
        }
        out.sort(Comparator.comparing(j -> HexFormat.of().formatHex(j.request().job().toBytes())));
        return out;
    }

    /**
     * {@link #precedesHead}; with {@code leads} (for many jobs at once) it remembers the answer
     * for every position on each path followed, so each position is followed once.
     */
    private boolean leadsToHead(JobId job, Map<JobId, Boolean> leads) {
        if (job.equals(head)) {
            return false;
        }
        if (job.equals(first) || forgotten.contains(job)) {
            return true;
        }
        List<JobId> path = leads == null ? null : new ArrayList<>();
        JobId at = job;
        Boolean answer = null;
        for (int steps = 0; steps <= jobs.size() + burns.size() && answer == null; steps++) {
            answer = leads == null ? null : leads.get(at);
            if (answer == null) {
                if (path != null) {
                    path.add(at);
                }
                Known k = jobs.get(at);
                JobId next = burns.contains(at) || behindBurns.contains(at) ? Chain.afterBurn(at)
                        : k != null ? k.successor : null;
                if (next == null || next.equals(head)) {
                    answer = next != null;
                } else if (forgotten.contains(next)) {
                    answer = true; // a request re-sent before a position forgotten behind the head
                }
                at = next;
            }
        }
        boolean result = answer != null && answer;
        if (path != null) {
            for (JobId p : path) {
                if (!p.equals(first)) { // the first position precedes the head on its own account
                    leads.put(p, result);
                }
            }
        }
        return result;
    }

    /**
     * The first position after the session's known jobs and burns, followed from the head: where
     * a client's next job goes (the head itself if nothing is known there).
     */
    public JobId nextFree() {
        JobId at = head;
        for (int steps = 0; steps <= jobs.size() + burns.size(); steps++) {
            JobId next = forward(at);
            if (next == null) {
                return at;
            }
            at = next;
        }
        return at;
    }

    /** The whole state, canonical: equal strings for equal states (the chain check merges by it). */
    public String fingerprint() {
        return "head=" + head + ";last=" + lastStarted + ">" + lastStartedSuccessor + ";jobs=" + sorted(jobs.keySet())
                + ";burns=" + sorted(burns) + ";walked=" + sorted(walked) + ";forgotten=" + sorted(forgotten)
                + ";ignored=" + ignoredBurns + ";overflow=" + overflow;
    }

    private static List<String> sorted(Set<JobId> ids) {
        return ids.stream().map(JobId::toString).sorted().toList();
    }

    public long ignoredBurns() {
        return ignoredBurns;
    }

    /** Moves the head over burnt positions and over jobs that do not target this sled. */
    private void walk() {
        for (int steps = 0; steps <= maxPositions * 2; steps++) {
            Known k = jobs.get(head);
            if (burns.contains(head)) {
                leave(head);
                noteBurnt(head);
                head = Chain.afterBurn(head);
            } else if (k != null && !k.targetsMe) {
                leave(head);
                head = k.successor;
            } else {
                return;
            }
        }
        throw new IllegalStateException("chain walk over " + maxPositions * 2 + " steps: a cycle");
    }
}
