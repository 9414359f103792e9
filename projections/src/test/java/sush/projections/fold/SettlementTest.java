package sush.projections.fold;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.projections.fixtures.Jobs;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.KeyId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.job.Grant;
import sush.projections.job.JobRequest;
import sush.projections.job.SignatureAlgorithm;
import sush.projections.job.SignedGrant;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.targets.Sled;

/**
 * What a sled may forget (issue 39): a job once every sled it targets ended it, every sled's
 * watermark in its session is past its position, and every sled's newest watermarks are after
 * its messages; never before, and each message once.
 */
class SettlementTest {
    private static final Sled A = new Sled("p:a", 0);
    private static final Sled B = new Sled("p:b", 1);
    private static final SessionId S = SessionIds.compute("p:a", new byte[32], new byte[] {1});
    private static final SessionId T = SessionIds.compute("p:a", new byte[32], new byte[] {2});

    /** Versions of one sled ticking in turn: each after every one before (a causal delivery order). */
    private static final class Clock {
        private final Id party;
        private Version at = Version.ZERO;

        Clock(Id party) {
            this.party = party;
        }

        Version next() {
            at = at.tick(party);
            return at;
        }

        /** Learns what {@code other} holds (a sync). */
        void join(Version other) {
            at = at.join(other);
        }
    }

    private final Clock clock = new Clock(Id.ONE);
    private final Settlement s = new Settlement(List.of(A, B));
    private final List<Version> delivered = new ArrayList<>();

    private Version deliver(Message m) {
        Version v = clock.next();
        s.apply(v, m);
        delivered.add(v);
        return v;
    }

    private static SignedJob[] chain(String... targets) {
        return Jobs.onTargets(Jobs::unsigned, S, targets);
    }

    private static Message.Watermark mark(Sled sled, SessionId session, long ordinal, JobId head) {
        return new Message.Watermark(sled.baseboard(), session, ordinal, head, Chain.first(session), 0L);
    }

    private static JobId position(SignedJob j) {
        return j.request().job();
    }

    private static Message ended(Sled sled, SignedJob j) {
        return new Message.JobStopped(sled.baseboard(), position(j), 0, null, 0, new byte[32], 0, new byte[32]);
    }

    /** What the settlement answers now, of {@code of} only (replaced watermarks go too, and are not looked at). */
    private List<Version> drainOf(List<Version> of) {
        return s.drain().stream().filter(of::contains).toList();
    }

    @Test
    void aJobIsForgottenOnlyWhenEndedWherePassedEverywhereAndSeenByAll() {
        SignedJob[] jobs = chain("*", "*");
        List<Version> job = new ArrayList<>();
        job.add(deliver(new Message.JobStart(jobs[0])));
        job.add(deliver(new Message.JobStarted(A.baseboard(), position(jobs[0]))));
        job.add(deliver(ended(A, jobs[0])));
        deliver(mark(A, S, 1, jobs[0].request().successor()));
        deliver(mark(B, S, 1, jobs[0].request().successor()));
        assertEquals(List.of(), drainOf(job), "B has not ended it");
        job.add(deliver(ended(B, jobs[0])));
        assertEquals(List.of(), drainOf(job), "the watermarks are not after B's ending");
        deliver(mark(A, S, 1, jobs[0].request().successor()));
        assertEquals(List.of(), drainOf(job), "B's is not");
        job.add(deliver(new Message.JobStop(position(jobs[0]), "operator")));
        deliver(mark(B, S, 1, jobs[0].request().successor()));
        assertEquals(List.of(), drainOf(job), "A's newest watermark is not after the stop");
        Version lastA = deliver(mark(A, S, 1, jobs[0].request().successor()));
        List<Version> forgot = s.drain();
        assertTrue(forgot.containsAll(job), forgot.toString());
        assertTrue(!forgot.contains(lastA), "a sled's newest watermark is never forgotten");
        assertEquals(0, s.live());
        assertEquals(List.of(position(jobs[0])), s.settledJobs(), "the settled job, for the fold to forget (D-054)");
        assertEquals(List.of(), s.settledJobs(), "once");
        assertEquals(List.of(), s.drain(), "each once");
        assertEquals(job.size() + 3L, s.forgotten(), "the job and A's and B's replaced watermarks");
    }

