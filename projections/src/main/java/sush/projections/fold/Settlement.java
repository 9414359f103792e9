package sush.projections.fold;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.PriorityQueue;
import java.util.Set;

import sush.gossip.clock.Version;
import sush.projections.fold.Tracked.Burn;
import sush.projections.fold.Tracked.Job;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.targets.Sled;

/**
 * Which messages of a universe no sled of the rack needs any more (bounded-gossip.md sections 2
 * and 3, issue 39). Every sled runs it over the messages it holds, in delivery order, and
 * forgets what it answers: by the same rule from the same messages, so the sleds agree without
 * agreeing. Pure: no clock, thread or file.
 *
 * <p>A job (every request at its position, its statuses and stops) is settled when
 * <ol>
 * <li>every sled of the rack it targets reported a terminal status for it;</li>
 * <li>every sled of the rack sent a watermark in the job's session whose head is past the
 * job's position (so a sled that restarts resumes after it, or jumps over it: the positions
 * from its resume point to its head it walked without starting a job); and</li>
 * <li>every sled's newest watermarks are causally after every message of the job (each sled
 * held all of them: nobody that joins this sled's frontier without them ever needed them).</li>
 * </ol>
 * A burn is settled on the last two. A sled's watermark is forgotten once a newer one of it in
 * the same session is held and every sled's newest watermarks are after it; its newest one in
 * a session, once the session holds nothing live here and a newer one of it is held. An
 * announcement is forgotten once a newer one of the same sled is after it and every sled's
 * newest watermarks are after it. A status of a job no longer known here (its request was
 * forgotten: a status always follows its request) is forgotten once every sled's newest
 * watermarks are after it. Sessions, grants, logins, revocations, stops of jobs not known yet
 * and errors are never forgotten here.
 *
 * <p>A sled of the rack that never sent a watermark holds everything up: forgetting waits for
 * every sled the rack file names, absent or not (the operator's peer list is the decision).
 */
public final class Settlement {
    /**
     * Bound on one sled's watermarks remembered as concurrent (a restarted sled's first one beside
     * its earlier life's, until one after both arrives). Past it the sled holds everything up for
     * the rest of this settlement (this entry): what it forgets is which marks were concurrent, so
     * it can no longer tell what every one of them saw.
     */
    static final int MAX_CONCURRENT_MARKS = 4;

    /**
     * Deliberately wrong rules, so that the simulator's checkers are seen to catch a wrong
     * forgetting (issue 39: a checker is trusted only once it failed on a wrong rule). A sled
     * runs {@link #NONE}.
     */
    public enum Break {
        NONE,
        /** Forgets without waiting for every sled's watermarks to be after the messages (drops rule 3). */
        UNSEEN,
        /** Forgets a job before every sled it targets ended it (drops rule 1). */
        UNENDED,
        /** Settles any settled position, not only a prefix of the session's chain (found at 1,000 seeds). */
        NOT_PREFIX,
        /**
         * Jumps to the next live position by ordinal, on whichever branch it lies (the rule before
         * D-055), and tells a client so too (the chain endpoint before D-057).
         */
        ANY_BRANCH,
        /** Says it waits at a forgotten head at any hole it holds nothing of (D-057's error said falsely). */
        ANY_HOLE
    }

    /** The rule this settlement follows ({@link Break#NONE} on a sled). */
    public Break rule() {
        return rule;
    }

