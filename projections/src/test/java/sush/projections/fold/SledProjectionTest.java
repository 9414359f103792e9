package sush.projections.fold;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;

import org.junit.jupiter.api.Test;
import sush.gossip.Entropy;
import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.gossip.set.Delivery;
import sush.gossip.set.NetworkId;
import sush.gossip.set.Replica;
import sush.projections.fixtures.Jobs;
import sush.projections.fixtures.Signers;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.job.InvalidJobReason;
import sush.projections.job.JobRequest;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;
import sush.projections.targets.Sled;

class SledProjectionTest {
    private static final Sled ME = new Sled("p:me", 3);
    private static final byte[] NONCE = new byte[SessionIds.NONCE_BYTES];
    private static final SessionId S = SessionIds.compute("p:a", NONCE, new byte[] {1});
    private static final Message.SessionStart START = new Message.SessionStart(S, "p:a", NONCE, new byte[] {1}, "op");

    /** A stream built by one party ticking: every message causally after the previous. */
    private static final class Stream {
        Version v = Version.ZERO;
        final List<Version> versions = new ArrayList<>();
        final List<byte[]> payloads = new ArrayList<>();

        Stream add(Message m) {
            v = v.tick(Id.ONE);
            versions.add(v);
            payloads.add(MessageCodec.encode(m));
            return this;
        }

        SledProjection fold() {
            SledProjection p = new SledProjection(ME, Signers.TRUST);
            for (int i = 0; i < versions.size(); i++) {
                p.apply(versions.get(i), payloads.get(i));
            }
            return p;
        }
    }

    private static SignedJob[] chain(String... targets) {
        return Jobs.onTargets(Signers.KEY::sign, S, targets);
    }

    @Test
    void theJobAtThisSledsHeadIsOffered() {
        SignedJob[] jobs = chain("5", "3", "*");
        SledProjection p = new SledProjection(ME, Signers.TRUST);
        Version v = Version.ZERO.tick(Id.ONE);
        p.apply(v, MessageCodec.encode(START));
        p.apply(v = v.tick(Id.ONE), MessageCodec.encode(new Message.JobStart(jobs[0])));
        List<SledProjection.Outcome> out = p.apply(v.tick(Id.ONE), MessageCodec.encode(new Message.JobStart(jobs[1])));
        assertEquals(List.of(new SledProjection.Outcome.AtHead(jobs[1])), out);
        assertEquals(List.of(), p.passHead(jobs[1].request().job(), ChainProjection.Passed.RAN), "the next job has not arrived: a hole");
    }

    @Test
    void stoppingTheSessionEndsItsQueuedTargetedJobs() {
        SignedJob[] jobs = chain("*", "*", "9");
        Stream s = new Stream().add(START);
        for (SignedJob j : jobs) {
            s.add(new Message.JobStart(j));
        }
        SledProjection p = s.fold();
        List<SledProjection.Outcome> out = p.apply(s.v.tick(Id.ONE),
                MessageCodec.encode(new Message.SessionStop(S, "op")));
        SledProjection.Outcome.SessionEnded ended = (SledProjection.Outcome.SessionEnded) out.get(0);
        assertEquals(SessionProjection.Ending.STOPPED, ended.why());
        assertEquals(2, ended.queued().size(), "the two jobs for this sled, not the one for cubby 9");
    }