    @Test
    void aSledThatNeverSentAWatermarkHoldsEverythingUp() {
        SignedJob[] jobs = chain("0");
        deliver(new Message.JobStart(jobs[0]));
        deliver(ended(A, jobs[0]));
        deliver(mark(A, S, 5, Chain.first(T)));
        assertEquals(List.of(), s.drain());
        assertEquals(1, s.live());
        assertThrows(IllegalArgumentException.class, () -> new Settlement(List.of()));
    }

    @Test
    void aWatermarkNotYetPastThePositionHoldsItUpEvenIfEveryTargetEndedIt() {
        SignedJob[] jobs = chain("0", "1");
        deliver(new Message.JobStart(jobs[0]));
        deliver(new Message.JobStart(jobs[1]));
        deliver(ended(A, jobs[0]));
        // B's head is at jobs[0] (ordinal 0): it has not walked past it.
        deliver(mark(B, S, 0, position(jobs[0])));
        deliver(mark(A, S, 2, jobs[1].request().successor()));
        assertEquals(List.of(), s.drain());
        deliver(mark(B, S, 1, position(jobs[1])));
        deliver(mark(A, S, 2, jobs[1].request().successor()));
        assertEquals(List.of(delivered.get(0), delivered.get(2)), drainOf(delivered.subList(0, 3)),
                "jobs[0]: its request and A's ending (jobs[1] waits for B)");
        assertEquals(1, s.live());
        assertEquals(1L, s.ordinal(S, position(jobs[1])).getAsLong());
    }

    @Test
    void aJobForACubbyNobodySitsInIsSettledOnTheWatermarksAlone() {
        SignedJob[] jobs = chain("7");
        Version start = deliver(new Message.JobStart(jobs[0]));
        deliver(mark(A, S, 1, jobs[0].request().successor()));
        deliver(mark(B, S, 1, jobs[0].request().successor()));
        assertEquals(List.of(start), s.drain().stream().filter(v -> v.equals(start)).toList());
        assertEquals(0, s.live());
    }

    @Test
    void aBurnIsForgottenOncePassedAndSeenByAll() {
        Version burn = deliver(new Message.JobSkip(S, Chain.first(S), "operator"));
        deliver(mark(A, S, 1, Chain.afterBurn(Chain.first(S))));
        assertEquals(List.of(), s.drain());
        deliver(mark(B, S, 1, Chain.afterBurn(Chain.first(S))));
        deliver(mark(A, S, 1, Chain.afterBurn(Chain.first(S))));
        List<Version> forgot = s.drain();
        assertTrue(forgot.contains(burn), forgot.toString());
        assertEquals(0, s.live());
        assertEquals(List.of(), s.settledJobs(), "a burn is no job");
    }

    @Test
    void replacedWatermarksAndAnnouncementsAreForgottenOnceSeenByAllNewestNever() {
        Version a1 = deliver(new Message.Announcement(A.baseboard(), "1", 0));
        Version a2 = deliver(new Message.Announcement(A.baseboard(), "1", 0));
        assertEquals(List.of(), s.drain(), "no watermark yet: nothing is after anything");
        Version wA1 = deliver(mark(A, S, 0, Chain.first(S)));
        Version wB1 = deliver(mark(B, S, 0, Chain.first(S)));
        Set<Version> forgot = new HashSet<>(s.drain());
        assertEquals(Set.of(a1), forgot, "the older announcement once both watermarks are after it");
        Version wA2 = deliver(mark(A, S, 0, Chain.first(S)));
        assertEquals(Set.of(wA1), new HashSet<>(s.drain()), "A's replaced watermark: B's newest is after it");
        Version wB2 = deliver(mark(B, S, 0, Chain.first(S)));
        assertEquals(Set.of(wB1), new HashSet<>(s.drain()));
        deliver(mark(A, S, 0, Chain.first(S)));
        forgot = new HashSet<>(s.drain());
        assertEquals(Set.of(wA2), forgot);
        assertTrue(!forgot.contains(a2) && !forgot.contains(wB2), "the newest of each sled stays");
    }

