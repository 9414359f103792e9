package sush.pipeline.sled;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import reactor.core.scheduler.Schedulers;

import sush.gossip.Entropy;
import sush.pipeline.Rack;
import sush.pipeline.journal.Journal;
import sush.pipeline.journal.JournalRecord;
import sush.projections.id.JobId;
import sush.projections.job.SignedGrant;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;

/**
 * What a sled tells again when it comes back to a universe that lacks its statuses
 * (at-most-once.md sections 6 and 7, issue 37's mutation run): this life's running and ended
 * jobs once each after replay, and the record's committed job's ending, journalled.
 */
class ReannouncementTest {
    private static JobId id(SignedJob j) {
        return j.request().job();
    }

    private static long started(SledHarness h, JobId job) {
        return h.gossiped(Message.JobStarted.class).stream().filter(m -> m.job().equals(job)).count();
    }

    private static List<Message.JobStopped> stopped(SledHarness h, JobId job) {
        return h.gossiped(Message.JobStopped.class).stream().filter(m -> m.job().equals(job)).toList();
    }

    /** Session 3's start and {@code jobs} sent in universes 2 and 3; the sled boots into 3. */
    private static SledHarness inThreeKnownInTwo(List<SignedJob> jobs) throws Exception {
        SledHarness h = new SledHarness().provision();
        for (int n : new int[] {2, 3}) {
            h.operator0(n, Rack.start(3));
            jobs.forEach(j -> h.operator0(n, new Message.JobStart(j)));
        }
        return h.boot(3);
    }

    @Test
    void aJobStillRunningIsToldStartedAgainOnceReplayOfAUniverseLackingItsStartIsOver() throws Exception {
        List<SignedJob> c = Rack.jobs(Rack.session(3), 1, "c", "*");
        SledHarness h = inThreeKnownInTwo(c);
        h.sync();
        assertEquals(1, h.ledger.size());
        assertEquals(1, started(h, id(c.get(0))));
        h.migrate(2); // its request is there, its start is not
        assertEquals(2, started(h, id(c.get(0))), "told once, after replay");
        assertTrue(stopped(h, id(c.get(0))).isEmpty(), "still running: no ending to tell");
    }

    @Test
    void anEndedJobIsToldStartedAndEndedAgainOnceInAUniverseLackingBoth() throws Exception {
        List<SignedJob> c = Rack.jobs(Rack.session(3), 2, "c", "*");
        SledHarness h = inThreeKnownInTwo(c);
        h.sync();
        h.launcher.end(id(c.get(0)), 5);
        h.settle();
        h.launcher.end(id(c.get(1)), 0);
        h.settle();
        assertEquals(2, h.ledger.size());
        // The record names c1 (adjudication tells it); c0 is told by this life's endings alone.
        h.migrate(2);
        assertEquals(2, started(h, id(c.get(0))));
        List<Message.JobStopped> ends = stopped(h, id(c.get(0)));
        assertEquals(2, ends.size(), ends.toString());
        assertEquals(5, ends.get(1).exitCode());
    }

    @Test
    void aRequestArrivingAgainBeforeTheSledsOwnStatusesAreBackTellsNothingMore() throws Exception {
        List<SignedJob> c = Rack.jobs(Rack.session(3), 2, "c", "*");
        List<Runnable> held = new ArrayList<>();
        SledHarness h = new SledHarness().provision();
        h.ingress = Schedulers.fromExecutor(held::add);
        for (int n : new int[] {2, 3}) {
            h.operator0(n, Rack.start(3));
            c.forEach(j -> h.operator0(n, new Message.JobStart(j)));
        }
        h.boot(3);
        h.runHeld(held);
        h.sync();
        h.runHeld(held);
        h.launcher.end(id(c.get(0)), 5);
        h.settle();
        h.runHeld(held);
        h.launcher.end(id(c.get(1)), 0);
        h.settle();
        h.runHeld(held);
        assertEquals(2, h.ledger.size());
        long starts = started(h, id(c.get(0)));
        int ends = stopped(h, id(c.get(0))).size();
        h.migrate(2);
        // A client re-sends c0's request: it arrives live, after replay, before the statuses told at its end.
        h.operator(new Message.JobStart(c.get(0)));
        h.sync();
        h.runHeld(held);
        assertEquals(starts + 1, started(h, id(c.get(0))), "told once in the entry");
        assertEquals(ends + 1, stopped(h, id(c.get(0))).size());
    }

    @Test
    void theRecordsCommittedJobEndedInAUniverseTheSledLeftIsToldAndJournalled(@TempDir Path dir) throws Exception {
        SledHarness h = new SledHarness().provisionSigned(0);
        h.journal = Optional.of(Journal.open(dir, Optional.empty(), Entropy.seeded(7)));
        SignedGrant g = Rack.grant(100, 1);
        List<SignedJob> jobs = Rack.jobs(g.grant().session(), 1, "a", "*");
        JobId j0 = id(jobs.get(0));
        h.boot(1);
        h.operator(new Message.SessionGrant(g));
        h.operator(new Message.JobStart(jobs.get(0)));
        h.sync();
        h.launcher.end(j0, 3);
        h.settle();
        assertEquals(1, started(h, j0));
        h.migrate(2); // the session travels; the job's statuses do not
        assertEquals(2, started(h, j0));
        List<Message.JobStopped> ends = stopped(h, j0);
        assertEquals(2, ends.size(), ends.toString());
        assertEquals(3, ends.get(1).exitCode());
        h.journal.get().close();
        List<String> endings = new ArrayList<>();
        Journal.read(dir, Optional.empty(), r -> {
            if (r instanceof JournalRecord.Decision d && d.kind() == JournalRecord.Decision.Kind.ENDING) {
                endings.add(d.subject() + " " + d.detail());
            }
        });
        assertEquals(j0.codephrase() + " told again in this universe", endings.get(endings.size() - 1), endings.toString());
    }
}