    /**
     * Issue 19: the starter sets what a key may do on its session's interactive jobs; anyone
     * else's setting is ignored; the latest holds; at most {@value SledProjection#MAX_ACCESSES}
     * settings are kept, and a kept one still changes at the bound.
     */
    @Test
    void sessionAccessIsTheStartersToSetAndBounded() {
        SledProjection p = new SledProjection(ME, Signers.TRUST);
        Version v = Version.ZERO.tick(Id.ONE);
        p.apply(v, START);
        assertEquals(Message.Access.WRITE, p.access(S, "op"), "the starter types");
        assertEquals(Message.Access.READ, p.access(S, "someone"), "everyone else watches");
        v = v.tick(Id.ONE);
        p.apply(v, new Message.SessionAccess(S, "someone", Message.Access.WRITE, "someone"));
        assertEquals(Message.Access.READ, p.access(S, "someone"), "not the starter's say");
        v = v.tick(Id.ONE);
        p.apply(v, new Message.SessionAccess(S, "someone", Message.Access.WRITE, "op"));
        assertEquals(Message.Access.WRITE, p.access(S, "someone"));
        v = v.tick(Id.ONE);
        p.apply(v, new Message.SessionAccess(S, "someone", Message.Access.NONE, "op"));
        assertEquals(Message.Access.NONE, p.access(S, "someone"), "the latest holds");
        for (int i = 0; i < SledProjection.MAX_ACCESSES; i++) {
            v = v.tick(Id.ONE);
            p.apply(v, new Message.SessionAccess(S, "k" + i, Message.Access.WRITE, "op"));
        }
        assertEquals(Message.Access.WRITE, p.access(S, "k" + (SledProjection.MAX_ACCESSES - 2)));
        assertEquals(Message.Access.READ, p.access(S, "k" + (SledProjection.MAX_ACCESSES - 1)), "past the bound");
        v = v.tick(Id.ONE);
        p.apply(v, new Message.SessionAccess(S, "someone", Message.Access.READ, "op"));
        assertEquals(Message.Access.READ, p.access(S, "someone"), "a kept setting still changes at the bound");
        assertEquals(Message.Access.NONE, p.access(SessionIds.compute("p:zz", NONCE, new byte[] {7}), "op"), "an unknown session: nothing");
    }

    @Test
    void malformedPayloadsAreCountedAndTheFoldGoesOn() {
        SledProjection p = new SledProjection(ME, Signers.TRUST);
        Version v = Version.ZERO.tick(Id.ONE);
        p.apply(v, "garbage".getBytes(StandardCharsets.UTF_8));
        p.apply(v.tick(Id.ONE), MessageCodec.encode(new Message.Announcement("p:x", "1", 4)));
        assertEquals(1, p.malformed());
        assertTrue(p.announcements().containsKey("p:x"));
    }

    @Test
    void zombiesAreOwnStartsFromBeforeThisEntryWithoutAnEnd() {
        Id[] halves = Id.ONE.fork();
        Version lagging = Version.ZERO.tick(halves[0]);
        JobId ranBefore = new JobId(new byte[11]);
        byte[] other = new byte[11];
        other[10] = 1;
        JobId endedBefore = new JobId(other);
        SledProjection p = new SledProjection(ME, Signers.TRUST);
        p.apply(lagging, MessageCodec.encode(new Message.JobStarted(ME.baseboard(), ranBefore)));
        Version v2 = lagging.tick(halves[0]);
        p.apply(v2, MessageCodec.encode(new Message.JobStarted(ME.baseboard(), endedBefore)));
        Version v3 = v2.tick(halves[0]);
        p.apply(v3, MessageCodec.encode(new Message.JobSkipped(ME.baseboard(), endedBefore,
                Message.SkipReason.SUPERSEDED)));
        // This entry was born on top of a peer that lags: birth is below our old starts.
        Version birth = Version.ZERO.tick(halves[1]);
        assertEquals(List.of(ranBefore), p.zombies(birth));
        Version ours = v3.join(birth).tick(halves[1]);
        byte[] third = new byte[11];
        third[10] = 2;
        p.apply(ours, MessageCodec.encode(new Message.JobStarted(ME.baseboard(), new JobId(third))));
        assertEquals(List.of(ranBefore), p.zombies(birth), "a start of this entry is not a zombie");
    }