    @Test
    void aStatusOfAForgottenJobIsForgottenOnceSeenByAll() {
        SignedJob[] jobs = chain("7");
        deliver(new Message.JobStart(jobs[0]));
        deliver(mark(A, S, 1, jobs[0].request().successor()));
        deliver(mark(B, S, 1, jobs[0].request().successor()));
        assertEquals(1, s.drain().size());
        Version late = deliver(new Message.JobSkipped(B.baseboard(), position(jobs[0]), Message.SkipReason.ALREADY_HANDLED));
        assertEquals(List.of(), s.drain());
        deliver(mark(A, S, 1, jobs[0].request().successor()));
        deliver(mark(B, S, 1, jobs[0].request().successor()));
        assertTrue(s.drain().contains(late));
    }

    /** Issue 40: a receipt (or a sled skip) told again after its job was forgotten goes as an orphan status does. */
    @Test
    void aReceiptOfAForgottenJobIsForgottenOnceSeenByAll() {
        SignedJob[] jobs = chain("7");
        deliver(new Message.JobStart(jobs[0]));
        deliver(mark(A, S, 1, jobs[0].request().successor()));
        deliver(mark(B, S, 1, jobs[0].request().successor()));
        assertEquals(1, s.drain().size());
        sush.projections.job.Receipt r = new sush.projections.job.Receipt(sush.projections.job.Receipt.Kind.END,
                "rack", B.baseboard(), S, position(jobs[0]), null, null, null, "interrupted", null, "interrupted", null,
                null, null, null);
        Version late = deliver(new Message.JobReceipt(B.baseboard(), r.body(), new byte[] {1}));
        Version skip = deliver(new Message.JobSledSkip(position(jobs[0]), 3, "operator"));
        assertEquals(List.of(), s.drain());
        deliver(mark(A, S, 1, jobs[0].request().successor()));
        deliver(mark(B, S, 1, jobs[0].request().successor()));
        List<Version> forgot = s.drain();
        assertTrue(forgot.contains(late) && forgot.contains(skip), forgot.toString());
    }

    @Test
    void aWatermarkConcurrentWithAMessageIsNotAfterIt() {
        Id[] parties = Id.ONE.fork();
        Clock other = new Clock(parties[1]);
        Clock mine = new Clock(parties[0]);
        SignedJob[] jobs = chain("7");
        Version start = mine.next();
        s.apply(start, new Message.JobStart(jobs[0]));
        // B's watermark was sent without having seen the request.
        Version wB = other.next();
        s.apply(wB, mark(B, S, 1, jobs[0].request().successor()));
        mine.join(wB);
        s.apply(mine.next(), mark(A, S, 1, jobs[0].request().successor()));
        assertEquals(List.of(), s.drain(), "B had not seen the request");
        other.join(mine.at);
        s.apply(other.next(), mark(B, S, 1, jobs[0].request().successor()));
        mine.join(other.at);
        s.apply(mine.next(), mark(A, S, 1, jobs[0].request().successor()));
        assertTrue(s.drain().contains(start));
    }

    @Test
    void ordinalsCountFromTheFirstPositionOrFromAWatermarksHead() {
        SignedJob[] jobs = chain("*", "*", "*", "*");
        deliver(new Message.JobStart(jobs[2]));
        assertTrue(s.ordinal(S, position(jobs[2])).isEmpty(), "a position after a hole has no ordinal yet");
        deliver(new Message.JobStart(jobs[0]));
        assertEquals(1L, s.ordinal(S, jobs[0].request().successor()).getAsLong());
        // The chain's beginning was forgotten elsewhere: a watermark's head names its ordinal.
        deliver(mark(A, S, 2, position(jobs[2])));
        assertEquals(3L, s.ordinal(S, jobs[2].request().successor()).getAsLong());
        deliver(new Message.JobStart(jobs[3]));
        assertEquals(4L, s.ordinal(S, jobs[3].request().successor()).getAsLong());
        assertEquals(jobs[2].request().job(), s.newestIn(A.baseboard(), S).orElseThrow().head());
        assertTrue(s.newestIn(B.baseboard(), S).isEmpty());
        assertTrue(s.ordinal(T, Chain.first(T)).isEmpty(), "a session never seen");
    }

