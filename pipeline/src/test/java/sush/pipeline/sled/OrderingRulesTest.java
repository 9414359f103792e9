package sush.pipeline.sled;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.gossip.Entropy;
import sush.gossip.clock.Version;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.Outcome;
import sush.locker.record.RecordFormat;
import sush.locker.record.SignedRecord;
import sush.locker.store.Locker;
import sush.locker.store.MemorySlot;
import sush.pipeline.Rack;
import sush.pipeline.journal.Journal;
import sush.pipeline.journal.JournalRecord;
import sush.projections.fold.JobStatus;
import sush.projections.id.JobId;
import sush.projections.job.SignedGrant;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;

/**
 * What each ordering's rules decide beyond admission (issue 37's mutation run): whether an ending
 * changes the record, the executed join of the first commit above a floor, what a signed sled says
 * and re-gossips as it enters, and the stop that cancels a signed job before it runs.
 */
class OrderingRulesTest {
    private static final String ME = Rack.ME.baseboard();
    private static final Outcome ENDED = Outcome.ended(JobStatus.STOPPED, 0, "");

    private static JobId id(SignedJob j) {
        return j.request().job();
    }

    private static List<MemorySlot> slots() {
        return List.of(new MemorySlot("a"), new MemorySlot("b"));
    }

    @Test
    void anEndingOfAJobTheRecordDoesNotNameChangesNoRecord() throws Exception {
        List<MemorySlot> causalSlots = slots();
        Locker.provision(RecordFormat.CAUSAL, causalSlots, Entropy.seeded(0), BoundaryRecord.genesis(ME));
        try (Locker<BoundaryRecord> causal = Locker.open(RecordFormat.CAUSAL, ME, causalSlots, Entropy.seeded(1))) {
            assertFalse(new CausalRules(causal, ME).endedRecordChanges(id(Rack.jobs(Rack.session(1), 1, "x", "*")
                    .get(0)), ENDED));
        }
        List<MemorySlot> signedSlots = slots();
        Locker.provision(RecordFormat.SIGNED, signedSlots, Entropy.seeded(0), SignedRecord.provisioned(ME, 0));
        try (Locker<SignedRecord> signed = Locker.open(RecordFormat.SIGNED, ME, signedSlots, Entropy.seeded(1))) {
            assertFalse(new SignedRules(signed, ME, null).endedRecordChanges(id(Rack.jobs(Rack.session(1), 1, "x",
                    "*").get(0)), ENDED));
        }
    }

    @Test
    void theFirstCommitAboveAHopsFloorForgetsTheOtherSidesSessionInItsExecutedJoin() throws Exception {
        SledHarness h = new SledHarness().provision();
        SignedJob a = h.hopToAConcurrentSide(); // a hop: a floor is raised, B is refused
        List<SignedJob> d = Rack.jobs(Rack.session(4), 2, "d", "*");
        h.operator(Rack.start(4));
        d.forEach(j -> h.operator(new Message.JobStart(j)));
        h.sync();
        Version start = h.sled.view().block().fold().activeSession().orElseThrow().start();
        assertEquals(start, h.locker.newest().orElseThrow().executed(),
                "the first commit above the floor resets the executed join to the session's start");
        h.launcher.end(id(d.get(0)), 0);
        h.settle();
        assertEquals(List.of(id(a), id(d.get(0)), id(d.get(1))), h.ledger.stream().map(l -> l.job()).toList());
        assertEquals(start, h.locker.newest().orElseThrow().executed(), "the next commit joins the same start");
    }

    @Test
    void anUnprovisionedSignedSledJournalsItsError(@TempDir Path dir) throws Exception {
        SledHarness h = new SledHarness().signedUnprovisioned();
        h.journal = Optional.of(Journal.open(dir, Optional.empty(), Entropy.seeded(8)));
        h.boot(1);
        h.journal.get().close();
        List<String> errors = new ArrayList<>();
        Journal.read(dir, Optional.empty(), r -> {
            if (r instanceof JournalRecord.Decision x && x.kind() == JournalRecord.Decision.Kind.ERROR) {
                errors.add(x.detail());
            }
        });
        assertEquals(List.of("Unprovisioned"), errors);
    }

    @Test
    void aMigrationCarriesARunningJobsRequestAndItsSessionsGrantOnce() throws Exception {
        SledHarness h = new SledHarness().provisionSigned(0);
        SignedGrant g = Rack.grant(100, 1);
        List<SignedJob> jobs = Rack.jobs(g.grant().session(), 1, "a", "*");
        h.boot(1);
        h.operator(new Message.SessionGrant(g));
        h.operator(new Message.JobStart(jobs.get(0)));
        h.sync();
        assertEquals(1, h.ledger.size());
        h.migrate(2); // still running
        assertEquals(1, h.gossiped(Message.SessionGrant.class).stream().filter(m -> m.grant().equals(g)).count(),
                "the carried grant is the running job's: gossiped once");
        assertEquals(List.of(jobs.get(0)), h.gossiped(Message.JobStart.class).stream().map(m -> m.job()).toList());
    }

    @Test
    void aSignedStopOfAJobAheadOfTheHeadCancelsItAtOnce() throws Exception {
        SledHarness h = new SledHarness().provisionSigned(0);
        SignedGrant g = Rack.grant(100, 1);
        List<SignedJob> jobs = Rack.jobs(g.grant().session(), 3, "a", "*");
        h.boot(1);
        h.operator(new Message.SessionGrant(g));
        jobs.forEach(j -> h.operator(new Message.JobStart(j)));
        h.sync();
        assertEquals(1, h.ledger.size(), "job 1 waits for job 0, job 2 behind it");
        h.operator(new Message.JobStop(id(jobs.get(2)), "operator"));
        h.sync();
        assertTrue(h.gossiped(Message.JobCancelled.class).contains(new Message.JobCancelled(ME, id(jobs.get(2)))),
                "cancelled while job 0 still runs: " + h.gossiped());
        h.launcher.end(id(jobs.get(0)), 0);
        h.settle();
        h.launcher.end(id(jobs.get(1)), 0);
        h.settle();
        assertEquals(List.of(id(jobs.get(0)), id(jobs.get(1))), h.ledger.stream().map(l -> l.job()).toList(),
                "job 2 never launched");
    }
}