    @Test
    void twoFoldsOfOneStreamAndAFoldResumedFromACheckpointAgree() {
        Replica replica = Replica.seed(NetworkId.random(Entropy.seeded(5)));
        Random random = new Random(5);
        SignedJob[] jobs = chain("*", "3", "7", "*", "p:me");
        replica.send(MessageCodec.encode(START));
        for (int i = 0; i < jobs.length; i++) {
            replica.send(MessageCodec.encode(new Message.JobStart(jobs[i])));
            replica.send(MessageCodec.encode(new Message.JobStarted("p:o" + random.nextInt(3), jobs[i].request().job())));
        }
        replica.send("not cbor".getBytes(StandardCharsets.UTF_8));
        List<Delivery> all = replica.readFrom(0, Integer.MAX_VALUE);
        SledProjection a = new SledProjection(ME, Signers.TRUST);
        SledProjection b = new SledProjection(ME, Signers.TRUST);
        all.forEach(d -> a.apply(d.version(), d.payload()));
        all.forEach(d -> b.apply(d.version(), d.payload()));
        assertEquals(a.digest(), b.digest());
        assertEquals(0, a.faults(), "no message tripped a fold");
        SledProjection resumed = new SledProjection(ME, Signers.TRUST);
        List<Delivery> head = replica.readFrom(0, 4);
        head.forEach(d -> resumed.apply(d.version(), d.payload()));
        replica.readFrom(head.get(head.size() - 1).checkpoint(), Integer.MAX_VALUE)
                .forEach(d -> resumed.apply(d.version(), d.payload()));
        assertEquals(a.digest(), resumed.digest());
    }

    @Test
    void aSequentialJobWaitsForThePreviousJobItRanAConcurrentOneDoesNot() {
        JobRequest first = new JobRequest(S, Chain.first(S), "sleep 5", "*", false);
        JobRequest second = new JobRequest(S, first.successor(), "uptime", "*", false);
        JobRequest third = new JobRequest(S, second.successor(), "date", "*", true);
        Stream s = new Stream().add(START);
        for (JobRequest r : List.of(first, second, third)) {
            s.add(new Message.JobStart(Signers.KEY.sign(r)));
        }
        SledProjection p = s.fold();
        p.passHead(first.job(), ChainProjection.Passed.RAN);
        SignedJob atHead = p.chain().orElseThrow().atHead().orElseThrow();
        assertEquals(second.job(), atHead.request().job());
        assertFalse(p.mayStart(atHead), "the first job is still running here");
        p.apply(s.v.tick(Id.ONE), MessageCodec.encode(new Message.JobStopped(ME.baseboard(), first.job(), 0, null, 0,
                new byte[32], 0, new byte[32])));
        assertTrue(p.mayStart(atHead));
        p.passHead(second.job(), ChainProjection.Passed.RAN);
        SignedJob concurrent = p.chain().orElseThrow().atHead().orElseThrow();
        assertTrue(p.mayStart(concurrent), "a concurrent job does not wait for the running one");
    }

    @Test
    void onlyTheStarterBurnsAPosition() {
        Stream s = new Stream().add(START).add(new Message.JobSkip(S, Chain.first(S), "mallory"));
        SledProjection p = s.fold();
        assertEquals(Chain.first(S), p.chain().orElseThrow().head(), "a skip by someone else is ignored");
        p.apply(s.v.tick(Id.ONE), MessageCodec.encode(new Message.JobSkip(S, Chain.first(S), "op")));
        assertEquals(Chain.afterBurn(Chain.first(S)), p.chain().orElseThrow().head());
    }

    @Test
    void theJobAtTheHeadIsOfferedOnceAndOwnEndedStartsAreNoZombieCandidates() {
        SignedJob[] jobs = chain("*");
        Stream s = new Stream().add(START).add(new Message.JobStart(jobs[0]));
        SledProjection p = new SledProjection(ME, Signers.TRUST);
        int offers = 0;
        for (int i = 0; i < s.versions.size(); i++) {
            offers += p.apply(s.versions.get(i), s.payloads.get(i)).size();
        }
        Version v = s.v;
        for (int i = 0; i < 3; i++) {
            v = v.tick(Id.ONE);
            offers += p.apply(v, MessageCodec.encode(new Message.Announcement("p:x" + i, "1", i))).size();
        }
        assertEquals(1, offers, "offered when it reached the head, not again on every message");
        JobId job = jobs[0].request().job();
        p.apply(v = v.tick(Id.ONE), MessageCodec.encode(new Message.JobStarted(ME.baseboard(), job)));
        p.apply(v = v.tick(Id.ONE), MessageCodec.encode(new Message.JobStopped(ME.baseboard(), job, 0, null, 0,
                new byte[32], 0, new byte[32])));
        assertTrue(p.digest().contains(";starts=0"), p.digest());
        assertEquals(List.of(), p.zombies(Version.ZERO.tick(Id.ONE.fork()[1])));
    }