    @Test
    void aSessionLeftEverywhereLetsItsLastWatermarksGo() {
        SignedJob[] jobs = chain("7");
        deliver(new Message.JobStart(jobs[0]));
        Version wA = deliver(mark(A, S, 1, jobs[0].request().successor()));
        Version wB = deliver(mark(B, S, 1, jobs[0].request().successor()));
        assertEquals(1, s.drain().size());
        deliver(mark(A, T, 0, Chain.first(T)));
        Version tB = deliver(mark(B, T, 0, Chain.first(T)));
        deliver(mark(A, T, 0, Chain.first(T)));
        List<Version> forgot = s.drain();
        assertTrue(forgot.containsAll(List.of(wA, wB)), forgot.toString());
        assertTrue(!forgot.contains(tB));
    }

    @Test
    void theSkeletonLeadsFromAForgottenPositionToTheFirstLiveOneAfterIt() {
        SignedJob[] jobs = chain("7", "0", "1", "*");
        // What a restarted sled holds: the chain's beginning was forgotten; jobs 2 and 3 are live.
        deliver(new Message.JobStart(jobs[2]));
        deliver(new Message.JobStart(jobs[3]));
        JobId first = position(jobs[0]);
        assertTrue(s.ordinal(S, position(jobs[2])).isEmpty(), "no ordinal before a watermark names one");
        assertTrue(s.nextLive(S, first, null).isEmpty(), "a live position of unknown place might come first");
        // B's watermark: its head is job 3's position, the 3rd; job 2's position is one less.
        deliver(new Message.Watermark(B.baseboard(), S, 3, position(jobs[3]), position(jobs[1]), 1L));
        assertEquals(2L, s.ordinal(S, position(jobs[2])).getAsLong(), "numbered backwards from a head");
        assertEquals(1L, s.ordinal(S, position(jobs[1])).getAsLong(), "a resume point named with its ordinal");
        assertTrue(!s.pastEverywhere(S, first), "A has said nothing");
        deliver(mark(A, S, 3, position(jobs[3])));
        assertTrue(s.pastEverywhere(S, first));
        assertTrue(s.pastEverywhere(S, position(jobs[2])));
        assertTrue(!s.pastEverywhere(S, position(jobs[3])), "nobody passed job 3");
        assertEquals(position(jobs[2]), s.nextLive(S, first, null).orElseThrow(), "job 2, not a head after it");
        assertEquals(position(jobs[2]), s.nextLive(S, position(jobs[1]), null).orElseThrow());
        assertEquals(position(jobs[3]), s.nextLive(S, position(jobs[2]), null).orElseThrow());
        assertTrue(s.nextLive(S, jobs[3].request().successor(), null).isEmpty(), "nothing live after the end");
    }

    @Test
    void theSkeletonLandsOnAHeadWhenEverythingBeforeItWasForgottenAndNeverGuessesBetweenBranches() {
        SignedJob[] jobs = chain("*", "*");
        JobId end = jobs[1].request().successor();
        deliver(mark(A, S, 2, end));
        deliver(mark(B, S, 2, end));
        assertEquals(end, s.nextLive(S, Chain.first(S), null).orElseThrow(), "the chain's end, where both heads are");
        // Two positions at one ordinal (a burn's branch beside a job's successor): no guess.
        JobId burnt = position(jobs[0]);
        deliver(new Message.JobSkip(S, burnt, "operator"));
        deliver(new Message.Watermark(A.baseboard(), S, 1, Chain.afterBurn(burnt), Chain.first(S), 0L));
        deliver(new Message.Watermark(B.baseboard(), S, 1, jobs[0].request().successor(), Chain.first(S), 0L));
        assertTrue(s.nextLive(S, Chain.first(S), null).isEmpty(), "two heads at the 1st position: no guess");
    }