    private final Break rule;
    final Map<String, Sled> peers = new HashMap<>();
    private final Map<SessionId, Ordinals> chains = new HashMap<>();
    final Map<JobId, Job> jobs = new HashMap<>();
    final Map<JobId, Burn> burns = new HashMap<>();
    /** Each sled's newest watermarks, over every session, and its newest per session. */
    private final Map<String, Marks> newest = new HashMap<>();
    final Map<String, Map<SessionId, Marks>> bySession = new HashMap<>();
    /** Watermarks replaced by a newer one of their sled in their session, waiting to be stable. */
    private final List<Mark> replaced = new ArrayList<>();
    /** Each sled's newest announcement, and older ones waiting to be stable. */
    private final Map<String, Version> announced = new HashMap<>();
    private final List<Version> olderAnnouncements = new ArrayList<>();
    /** Statuses of jobs no longer known here, waiting to be stable. */
    private final List<Version> orphans = new ArrayList<>();
    private final Set<JobId> changedJobs = new HashSet<>();
    /** Jobs settled since {@link #settledJobs()} was last asked. */
    private final List<JobId> settledJobs = new ArrayList<>();
    /** Positions (jobs' and burns') settled since {@link #settledPositions()} was last asked, in chain order. */
    private final List<JobId> settledPositions = new ArrayList<>();
    /** Each session's own messages (start or grant, stops, access): kept until every sled is done with it. */
    private final Map<SessionId, List<Version>> sessions = new HashMap<>();
    /** Settled positions whose ordinals are kept because they are some sled's resume point. */
    private final Map<JobId, SessionId> keptResumes = new HashMap<>();
    private boolean marksChanged;
    private long forgotten;
    /**
     * Per session, the lowest ordinal of every sled's newest watermarks there ({@link Long#MIN_VALUE}
     * when some sled has none that count), as of the last change of marks ({@link #marksMoved}).
     */
    private final Map<SessionId, Long> lowestHeld = new HashMap<>();
    /** {@link #stable}'s answers since the last change of marks, by the very version asked about. */
    private final Map<Version, Boolean> stableNow = new IdentityHashMap<>();
    /** At most this many answers are kept between two changes of marks (a rack whose watermarks stopped). */
    private static final int MAX_STABLE_ANSWERS = 4_096;

    /** @param rack every sled of the rack (the rack file's list) */
    public Settlement(Collection<Sled> rack) {
        this(rack, Break.NONE);
    }

    /** A settlement that breaks its rules as {@code rule} says (the simulator's checkers' own test). */
    public Settlement(Collection<Sled> rack, Break rule) {
        this.rule = rule;
        for (Sled s : rack) {
            peers.put(s.baseboard(), s);
        }
        if (peers.isEmpty()) {
            throw new IllegalArgumentException("a rack of no sleds");
        }
    }

    /** A watermark and the version it was delivered at. */
    record Mark(Version version, Message.Watermark watermark) {
    }

    /** Folds one delivered message. */
    public void apply(Version version, Message m) {
        if (m instanceof Message.JobStart) {
            onRequest(version, ((Message.JobStart) m).job());
        } else if (m instanceof Message.JobSkip) {
            Message.JobSkip s = (Message.JobSkip) m;
            Burn b = burns.computeIfAbsent(s.position(), p -> new Burn(s.session(), p));
            b.add(version);
            b.fork |= jobs.containsKey(s.position()) || behindAHead(s.session(), s.position());
            Job held = jobs.get(s.position());
            if (held != null) {
                held.fork = true; // and the request there: see onRequest
            }
            chain(s.session()).link(s.position(), Chain.afterBurn(s.position()));
        } else if (m instanceof Message.Watermark) {
            onWatermark(new Mark(version, (Message.Watermark) m));
        } else if (m instanceof Message.Announcement) {
            Version old = announced.put(((Message.Announcement) m).baseboard(), version);
            if (old != null) {
                olderAnnouncements.add(old.leq(version) ? old : version);
                if (!old.leq(version)) {
                    announced.put(((Message.Announcement) m).baseboard(), old);
                }
            }
        } else if (m instanceof Message.SessionStart) {
            sessionMessage(((Message.SessionStart) m).session(), version);
        } else if (m instanceof Message.SessionGrant) {
            sessionMessage(((Message.SessionGrant) m).grant().grant().session(), version);
        } else if (m instanceof Message.SessionStop) {
            sessionMessage(((Message.SessionStop) m).session(), version);
        } else if (m instanceof Message.SessionAccess) {
            sessionMessage(((Message.SessionAccess) m).session(), version);
        } else if (m instanceof Message.JobStop || m instanceof Message.JobSledSkip || m instanceof Message.JobReceipt) {
            // Forgotten with their job (D-059, D-060).
            Optional<JobId> about = m instanceof Message.JobStop ? Optional.of(((Message.JobStop) m).job())
                    : m instanceof Message.JobSledSkip ? Optional.of(((Message.JobSledSkip) m).job())
                    : MessageFold.receiptJob((Message.JobReceipt) m);
            Job j = about.map(jobs::get).orElse(null);
            if (j != null) {
                j.add(version);
            } else if (!(m instanceof Message.JobStop)) {
                // A receipt or a skip told again after its job was settled (a restarted sled
                // re-tells its endings): forgotten as an orphan status is.
                orphans.add(version);
                marksChanged = true;
            }
        } else {
            onStatus(version, m);
        }
    }