    @Test
    void aJobThatFailsItsChecksTakesNoChainPosition() {
        SignedJob[] jobs = chain("*");
        SignedJob forged = new SignedJob(jobs[0].request(), jobs[0].key(), jobs[0].algorithm(), new byte[64]);
        Stream s = new Stream().add(START);
        SledProjection p = s.fold();
        List<SledProjection.Outcome> out = p.apply(s.v.tick(Id.ONE), MessageCodec.encode(new Message.JobStart(forged)));
        assertEquals(List.of(new SledProjection.Outcome.InvalidJob(forged, InvalidJobReason.BAD_SIGNATURE)),
                out);
        List<SledProjection.Outcome> good = p.apply(s.v.tick(Id.ONE).tick(Id.ONE),
                MessageCodec.encode(new Message.JobStart(jobs[0])));
        assertEquals(List.of(new SledProjection.Outcome.AtHead(jobs[0])), good, "the real job still takes the position");
    }

    @Test
    void requestsDeliveredBeforeTheirConcurrentSessionStartAreKeptUntilItArrives() {
        Id[] halves = Id.ONE.fork();
        SignedJob[] jobs = chain("*");
        Version startVersion = Version.ZERO.tick(halves[0]);
        Version jobVersion = Version.ZERO.tick(halves[1]);
        byte[] start = MessageCodec.encode(START);
        byte[] job = MessageCodec.encode(new Message.JobStart(jobs[0]));
        SledProjection startFirst = new SledProjection(ME, Signers.TRUST);
        startFirst.apply(startVersion, start);
        List<SledProjection.Outcome> a = startFirst.apply(jobVersion, job);
        SledProjection jobFirst = new SledProjection(ME, Signers.TRUST);
        assertEquals(List.of(), jobFirst.apply(jobVersion, job));
        List<SledProjection.Outcome> b = jobFirst.apply(startVersion, start);
        assertEquals(a, b);
        assertEquals(List.of(new SledProjection.Outcome.AtHead(jobs[0])), b);
        assertEquals(startFirst.chain().orElseThrow().head(), jobFirst.chain().orElseThrow().head());
    }

    @Test
    void anEarlyStopEndsTheSessionWhenItsStartArrivesAndLateJobsAreSessionEnded() {
        Id[] halves = Id.ONE.fork();
        SledProjection p = new SledProjection(ME, Signers.TRUST);
        Version stopVersion = Version.ZERO.tick(halves[1]);
        p.apply(stopVersion, MessageCodec.encode(new Message.SessionStop(S, "op")));
        List<SledProjection.Outcome> out = p.apply(Version.ZERO.tick(halves[0]), MessageCodec.encode(START));
        assertTrue(out.stream().anyMatch(o -> o instanceof SledProjection.Outcome.SessionEnded), out.toString());
        assertTrue(p.sessions().active().isEmpty());
        SignedJob[] jobs = chain("3");
        List<SledProjection.Outcome> late = p.apply(stopVersion.join(Version.ZERO.tick(halves[0])).tick(halves[0]),
                MessageCodec.encode(new Message.JobStart(jobs[0])));
        assertEquals(List.of(new SledProjection.Outcome.SessionEnded(S, SessionProjection.Ending.STOPPED, List.of(jobs[0]))),
                late);
    }

    @Test
    void earlyRequestsAreHeldUpToTheirBoundOldestSessionFirstToGo() {
        SledProjection p = new SledProjection(ME, Signers.TRUST);
        Version v = Version.ZERO;
        for (int i = 0; i <= SledProjection.MAX_EARLY_MESSAGES; i++) {
            byte[] nonce = new byte[SessionIds.NONCE_BYTES];
            nonce[0] = (byte) i;
            nonce[1] = (byte) (i >> 8);
            SessionId unknown = SessionIds.compute("p:z", nonce, new byte[] {1});
            p.apply(v = v.tick(Id.ONE), MessageCodec.encode(new Message.SessionStop(unknown, "op")));
        }
        assertTrue(p.digest().contains(";early=" + SledProjection.MAX_EARLY_MESSAGES + ";"), p.digest());
    }