    /**
     * Ordinals do not order two branches (D-055): A took a burn of the first position and ran the
     * burn's branch job, so its head stands on a hole of that branch at the 2nd position, while B
     * stands on the other branch at the 4th. By ordinal A's head is passed and job 3 is next
     * live; but walking back from job 3 meets job 2 at A's head's place, another way: no jump.
     * A sled restarted at a forgotten position jumps where the way back from the landing ends in
     * the forgotten stretch after it.
     */
    @Test
    void theSkeletonNeverJumpsAcrossBranches() {
        SignedJob[] jobs = chain("*", "*", "*", "*");
        JobId branch = Chain.afterBurn(Chain.first(S));
        SignedJob onBranch = Jobs.unsigned(new JobRequest(S, branch, "echo b", A.baseboard(), false));
        JobId hole = onBranch.request().successor();
        deliver(new Message.JobStart(jobs[2]));
        deliver(new Message.JobStart(jobs[3]));
        deliver(new Message.Watermark(B.baseboard(), S, 4, jobs[3].request().successor(), Chain.first(S), 0L));
        deliver(new Message.Watermark(A.baseboard(), S, 2, hole, hole, 2L));
        assertTrue(s.pastEverywhereElse(S, hole, A.baseboard()), "by ordinal, B passed A's head");
        assertEquals(position(jobs[3]), s.nextLive(S, hole, A.baseboard()).orElseThrow(), "by ordinal, job 3 is next");
        assertTrue(s.jumpFor(S, hole, A.baseboard()).isEmpty(), "job 2 holds A's head's place on the other way");

        Settlement restarted = new Settlement(List.of(A, B));
        Clock c = new Clock(Id.ONE);
        JobId resume = jobs[1].request().job();
        restarted.apply(c.next(), new Message.JobStart(jobs[2]));
        restarted.apply(c.next(), new Message.JobStart(jobs[3]));
        restarted.apply(c.next(), new Message.Watermark(B.baseboard(), S, 4, jobs[3].request().successor(), Chain.first(S), 0L));
        restarted.apply(c.next(), new Message.Watermark(A.baseboard(), S, 1, resume, resume, 1L));
        assertEquals(position(jobs[2]), restarted.jumpFor(S, resume, A.baseboard()).orElseThrow(),
                "job 2: the way back from it ends in the forgotten stretch after A's head");
    }

    /**
     * D-055: a burn of a position a request holds is a fork (two ways on); it and everything
     * after it stay while anyone is in the session, then go with it.
     */
    @Test
    void aForkAndWhatFollowsItStayUntilTheSessionIsDoneEverywhere() {
        SignedJob[] jobs = chain("*", "*");
        List<Version> job0 = new ArrayList<>(List.of(deliver(new Message.JobStart(jobs[0]))));
        Version burn = deliver(new Message.JobSkip(S, position(jobs[0]), "operator"));
        Version request1 = deliver(new Message.JobStart(jobs[1]));
        for (Sled x : List.of(A, B)) {
            job0.add(deliver(ended(x, jobs[0])));
            deliver(ended(x, jobs[1]));
        }
        JobId end = jobs[1].request().successor();
        deliver(mark(A, S, 2, end));
        deliver(mark(B, S, 2, end));
        List<Version> forgot = s.drain();
        assertTrue(!forgot.contains(burn), "the fork stays");
        assertTrue(!forgot.contains(request1), "and what follows it");
        deliver(done(A, S));
        deliver(done(B, S));
        deliver(mark(A, T, 0, Chain.first(T)));
        deliver(mark(B, T, 0, Chain.first(T)));
        forgot = s.drain();
        assertTrue(forgot.containsAll(List.of(burn, request1)), "the session is done everywhere: " + forgot);
        assertEquals(0, s.live());
    }

    @Test
    void aResumePointKeepsItsOrdinalAfterItsPositionIsForgotten() {
        SignedJob[] jobs = chain("7", "*");
        deliver(new Message.JobStart(jobs[0]));
        deliver(new Message.JobStart(jobs[1]));
        // A resumes at job 0's successor (it committed job 0... in this test, its watermark says so).
        JobId resume = jobs[0].request().successor();
        deliver(new Message.Watermark(A.baseboard(), S, 1, resume, resume, 1L));
        deliver(mark(B, S, 1, resume));
        s.drain();
        deliver(new Message.Watermark(A.baseboard(), S, 2, jobs[1].request().successor(), resume, 1L));
        deliver(new Message.Watermark(B.baseboard(), S, 2, jobs[1].request().successor(), Chain.first(S), 0L));
        deliver(ended(A, jobs[1]));
        deliver(ended(B, jobs[1]));
        deliver(new Message.Watermark(A.baseboard(), S, 2, jobs[1].request().successor(), resume, 1L));
        deliver(new Message.Watermark(B.baseboard(), S, 2, jobs[1].request().successor(), Chain.first(S), 0L));
        s.drain();
        assertEquals(0, s.live(), "both jobs settled");
        assertEquals(1L, s.ordinal(S, resume).getAsLong(), "A's resume point: a restart there must place itself");
        assertTrue(s.ordinal(S, position(jobs[0])).isPresent(), "the first position is B's resume point");
    }