    /**
     * Whether a burn of {@code position} comes behind where some sled stands (a head past it, or
     * a position this settlement cannot place, perhaps settled and forgotten): a new way from a
     * position sleds already walked, a fork whether or not a request there is still held.
     */
    private boolean behindAHead(SessionId session, JobId position) {
        OptionalLong at = chain(session).ordinal(position);
        if (at.isEmpty()) {
            return true;
        }
        for (Map<SessionId, Marks> byPeer : bySession.values()) {
            Marks m = byPeer.get(session);
            if (m != null && m.held.stream().anyMatch(x -> !x.watermark().done() && x.watermark().ordinal() > at.getAsLong())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a burn is a fork as this settlement sees it now: a request at its position is held,
     * or the position cannot be placed, or some sled's newest watermark stands past it on a way
     * that does not come through the burn (walking back from its head over held links never meets
     * the burn's next position). A skip of the next free position is none: every head past it
     * came through it, and its way after it is held (seed 6154, causal: a restarted sled's
     * settlement saw the stray burn before the watermarks that passed it, D-055). A resume point
     * past it on another way says the same as a head there: some sled committed a job after the
     * position by another way. A sled that restarted after the request there was forgotten holds
     * the session's first position's ordinal from the start (every other sled forgot it with the
     * request, and could not place the burn), sees the burn before any watermark, and only the
     * resume points, left on the request's way, tell it that the heads came onto the burn's way
     * from another one (seed 3500 of 8 signed sleds: told a client on the request's way to go on
     * along the burn's, D-058).
     */
    private boolean strayNow(Burn b) {
        if (jobs.containsKey(b.position)) {
            return true;
        }
        OptionalLong at = chain(b.session).ordinal(b.position);
        if (at.isEmpty()) {
            return true;
        }
        JobId next = Chain.afterBurn(b.position);
        for (Map<SessionId, Marks> byPeer : bySession.values()) {
            Marks m = byPeer.get(b.session);
            if (m == null) {
                continue;
            }
            for (Mark mark : m.held) {
                Message.Watermark w = mark.watermark();
                if (!w.done() && w.ordinal() > at.getAsLong() && !chain(b.session).meets(w.head(), next)) {
                    return true;
                }
                if (w.resumeOrdinal() != null && w.resumeOrdinal() > at.getAsLong()
                        && !chain(b.session).meets(w.resume(), next)) {
                    return true;
                }
            }
        }
        return false;
    }

    private void sessionMessage(SessionId session, Version version) {
        sessions.computeIfAbsent(session, s -> new ArrayList<>(2)).add(version);
    }

    private void onRequest(Version version, SignedJob job) {
        JobId position = job.request().job();
        SessionId session = job.request().session();
        Job j = jobs.computeIfAbsent(position, p -> new Job(session, p));
        j.add(version);
        if (j.successors.add(job.request().successor()) && j.successors.size() > 1) {
            j.fork = true; // two requests at one position: two ways on
        }
        Burn burnt = burns.get(position);
        if (burnt != null) {
            // A burn of a position a request holds: both ways on start here, and both are kept
            // while anyone is in the session. With the request settled alone (it sorts with the
            // burn, at one ordinal), a sled that restarted later saw a lone burn, not a fork, and
            // told a client whose tip lay on the request's way to go on along the burn's (seeds
            // 3500 and 8950 of 8 signed sleds, D-057).
            burnt.fork = true;
            j.fork = true;
        }
        j.target(job.request().target());
        chain(session).link(position, job.request().successor());
        changedJobs.add(position);
    }

    private void onStatus(Version version, Message m) {
        Optional<Message.Report> report = Message.report(m);
        if (report.isEmpty()) {
            return; // sessions, grants, logins, revocations, errors: never forgotten here
        }
        JobId job = report.get().job();
        String reporter = report.get().baseboard();
        boolean terminal = report.get().ending();
        Job j = jobs.get(job);
        if (j == null) {
            orphans.add(version);
            marksChanged = true; // looked at with the stable ones
            return;
        }
        j.add(version);
        if (terminal) {
            j.ended.add(reporter);
        }
        changedJobs.add(job);
    }

    private void onWatermark(Mark mark) {
        Message.Watermark w = mark.watermark();
        if (!peers.containsKey(w.baseboard())) {
            return; // not of this rack: it holds nothing up and is kept
        }
        if (!w.done()) {
            chain(w.session()).seed(w.head(), w.ordinal());
        }
        if (w.resumeOrdinal() != null) {
            chain(w.session()).seed(w.resume(), w.resumeOrdinal());
        }
        newest.computeIfAbsent(w.baseboard(), b -> new Marks()).offer(mark, null);
        Marks session = bySession.computeIfAbsent(w.baseboard(), b -> new HashMap<>())
                .computeIfAbsent(w.session(), s -> new Marks());
        session.offer(mark, replaced);
        marksChanged = true;
        marksMoved();
    }

    /**
     * Some sled's watermarks changed: what {@link #past} and {@link #stable} answered before may
     * not hold now. Both are asked on every delivery (settling, on 32 sleds, was half of the
     * simulator's time), and their answers change only here.
     */
    private void marksMoved() {
        lowestHeld.clear();
        stableNow.clear();
    }

    /**
     * The jobs settled since the last call, each once (their versions were among {@link #drain}'s):
     * what a fold keeps of them may go too (D-054).
     */
    public List<JobId> settledJobs() {
        List<JobId> out = List.copyOf(settledJobs);
        settledJobs.clear();
        return out;
    }

    /**
     * The positions settled since the last call, jobs' and burns', each once and in each
     * session's chain order: what the active session's chain holds of them may go too (D-058).
     */
    public List<JobId> settledPositions() {
        List<JobId> out = List.copyOf(settledPositions);
        settledPositions.clear();
        return out;
    }

    /**
     * The versions to forget since the last call, each once. The caller forgets them from its
     * replica; nothing here is told again.
     */
    public List<Version> drain() {
        List<Version> out = new ArrayList<>();
        Set<SessionId> touched = new HashSet<>();
        if (marksChanged) {
            jobs.values().forEach(j -> touched.add(j.session));
            burns.values().forEach(b -> touched.add(b.session));
        } else {
            for (JobId id : changedJobs) {
                Job j = jobs.get(id);
                if (j != null) {
                    touched.add(j.session);
                }
            }
        }
        changedJobs.clear();
        for (SessionId session : touched) {
            settlePrefix(session, out);
        }
        if (marksChanged) {
            marksChanged = false;
            drainStable(orphans, out);
            drainStable(olderAnnouncements, out);
            for (int i = replaced.size() - 1; i >= 0; i--) {
                if (stable(replaced.get(i).version())) {
                    out.add(replaced.remove(i).version());
                }
            }
            retireSessions(out);
            keptResumes.entrySet().removeIf(e -> {
                if (resumePoint(e.getValue(), e.getKey())) {
                    return false;
                }
                chain(e.getValue()).forget(e.getKey());
                return true;
            });
        }
        forgotten += out.size();
        return out;
    }

    /**
     * Settles {@code session}'s positions in chain order and stops at the first one that is not
     * settled: what is forgotten of a session is always a prefix of its chain (bounded-gossip.md
     * section 3's "first unsettled position"), so the links from the first live position to the
     * chain's tip stay held, and a sled that adopts a forgetful set numbers every live position
     * backwards from a head or forwards from a resume point. Positions of unknown place are never
     * settled (rule 2 needs their ordinal) and hold nothing up.
     */
    private void settlePrefix(SessionId session, List<Version> out) {
        List<Tracked> live = new ArrayList<>();
        jobs.values().forEach(j -> {
            if (j.session.equals(session)) {
                live.add(j);
            }
        });
        burns.values().forEach(b -> {
            if (b.session.equals(session)) {
                live.add(b);
            }
        });
        // In chain order, taken one at a time: a drain usually settles nothing, so ordering all of
        // them first (once per delivery) cost more than the rest of settling; ties keep the order
        // they were gathered in, as a stable sort would.
        Ordinals chain = chain(session);
        List<Placed> placed = new ArrayList<>(live.size());
        for (Tracked t : live) {
            OptionalLong o = chain.ordinal(t.position);
            if (o.isPresent()) {
                placed.add(new Placed(t, o.getAsLong(), placed.size()));
            }
        }
        PriorityQueue<Placed> inOrder = new PriorityQueue<>(placed); // a heap made in linear time
        for (Placed next = inOrder.poll(); next != null; next = inOrder.poll()) {
            Tracked t = next.tracked();
            boolean settled;
            if (t instanceof Burn && !t.fork && strayNow((Burn) t)) {
                t.fork = true;
            }
            if (t.fork) {
                // Two ways on from here (a burn of a position a request holds, or two requests at
                // one position): which one a sled takes depends on what it started there, so the
                // fork stays known while anyone is in the session (D-055).
                settled = doneEverywhere(session) && (t instanceof Job ? settled((Job) t) : stable(t.ceiling));
            } else {
                settled = t instanceof Job ? settled((Job) t) : pastEverywhere(t.session, t.position) && stable(t.ceiling);
            }
            if (!settled && rule != Break.NOT_PREFIX) {
                return;
            } else if (!settled) {
                continue;
            }
            out.addAll(t.versions);
            settledPositions.add(t.position);
            if (t instanceof Job) {
                jobs.remove(t.position);
                settledJobs.add(t.position);
            } else {
                burns.remove(t.position);
            }
            forgetOrdinal(t.session, t.position);
        }
    }

    /** A live position with its ordinal, and the order it was gathered in (ties break on that). */
    private record Placed(Tracked tracked, long ordinal, int gathered) implements Comparable<Placed> {
        @Override
        public int compareTo(Placed o) {
            int c = Long.compare(ordinal, o.ordinal);
            return c != 0 ? c : Integer.compare(gathered, o.gathered);
        }
    }

    /**
     * A settled position's ordinal is not needed any more (its successors have theirs), unless it
     * is a sled's resume point: a sled that restarts there must know where it stands to jump over
     * what was forgotten. Kept while it is one.
     */
    private void forgetOrdinal(SessionId session, JobId position) {
        if (resumePoint(session, position)) {
            keptResumes.put(position, session);
            chain(session).dropLinks(position);
        } else {
            chain(session).forget(position);
        }
    }

    private boolean resumePoint(SessionId session, JobId position) {
        for (Map<SessionId, Marks> byPeer : bySession.values()) {
            Marks m = byPeer.get(session);
            if (m != null) {
                for (Mark mark : m.held) {
                    if (mark.watermark().resume().equals(position)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private void drainStable(List<Version> waiting, List<Version> out) {
        for (int i = waiting.size() - 1; i >= 0; i--) {
            if (stable(waiting.get(i))) {
                out.add(waiting.remove(i));
            }
        }
    }

    /**
     * A sled's newest watermarks of a session that holds nothing live here any more, once the
     * sled sent a newer one (in another session) after them and every sled's are after them.
     */
    private void retireSessions(List<Version> out) {
        Set<SessionId> live = new HashSet<>();
        jobs.values().forEach(j -> live.add(j.session));
        burns.values().forEach(b -> live.add(b.session));
        sessions.entrySet().removeIf(e -> {
            if (live.contains(e.getKey()) || !doneEverywhere(e.getKey())
                    || !e.getValue().stream().allMatch(this::stable)) {
                return false;
            }
            out.addAll(e.getValue());
            return true;
        });
        boolean[] retired = {false};
        for (Map.Entry<String, Map<SessionId, Marks>> e : bySession.entrySet()) {
            Marks latest = newest.get(e.getKey());
            e.getValue().entrySet().removeIf(s -> {
                if (live.contains(s.getKey()) || sessions.containsKey(s.getKey())
                        || latest.held.stream().anyMatch(m -> s.getValue().held.contains(m))) {
                    return false;
                }
                if (!s.getValue().held.stream().allMatch(m -> stable(m.version()))) {
                    return false;
                }
                s.getValue().held.forEach(m -> out.add(m.version()));
                chains.remove(s.getKey());
                retired[0] = true;
                return true;
            });
        }
        if (retired[0]) {
            marksMoved();
        }
    }

    /**
     * Every sled of the rack is done with {@code session} (its watermark says the session ended
     * there) and is in another one now (its newest watermarks name another session): the
     * session's own messages are needed by no one, and another session's say what is active.
     */
    private boolean doneEverywhere(SessionId session) {
        for (String p : peers.keySet()) {
            Marks m = bySession.getOrDefault(p, Map.of()).get(session);
            Marks latest = newest.get(p);
            if (m == null || m.held.stream().noneMatch(x -> x.watermark().done()) || latest == null
                    || latest.held.stream().anyMatch(x -> x.watermark().session().equals(session))) {
                return false;
            }
        }
        return true;
    }

    private boolean settled(Job j) {
        if (!pastEverywhere(j.session, j.position) || !stable(j.ceiling)) {
            return false;
        }
        for (Sled p : peers.values()) {
            if (!j.ended.contains(p.baseboard()) && j.targets(p) && rule != Break.UNENDED) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether every sled of the rack's newest watermarks in {@code session} are past
     * {@code position}: then no sled will run a job there any more, and a position this sled holds
     * nothing of was forgotten (a sled's watermark comes after every position it walked).
     */
    public boolean pastEverywhere(SessionId session, JobId position) {
        return past(session, position, null);
    }

    /**
     * {@link #pastEverywhere}, leaving out {@code asking}'s own watermarks: a sled that restarted
     * at a forgotten position says so in its next watermark (its head is back there), which must
     * not keep it from seeing that every other sled passed the position, as it did itself in the
     * earlier life whose watermark let the rack forget it.
     */
    public boolean pastEverywhereElse(SessionId session, JobId position, String asking) {
        return past(session, position, asking);
    }

    /**
     * The chain's skeleton (bounded-gossip.md section 3): the live position right after the
     * forgotten ones that follow {@code position}, that is, among the jobs and burns of
     * {@code session} still held and the heads of every sled's newest watermarks there (nothing
     * at or after a head is forgotten), the one with the smallest ordinal past
     * {@code position}'s; empty when {@code position}'s ordinal is not known, when there is none,
     * or when two positions are at that ordinal (branches after a burn): no guess. A live
     * position of unknown place might come first, so it also makes the answer empty, unless
     * every other sled's newest watermark there stands on the answer: then {@code asking} goes
     * where the rest of the rack waits (a rack waiting for an operator to re-send a request that
     * a universe lost). Nothing live of unknown place lies before it: what is forgotten is a
     * prefix, so a live position the others walked to reach it keeps its link to it and has a
     * place; and the others took that branch.
     */
    public Optional<JobId> nextLive(SessionId session, JobId position, String asking) {
        return SkeletonJump.nextLive(this, session, position, asking);
    }

    /**
     * Where a sled whose head stands on {@code head} in {@code session}, a position it holds
     * nothing of, jumps over forgotten positions: {@link #nextLive}, when every other sled passed
     * the head ({@link #pastEverywhereElse}), and only where walking back from the landing over
     * the links held does not pass the head's place on another way: it meets the head, or the
     * links end in the forgotten stretch after it. A fork is never forgotten while anyone is in
     * the session and forgetting is a prefix, so that stretch is one way; and never from a head
     * after a held burn ({@link #afterABurn}). Ordinals alone do not order two branches of a
     * chain: without this, a sled whose head stood on one branch's hole jumped onto the other
     * branch and ran a job the starter signed before the one it had run (seed 1 of 32 signed
     * sleds, D-055).
     */
    public Optional<JobId> jumpFor(SessionId session, JobId head, String asking) {
        OptionalLong at = chain(session).ordinal(head);
        if (at.isEmpty() || !pastEverywhereElse(session, head, asking)) {
            return Optional.empty();
        }
        if (rule == Break.ANY_BRANCH) {
            return nextLive(session, head, asking); // the rule before D-055: by ordinal alone
        }
        if (afterABurn(session, head)) {
            return Optional.empty();
        }
        return nextLive(session, head, asking).filter(to -> chain(session).reachesBack(to, head, at.getAsLong()));
    }

    /**
     * Whether {@code session} holds a burn, or a position two requests claim: two ways on may lie
     * ahead of a forgotten position, and which one a client's kept tip leads to is not for this
     * sled to guess (D-057: told a way by {@link #jumpFor}, a client whose tip lay on one branch
     * was sent onto the other in 3 of 2,000 signed simulator seeds).
     */
    public boolean mayFork(SessionId session) {
        for (Burn b : burns.values()) {
            if (b.session.equals(session)) {
                return true;
            }
        }
        for (Job j : jobs.values()) {
            if (j.fork && j.session.equals(session)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code position} lies after a burn or a fork by links held: walking back from it over
     * held links meets a held burn it comes after, or a held request at a fork. Forgetting is a
     * prefix, so nothing on a held burn's way after it was forgotten since the burn was known, and
     * nothing after a fork: a sled standing there with nothing stands on a hole of that way. But
     * the other way's forgotten stretch may be older than the burn (a stray burn of a position the
     * rack had walked and forgotten past, perhaps before this sled restarted), and the others'
     * ordinals there say nothing of this way (seeds 178, 6154 and 8628, D-055).
     */
    private boolean afterABurn(SessionId session, JobId position) {
        JobId at = position;
        for (int steps = 0; steps <= jobs.size() + burns.size() + 1; steps++) {
            List<JobId> before = chain(session).before(at);
            if (before.isEmpty()) {
                return false;
            }
            for (JobId p : before) {
                Burn b = burns.get(p);
                Job j = jobs.get(p);
                if ((b != null && Chain.afterBurn(p).equals(at)) || (j != null && j.fork)) {
                    return true;
                }
            }
            if (before.size() != 1) {
                return true;
            }
            at = before.get(0);
        }
        return true;
    }

    /**
     * Whether every sled but {@code asking} passed {@code position} or stands on it (its newest
     * watermarks there name it as their head), and one at least passed it: the rack went on from
     * there, and those standing on it came back to it as {@code asking} did (two sleds restarted
     * at one forgotten position each see the other there, and neither is past it everywhere else:
     * seed 6933 of 8 signed sleds, D-057).
     */
    public boolean passedOrStoodOn(SessionId session, JobId position, String asking) {
        OptionalLong ordinal = chain(session).ordinal(position);
        return ordinal.isPresent() && passedBy(session, position, ordinal.getAsLong(), asking, true) > 0;
    }

    /** As above, but for {@code except}'s (none when null). */
    private boolean past(SessionId session, JobId position, String except) {
        OptionalLong ordinal = chain(session).ordinal(position);
        if (ordinal.isEmpty()) {
            return false;
        }
        if (except == null) {
            return ordinal.getAsLong() < lowestHeld.computeIfAbsent(session, this::lowestHeld);
        }
        return passedBy(session, position, ordinal.getAsLong(), except, false) >= 0;
    }

    /**
     * How many of the newest watermarks in {@code session} of every sled but {@code except} are
     * past {@code position} (at {@code ordinal}), or -1 when a sled has none that count or one
     * is not past it (unless {@code standing} and it names {@code position} as its head).
     */
    private int passedBy(SessionId session, JobId position, long ordinal, String except, boolean standing) {
        int passed = 0;
        for (String p : peers.keySet()) {
            if (p.equals(except)) {
                continue;
            }
            Marks m = bySession.getOrDefault(p, Map.of()).get(session);
            if (m == null || m.overflowed || m.held.isEmpty()) {
                return -1;
            }
            for (Mark mark : m.held) {
                Message.Watermark w = mark.watermark();
                if (w.ordinal() > ordinal) {
                    passed++;
                } else if (!standing || !w.head().equals(position) || w.ordinal() != ordinal) {
                    return -1;
                }
            }
        }
        return passed;
    }

    /**
     * The lowest ordinal of every sled's newest watermarks in {@code session}, or
     * {@link Long#MIN_VALUE} when a sled has none there, or more than it can hold: a position
     * is past everywhere exactly when its ordinal is below it.
     */
    private long lowestHeld(SessionId session) {
        long lowest = Long.MAX_VALUE;
        for (String p : peers.keySet()) {
            Marks m = bySession.getOrDefault(p, Map.of()).get(session);
            if (m == null || m.overflowed || m.held.isEmpty()) {
                return Long.MIN_VALUE;
            }
            for (Mark mark : m.held) {
                lowest = Math.min(lowest, mark.watermark().ordinal());
            }
        }
        return lowest;
    }

    /** Every sled's newest watermarks are after {@code version}: each held it when it sent them. */
    private boolean stable(Version version) {
        if (rule == Break.UNSEEN) {
            return true;
        }
        Boolean known = stableNow.get(version);
        if (known != null) {
            return known;
        }
        if (stableNow.size() >= MAX_STABLE_ANSWERS) {
            stableNow.clear();
        }
        boolean answer = stableNewly(version);
        stableNow.put(version, answer);
        return answer;
    }

    private boolean stableNewly(Version version) {
        for (String p : peers.keySet()) {
            Marks m = newest.get(p);
            if (m == null || m.overflowed || m.held.isEmpty()) {
                return false;
            }
            for (Mark mark : m.held) {
                if (!version.leq(mark.version())) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The ordinal of {@code position} in {@code session}'s chain, when this sled knows it. */
    public OptionalLong ordinal(SessionId session, JobId position) {
        Ordinals o = chains.get(session);
        return o == null ? OptionalLong.empty() : o.ordinal(position);
    }

    /**
     * {@code baseboard}'s newest watermark in {@code session}: one only (its concurrent ones
     * make no single answer), for a sled that resumes at a forgotten position.
     */
    public Optional<Message.Watermark> newestIn(String baseboard, SessionId session) {
        Marks m = bySession.getOrDefault(baseboard, Map.of()).get(session);
        return m == null || m.held.size() != 1 ? Optional.empty() : Optional.of(m.held.get(0).watermark());
    }

    /** Jobs and burns tracked now (live work): what the set holds of them follows this. */
    public int live() {
        return jobs.size() + burns.size();
    }

    /** Messages this settlement answered to forget so far. */
    public long forgotten() {
        return forgotten;
    }

    private Ordinals chain(SessionId session) {
        return chains.computeIfAbsent(session, Ordinals::new);
    }

    /** One sled's newest watermarks: those no other of its watermarks is causally after. */
    static final class Marks {
        final List<Mark> held = new ArrayList<>(1);
        boolean overflowed;

        /** Takes a watermark; those it replaces go to {@code replaced} (when given). */
        void offer(Mark mark, List<Mark> replaced) {
            for (Mark m : held) {
                if (mark.version().leq(m.version())) {
                    if (replaced != null) {
                        replaced.add(mark); // an older one delivered late
                    }
                    return;
                }
            }
            for (int i = held.size() - 1; i >= 0; i--) {
                if (held.get(i).version().leq(mark.version())) {
                    Mark old = held.remove(i);
                    if (replaced != null) {
                        replaced.add(old);
                    }
                }
            }
            if (held.size() >= MAX_CONCURRENT_MARKS) {
                overflowed = true;
            }
            held.add(mark);
        }
    }
}