    @Test
    void resumptionsPastTheirBoundAreNotKeptAndTheFirstGivenForASessionWins() {
        SledProjection p = new SledProjection(ME, Signers.TRUST);
        JobId first = Chain.first(S);
        JobId resumeAt = Chain.afterBurn(first);
        for (int i = 0; i < SledProjection.MAX_RESUMPTIONS; i++) {
            SessionId other = SessionIds.compute("p:a", NONCE, new byte[] {2, (byte) i});
            p.resume(new SledProjection.Resumption(other, first, resumeAt));
        }
        p.resume(new SledProjection.Resumption(S, first, resumeAt)); // one past the bound: not kept
        p.apply(gossipVersion(), START);
        assertEquals(first, p.chain().orElseThrow().head(), "no room left: the session starts at its first position");

        SledProjection q = new SledProjection(ME, Signers.TRUST);
        q.resume(new SledProjection.Resumption(S, first, resumeAt));
        q.resume(new SledProjection.Resumption(S, first, first));
        q.apply(gossipVersion(), START);
        assertEquals(resumeAt, q.chain().orElseThrow().head(), "the most recent (first given) resumption wins");
    }

    /** Folds a message as the runtime does: a job for this sled at the head is started. */
    private static List<SledProjection.Outcome> drive(SledProjection p, Version v, byte[] payload) {
        List<SledProjection.Outcome> out = new ArrayList<>(p.apply(v, payload));
        for (int i = 0; i < out.size(); i++) {
            if (out.get(i) instanceof SledProjection.Outcome.AtHead) {
                JobId job = ((SledProjection.Outcome.AtHead) out.get(i)).job().request().job();
                out.addAll(p.passHead(job, ChainProjection.Passed.RAN));
                out.addAll(p.apply(v, MessageCodec.encode(new Message.JobStarted(ME.baseboard(), job))));
            }
        }
        return out;
    }

    private static String state(SledProjection p) {
        StringBuilder b = new StringBuilder(p.digest()).append('|').append(p.chainKey());
        for (JobId j : p.statuses().jobs()) {
            b.append('|').append(j).append('=').append(p.statuses().status(j, ME.baseboard()).map(e -> e.status())
                    .orElse(null));
        }
        return b.toString();
    }

    @Test
    void aCopyGoesOnAsAFreshFoldWouldAndNeverMovesItsOriginal() {
        SignedJob[] jobs = chain("p:me", "7", "*", "3", "p:me");
        SessionId later = SessionIds.compute("p:b", NONCE, new byte[] {2});
        // Early: its start comes later.
        Stream st = new Stream().add(new Message.JobStart(Jobs.onTargets(Signers.KEY::sign, later, "*")[0]))
                .add(START).add(new Message.JobStart(jobs[0])).add(new Message.JobStart(jobs[2]))
                .add(new Message.JobSkip(S, jobs[1].request().job(), "op")).add(new Message.JobStart(jobs[1]))
                .add(new Message.JobStopped(ME.baseboard(), jobs[0].request().job(), 0, null, 0, new byte[32], 0,
                        new byte[32]))
                .add(new Message.JobStart(jobs[3])).add(new Message.JobStarted("p:o", jobs[3].request().job()))
                .add(new Message.JobStart(jobs[4])).add(new Message.JobStop(jobs[4].request().job(), "op"))
                .add(new Message.SessionStart(later, "p:b", NONCE, new byte[] {2}, "op2"));
        int n = st.versions.size();
        for (int k = 0; k <= n; k++) {
            SledProjection original = new SledProjection(ME, Signers.TRUST);
            SledProjection fresh = new SledProjection(ME, Signers.TRUST);
            List<SledProjection.Outcome> originalOut = new ArrayList<>();
            List<SledProjection.Outcome> freshOut = new ArrayList<>();
            for (int i = 0; i < k; i++) {
                drive(original, st.versions.get(i), st.payloads.get(i));
                freshOut.addAll(drive(fresh, st.versions.get(i), st.payloads.get(i)));
            }
            String atK = state(original);
            SledProjection fork = original.copy();
            assertEquals(atK, state(fork), "a copy starts in its original's state (k=" + k + ")");
            List<SledProjection.Outcome> forkOut = new ArrayList<>();
            for (int i = k; i < n; i++) {
                forkOut.addAll(drive(fork, st.versions.get(i), st.payloads.get(i)));
            }
            assertEquals(atK, state(original), "folding into the copy never moves the original (k=" + k + ")");
            for (int i = k; i < n; i++) {
                originalOut.addAll(drive(original, st.versions.get(i), st.payloads.get(i)));
                drive(fresh, st.versions.get(i), st.payloads.get(i));
            }
            assertEquals(state(fresh), state(fork), "the copy ends where a fresh fold ends (k=" + k + ")");
            assertEquals(state(fresh), state(original), "k=" + k);
            assertEquals(originalOut, forkOut, "the copy says what its original says (k=" + k + ")");
        }
    }