    @Test
    void aSessionEveryoneIsDoneWithGoesWithItsJobsAndItsOwnMessages() {
        Version start = deliver(new Message.SessionStart(S, A.baseboard(), new byte[32], new byte[16], "operator"));
        SignedJob[] jobs = chain("0");
        Version request = deliver(new Message.JobStart(jobs[0]));
        // The session ends before anyone walked past its job (a newer one came): done marks.
        Version newer = deliver(new Message.SessionStart(T, A.baseboard(), new byte[32], new byte[16], "operator"));
        deliver(ended(A, jobs[0]));
        deliver(done(A, S));
        assertTrue(!s.drain().contains(request), "B is not done with it");
        deliver(done(B, S));
        deliver(mark(A, T, 0, Chain.first(T)));
        deliver(mark(B, T, 0, Chain.first(T)));
        List<Version> forgot = s.drain();
        assertTrue(forgot.containsAll(List.of(request, start)), "the job, then the session's start: " + forgot);
        assertTrue(!forgot.contains(newer), "the session everyone is in stays");
        assertEquals(0, s.live());
    }

    @Test
    void aSessionIsKeptWhileASledIsStillInIt() {
        Version start = deliver(new Message.SessionStart(S, A.baseboard(), new byte[32], new byte[16], "operator"));
        deliver(done(A, S));
        deliver(done(B, S));
        assertTrue(!s.drain().contains(start), "their newest watermarks still name it (nothing newer is active)");
        deliver(mark(A, T, 0, Chain.first(T)));
        assertTrue(!s.drain().contains(start), "B's still does");
        deliver(mark(B, T, 0, Chain.first(T)));
        deliver(mark(A, T, 0, Chain.first(T)));
        assertTrue(s.drain().contains(start));
        assertTrue(s.nextLive(S, Chain.first(S), null).isEmpty(), "a done mark is no place to land");
    }

    private static Message.Watermark done(Sled sled, SessionId session) {
        return new Message.Watermark(sled.baseboard(), session, Message.Watermark.DONE, Chain.first(session),
                Chain.first(session), null);
    }

    @Test
    void everyKindOfEndingCountsAndAnErrorOrASkipEndsAJobToo() {
        SignedJob[] jobs = chain("*");
        List<Version> job = new ArrayList<>();
        job.add(deliver(new Message.JobStart(jobs[0])));
        job.add(deliver(new Message.JobErrored(A.baseboard(), position(jobs[0]), Message.JobError.KILLED, "stopped", 9)));
        job.add(deliver(new Message.JobSkipped(B.baseboard(), position(jobs[0]), Message.SkipReason.SUPERSEDED)));
        deliver(mark(A, S, 1, jobs[0].request().successor()));
        deliver(mark(B, S, 1, jobs[0].request().successor()));
        assertTrue(s.drain().containsAll(job), "an error on A and a skip on B end it on both");
        SignedJob[] more = Jobs.onTargets(Jobs::unsigned, T, "*");
        Version start = deliver(new Message.JobStart(more[0]));
        deliver(new Message.JobCancelled(A.baseboard(), position(more[0])));
        deliver(new Message.JobStarted(B.baseboard(), position(more[0])));
        deliver(mark(A, T, 1, more[0].request().successor()));
        deliver(mark(B, T, 1, more[0].request().successor()));
        assertTrue(!s.drain().contains(start), "started is not an ending");
        deliver(new Message.JobConflict(B.baseboard(), position(more[0]), more[0].request().successor(),
                more[0].request().successor()));
        deliver(mark(A, T, 1, more[0].request().successor()));
        deliver(mark(B, T, 1, more[0].request().successor()));
        assertTrue(s.drain().contains(start), "a conflict is an ending");
    }

    @Test
    void aGrantItsStopsAndAccessGoWithTheirSession() {
        SignedGrant g = new SignedGrant(new Grant(5,
                new KeyId(new byte[11]), "operator", new byte[32]),
                SignatureAlgorithm.ED25519, new byte[64]);
        SessionId granted = g.grant().session();
        Version grant = deliver(new Message.SessionGrant(g));
        Version access = deliver(new Message.SessionAccess(granted, "k", Message.Access.READ, "operator"));
        Version stop = deliver(new Message.SessionStop(granted, "operator"));
        deliver(done(A, granted));
        deliver(done(B, granted));
        deliver(mark(A, T, 0, Chain.first(T)));
        deliver(mark(B, T, 0, Chain.first(T)));
        deliver(mark(A, T, 0, Chain.first(T)));
        assertTrue(s.drain().containsAll(List.of(grant, access, stop)));
    }

