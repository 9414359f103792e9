package sush.locker.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;

import org.junit.jupiter.api.Test;

import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.projections.fixtures.Jobs;
import sush.projections.fixtures.Signers;
import sush.projections.fold.ChainProjection;
import sush.projections.fold.SledProjection;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.targets.Sled;

/**
 * The head rules' answers to a starter's stop at every point of a job's life (issue 34,
 * ordered-sessions.md section 9): killed while it runs, kept through its commit and applied at
 * the launch, cancelled only where this sled provably never started it, kept until its place or
 * its request is known, never a stranger's.
 */
class HeadRulesTest {
    private static final Sled ME = new Sled("913-0000019:HEAD0", 0);
    private static final SessionId S = SessionIds.compute(ME.baseboard(), new byte[SessionIds.NONCE_BYTES],
            new byte[] {3});
    private static final Version V = Version.ZERO.tick(Id.ONE);
    private final SledProjection fold = new SledProjection(ME, Signers.UNCHECKED);
    private final HeadRules head = new HeadRules(ME);

    HeadRulesTest() {
        head.enter(fold);
    }

    private static SignedJob[] chain(int n) {
        return Jobs.chain(Jobs::unsigned, S, n, "job", "0", false).toArray(new SignedJob[0]);
    }

    private void start() {
        fold.apply(V, new Message.SessionStart(S, ME.baseboard(), new byte[SessionIds.NONCE_BYTES], new byte[] {3},
                "operator"));
    }

    private static Message.JobStop stop(SignedJob j, String by) {
        return new Message.JobStop(j.request().job(), by);
    }

    @Test
    void aRunningJobIsKilledAndACommittedOneKeepsItsStopForItsLaunch() {
        start();
        SignedJob[] j = chain(2);
        fold.apply(V, new Message.JobStart(j[0]));
        fold.apply(V, new Message.JobStart(j[1]));
        head.committed(j[0].request().job());
        fold.passHead(j[0].request().job(), ChainProjection.Passed.RAN);
        assertEquals(HeadRules.OnStop.KEPT_FOR_LAUNCH, head.onStop(stop(j[0], "operator"), x -> true));
        assertFalse(head.launch(j[0].request().job()), "the stop kept through the commit: never spawned");
        head.committed(j[1].request().job());
        assertTrue(head.launch(j[1].request().job()));
        assertEquals(HeadRules.OnStop.KILL, head.onStop(stop(j[1], "operator"), x -> true));
        assertEquals(HeadRules.OnStop.NONE, head.onStop(stop(j[1], "stranger"), x -> true), "only the starter stops");
    }

    @Test
    void aJobAheadOfTheHeadIsCancelledOnlyWhereAdmissionWouldRunIt() {
        start();
        SignedJob[] j = chain(3);
        for (SignedJob x : j) {
            fold.apply(V, new Message.JobStart(x));
        }
        assertEquals(HeadRules.OnStop.KEPT, head.onStop(stop(j[2], "operator"), x -> false),
                "admission would refuse it: not provably never started, so no Cancelled");
        assertEquals(HeadRules.OnStop.CANCEL, head.onStop(stop(j[1], "operator"), x -> true));
        assertEquals(HeadRules.AtHead.CANCELLED, head.atHead(j[1]));
    }

    @Test
    void afterAResumptionAJobInAHoleKeepsItsStopAndIsNeverSaidCancelled() {
        // Jobs 0 to 2 ran in an earlier life; the record resumes the head after job 2. Job 1 is
        // sent again alone: nothing links it to the head, so it is neither ahead nor behind.
        SignedJob[] j = chain(3);
        fold.resume(new SledProjection.Resumption(S, j[2].request().job(), j[2].request().successor()));
        start();
        fold.apply(V, new Message.JobStart(j[1]));
        assertEquals(HeadRules.OnStop.KEPT, head.onStop(stop(j[1], "operator"), x -> true));
        assertTrue(head.stopKept(j[1].request().job()));
        // Job 2 arrives: job 1 now leads to the head; it ran or may have run.
        fold.apply(V, new Message.JobStart(j[2]));
        assertEquals(HeadRules.OnStop.BEHIND_HEAD, head.onStop(stop(j[1], "operator"), x -> true));
    }

    @Test
    void aStopThatOutranItsRequestWaitsForIt() {
        start();
        SignedJob[] j = chain(1);
        assertEquals(HeadRules.OnStop.KEPT, head.onStop(stop(j[0], "operator"), x -> true));
        fold.apply(V, new Message.JobStart(j[0]));
        Optional<Message.JobStop> kept = head.stopFor(j[0].request().job());
        assertTrue(kept.isPresent());
        assertEquals(HeadRules.OnStop.CANCEL, head.onStop(kept.get(), x -> true));
        assertTrue(head.stopFor(j[0].request().job()).isEmpty(), "applied once");
    }

    @Test
    void aKeptStopAtTheHeadCancelsWhatAdmissionAdmitsAndDoesNotWaitForThePreviousJob() {
        start();
        SignedJob[] j = chain(2);
        fold.apply(V, new Message.JobStart(j[0]));
        head.committed(j[0].request().job());
        fold.passHead(j[0].request().job(), ChainProjection.Passed.RAN);
        head.launch(j[0].request().job());
        // Job 1 is sequential: it would wait for job 0, still running. Its stop comes first.
        assertEquals(HeadRules.OnStop.KEPT, head.onStop(new Message.JobStop(j[1].request().job(), "operator"),
                x -> false));
        fold.apply(V, new Message.JobStart(j[1]));
        assertEquals(HeadRules.OnStop.KEPT, head.onStop(head.stopFor(j[1].request().job()).orElseThrow(),
                x -> false), "admission would not run it now: kept until it reaches the head");
        assertEquals(HeadRules.AtHead.SCREEN, head.atHead(j[1]), "a stopped job is screened at once");
        assertEquals(HeadRules.Admitted.CANCEL, head.admitted(j[1].request().job()));
    }

    @Test
    void aConflictReportIsNotASignThatTheJobRanHere() {
        start();
        SignedJob[] j = chain(1);
        fold.apply(V, new Message.JobConflict(ME.baseboard(), j[0].request().job(), j[0].request().successor(),
                Chain.afterBurn(j[0].request().job())));
        fold.apply(V, new Message.JobStart(j[0]));
        assertTrue(head.ownStatus(j[0].request().job()).isEmpty());
        assertEquals(HeadRules.AtHead.SCREEN, head.atHead(j[0]));
    }

    /** Issue 37: the at-most-once invariant of a life is asserted, never thrown away. */
    @Test
    void aSecondCommitOrLaunchOfAJobInOneLifeIsRefused() {
        HeadRules head = new HeadRules(ME);
        JobId job = Chain.first(S);
        head.committed(job);
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> head.committed(job));
        assertTrue(head.launch(job));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> head.launch(job));
    }
}