    @Test
    void theSessionOfJobRequestsIsRememberedUpToItsBoundAndAStopOfAForgottenOneIsNotHonoured() {
        SledProjection p = new SledProjection(ME, Signers.TRUST);
        Version v = Version.ZERO.tick(Id.ONE);
        p.apply(v, START);
        // A later session supersedes S: S stays known (its starter too), its requests need no check.
        SessionId later = SessionIds.compute("p:b", NONCE, new byte[] {9});
        v = v.tick(Id.ONE);
        p.apply(v, new Message.SessionStart(later, "p:b", NONCE, new byte[] {9}, "op2"));
        JobId[] ids = new JobId[SledProjection.MAX_JOB_SESSIONS + 1];
        for (int i = 0; i < ids.length; i++) {
            byte[] b = new byte[11];
            ByteBuffer.wrap(b).putInt(i + 1);
            ids[i] = new JobId(b);
            v = v.tick(Id.ONE);
            p.apply(v, new Message.JobStart(Jobs.unsigned(new JobRequest(S, ids[i], "true", "7", false))));
            if (i == ids.length - 2) {
                assertTrue(p.mayStop(new Message.JobStop(ids[0], "op")), "exactly the bound: the first is remembered");
            }
        }
        assertFalse(p.mayStop(new Message.JobStop(ids[0], "op")), "one more: the oldest is forgotten");
        assertTrue(p.mayStop(new Message.JobStop(ids[1], "op")));
        assertFalse(p.mayStop(new Message.JobStop(ids[1], "op2")), "only the starter of the job's session");
    }

    private static Version gossipVersion() {
        return Version.ZERO.tick(Id.ONE);
    }

    // ---- Issue 21: requests that arrive before their session's start. ----

    @Test
    void aBurnThatArrivesBeforeItsSessionsStartIsAppliedWhenTheStartArrives() {
        SignedJob[] jobs = chain("*", "*");
        SledProjection p = new Stream().add(new Message.JobSkip(S, jobs[0].request().job(), "op")).add(START)
                .add(new Message.JobStart(jobs[0])).fold();
        assertEquals(Optional.empty(), p.chain().orElseThrow().atHead(),
                "the burnt first position never reaches the head");
        assertEquals(Chain.afterBurn(jobs[0].request().job()), p.chain().orElseThrow().head());
        // A burn held early by someone other than the starter is not applied.
        SledProjection q = new Stream().add(new Message.JobSkip(S, jobs[0].request().job(), "intruder")).add(START)
                .add(new Message.JobStart(jobs[0])).fold();
        assertEquals(Optional.of(jobs[0]), q.chain().orElseThrow().atHead());
    }

    @Test
    void aStopThatArrivesBeforeItsSessionsStartEndsTheSessionWhenTheStartArrives() {
        SledProjection p = new Stream().add(new Message.SessionStop(S, "op")).add(START).fold();
        assertEquals(Optional.empty(), p.sessions().active(), "stopped as soon as it started");
    }