    @Test
    void aWatermarkDeliveredAfterANewerOneIsForgottenAndTheNewerStaysNewest() {
        Id[] parties = Id.ONE.fork();
        Clock a = new Clock(parties[0]);
        Clock b = new Clock(parties[1]);
        Version older = a.next();
        Version newer = a.next();
        s.apply(newer, mark(A, S, 2, Chain.first(S)));
        s.apply(older, mark(A, S, 1, Chain.first(S)));
        b.join(newer);
        s.apply(b.next(), mark(B, S, 2, Chain.first(S)));
        a.join(b.at);
        Version last = a.next();
        s.apply(last, mark(A, S, 2, Chain.first(S)));
        List<Version> forgot = s.drain();
        assertTrue(forgot.contains(older) && forgot.contains(newer), forgot.toString());
        assertTrue(!forgot.contains(last));
    }

    @Test
    void aPositionNumberedFromItsSuccessorAndALiveBurnAreNextLive() {
        SignedJob[] jobs = chain("*", "*", "*");
        // A's head at job 2's position names its ordinal; job 1 arrives after: one less.
        deliver(mark(A, S, 2, position(jobs[2])));
        deliver(new Message.JobStart(jobs[1]));
        assertEquals(1L, s.ordinal(S, position(jobs[1])).getAsLong());
        assertEquals(position(jobs[1]), s.nextLive(S, position(jobs[0]), null).orElseThrow());
        // A burn of job 1's position is live too: the burnt position itself, then after it.
        deliver(new Message.JobSkip(S, position(jobs[1]), "operator"));
        assertEquals(2, s.live());
        assertEquals(position(jobs[1]), s.nextLive(S, position(jobs[0]), null).orElseThrow(),
                "job 1's position, burnt or not, comes next");
        assertEquals(position(jobs[2]), s.nextLive(S, position(jobs[1]), null).orElseThrow(), "A's head");
    }

    @Test
    void aWrongRuleForgetsWhatTheRightOneKeeps() {
        for (Settlement.Break rule : Settlement.Break.values()) {
            Settlement wrong = new Settlement(List.of(A, B), rule);
            SignedJob[] jobs = chain("*");
            Clock c = new Clock(Id.ONE);
            Version start = c.next();
            wrong.apply(start, new Message.JobStart(jobs[0]));
            wrong.apply(c.next(), mark(A, S, 1, jobs[0].request().successor()));
            wrong.apply(c.next(), mark(B, S, 1, jobs[0].request().successor()));
            boolean forgot = wrong.drain().contains(start);
            // Nobody ended it: only a rule that does not wait for the targets forgets it.
            assertEquals(rule == Settlement.Break.UNENDED, forgot, rule.name());
        }
        Settlement unseen = new Settlement(List.of(A, B), Settlement.Break.UNSEEN);
        SignedJob[] jobs = chain("7");
        Clock c = new Clock(Id.ONE);
        Version start = c.next();
        unseen.apply(c.next(), mark(A, S, 1, jobs[0].request().successor()));
        unseen.apply(c.next(), mark(B, S, 1, jobs[0].request().successor()));
        unseen.apply(start.tick(Id.ONE.fork()[1]), new Message.JobStart(jobs[0]));
        assertEquals(1, unseen.drain().size(), "forgotten though no watermark is after it");
    }

    @Test
    void aSledsConcurrentWatermarksAreRememberedUpToTheirBoundAndPastItHoldEverythingUp() {
        for (int concurrent : new int[] {Settlement.MAX_CONCURRENT_MARKS, Settlement.MAX_CONCURRENT_MARKS + 1}) {
            Settlement t = new Settlement(List.of(A, B));
            SignedJob[] jobs = chain("7");
            Id[] lives = Id.ONE.fork(concurrent + 1).toArray(new Id[0]);
            Version start = Version.ZERO.tick(lives[0]);
            t.apply(start, new Message.JobStart(jobs[0]));
            // A's lives each saw the request, none saw another's mark: concurrent watermarks.
            for (int k = 1; k <= concurrent; k++) {
                t.apply(start.tick(lives[k]), mark(A, S, 1, jobs[0].request().successor()));
            }
            Version all = start;
            for (int k = 1; k <= concurrent; k++) {
                all = all.join(start.tick(lives[k]));
            }
            t.apply(all.tick(lives[0]), mark(B, S, 1, jobs[0].request().successor()));
            boolean forgot = t.drain().contains(start);
            assertEquals(concurrent <= Settlement.MAX_CONCURRENT_MARKS, forgot, concurrent + " concurrent marks");
        }
    }