    @Test
    void aRequestHeldForAStartThatIsNeverActivatedIsReleasedAsEnded() {
        // S2 is started while S is active, then S's start arrives again late: S2 supersedes it.
        SessionId s2 = SessionIds.compute("p:b", NONCE, new byte[] {2});
        SignedJob early = Jobs.onTargets(Signers.KEY::sign, s2, "*")[0];
        Stream st = new Stream().add(START).add(new Message.SessionStart(s2, "p:b", NONCE, new byte[] {2}, "op2"));
        SledProjection p = st.fold();
        assertEquals(s2, p.sessions().active().orElseThrow().id());
        // A request of a third session, then that session's start as a stale (older) message.
        SessionId s3 = SessionIds.compute("p:c", NONCE, new byte[] {3});
        SignedJob held = Jobs.onTargets(Signers.KEY::sign, s3, "*")[0];
        p.apply(st.v.tick(Id.ONE), MessageCodec.encode(new Message.JobStart(held)));
        List<SledProjection.Outcome> out = p.apply(Version.ZERO.tick(Id.ONE.fork()[1]), MessageCodec.encode(
                new Message.SessionStart(s3, "p:c", NONCE, new byte[] {3}, "op3")));
        assertEquals(s2, p.sessions().active().orElseThrow().id(), "a stale start is never activated");
        assertTrue(out.stream().noneMatch(o -> o instanceof SledProjection.Outcome.AtHead), out.toString());
        assertEquals(0, p.faults());
        org.junit.jupiter.api.Assertions.assertNotNull(early);
    }

    @Test
    void passingTheHeadOffersTheNextJobForThisSledAndWalksPastOthers() {
        SignedJob[] jobs = chain("*", "p:other", "*");
        Stream st = new Stream().add(START);
        for (SignedJob j : jobs) {
            st.add(new Message.JobStart(j));
        }
        SledProjection p = st.fold();
        assertEquals(List.of(new SledProjection.Outcome.AtHead(jobs[2])),
                p.passHead(jobs[0].request().job(), ChainProjection.Passed.RAN),
                "past the other sled's job to this sled's next");
    }

    @Test
    void zombiesAreListedInOneOrder() {
        SledProjection p = new SledProjection(ME, Signers.TRUST);
        Version v = Version.ZERO;
        List<JobId> ids = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            byte[] b = new byte[11];
            b[0] = (byte) (60 - 10 * i); // inserted in descending byte order
            ids.add(new JobId(b));
            v = v.tick(Id.ONE);
            p.apply(v, MessageCodec.encode(new Message.JobStarted(ME.baseboard(), ids.get(i))));
        }
        List<JobId> sorted = new ArrayList<>(ids);
        Collections.reverse(sorted);
        assertEquals(sorted, p.zombies(v), "ascending by bytes, whatever the order they started in");
    }

    @Test
    void aCopyKeepsAnnouncementsResumptionsAndTheSessionsOfRequests() {
        SignedJob[] jobs = chain("*", "*");
        SledProjection p = new SledProjection(ME, Signers.TRUST);
        Version v = Version.ZERO.tick(Id.ONE);
        p.apply(v, MessageCodec.encode(new Message.Announcement("p:x", "1", 4)));
        p.resume(new SledProjection.Resumption(S, jobs[0].request().job(), jobs[0].request().successor()));
        SledProjection fork = p.copy();
        assertTrue(fork.announcements().containsKey("p:x"), "announcements");
        fork.apply(v = v.tick(Id.ONE), MessageCodec.encode(START));
        assertEquals(jobs[0].request().successor(), fork.chain().orElseThrow().head(), "the resumption");
        // The session of a request, needed to honour its starter's stop, survives a copy.
        fork.apply(v = v.tick(Id.ONE), MessageCodec.encode(new Message.JobStart(jobs[1])));
        SledProjection again = fork.copy();
        assertTrue(again.mayStop(new Message.JobStop(jobs[1].request().job(), "op")));
        assertFalse(again.mayStop(new Message.JobStop(jobs[1].request().job(), "someone else")));
    }
}