    @Test
    void whatIsForgottenOfASessionIsAPrefixOfItsChain() {
        SignedJob[] jobs = chain("0", "*");
        Version first = deliver(new Message.JobStart(jobs[0]));
        List<Version> second = new ArrayList<>();
        second.add(deliver(new Message.JobStart(jobs[1])));
        second.add(deliver(ended(A, jobs[1])));
        second.add(deliver(ended(B, jobs[1])));
        deliver(mark(A, S, 2, jobs[1].request().successor()));
        deliver(mark(B, S, 2, jobs[1].request().successor()));
        // Job 1 alone would be settled; job 0 is not (A has not ended it), and it comes first.
        List<Version> forgot = s.drain();
        assertTrue(forgot.stream().noneMatch(second::contains), "a settled job after a live one stays: " + forgot);
        assertTrue(!forgot.contains(first));
        Version end = deliver(ended(A, jobs[0]));
        deliver(mark(A, S, 2, jobs[1].request().successor()));
        deliver(mark(B, S, 2, jobs[1].request().successor()));
        forgot = s.drain();
        assertTrue(forgot.containsAll(second) && forgot.contains(first) && forgot.contains(end), forgot.toString());
    }

    @Test
    void aSettledJobAfterALiveOneGoesUnderTheWrongRuleThatTheSimulatorCatches() {
        Settlement wrong = new Settlement(List.of(A, B), Settlement.Break.NOT_PREFIX);
        SignedJob[] jobs = chain("0", "*");
        Clock c = new Clock(Id.ONE);
        wrong.apply(c.next(), new Message.JobStart(jobs[0]));
        Version second = c.next();
        wrong.apply(second, new Message.JobStart(jobs[1]));
        wrong.apply(c.next(), ended(A, jobs[1]));
        wrong.apply(c.next(), ended(B, jobs[1]));
        wrong.apply(c.next(), mark(A, S, 2, jobs[1].request().successor()));
        wrong.apply(c.next(), mark(B, S, 2, jobs[1].request().successor()));
        assertTrue(wrong.drain().contains(second));
    }

    @Test
    void aRestartedSledGoesWhereEveryOtherSledWaitsWhenNothingCanLieBetween() {
        Sled c = new Sled("p:c", 2);
        Settlement three = new Settlement(List.of(A, B, c));
        Clock k = new Clock(Id.ONE);
        SignedJob[] jobs = chain("*", "*", "*");
        JobId first = position(jobs[0]);
        JobId next = position(jobs[1]);
        // Held: only job 2, whose place is unknown (job 1's request, which links to it, is not held).
        three.apply(k.next(), new Message.JobStart(jobs[2]));
        three.apply(k.next(), mark(A, S, 1, next));
        three.apply(k.next(), mark(B, S, 1, next));
        // C restarted at the first position, forgotten; its new watermark says it stands there.
        three.apply(k.next(), mark(c, S, 0, first));
        assertTrue(!three.pastEverywhere(S, first), "C's own watermark is not past it");
        assertTrue(three.pastEverywhereElse(S, first, c.baseboard()), "every other sled passed it");
        assertTrue(three.nextLive(S, first, null).isEmpty(), "asked for the whole rack: C's head is elsewhere");
        assertEquals(next, three.nextLive(S, first, c.baseboard()).orElseThrow(),
                "the place where every other sled stands, though job 2's place is unknown");
        // One sled elsewhere: a live position of unknown place might come first; no guess.
        three.apply(k.next(), mark(B, S, 2, Chain.afterBurn(next)));
        assertTrue(three.ordinal(S, position(jobs[2])).isEmpty());
        assertTrue(three.nextLive(S, first, c.baseboard()).isEmpty());
    }
}
