package sush.pipeline.sled;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.gossip.Entropy;
import sush.pipeline.Rack;
import sush.pipeline.journal.Journal;
import sush.pipeline.journal.JournalRecord;
import sush.projections.fixtures.Jobs;
import sush.projections.fixtures.Signers;
import sush.projections.fold.ChainProjection;
import sush.projections.id.JobId;
import sush.projections.job.JobMode;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;

/**
 * What the head of the chain does and leaves behind where issue 37's mutation run found it
 * unchecked: which stops cancel at once and which are kept for the head, the report of a target no
 * sled parses, conflicts ahead of the head, one-sled modes, requests released behind a resumed
 * head, and the journal's verdicts for each. Each test pins the messages, events and journal
 * records a decision makes.
 */
class HeadEffectsTest {
    private static JobId id(SignedJob j) {
        return j.request().job();
    }

    private static List<JobId> ledger(SledHarness h) {
        return h.ledger.stream().map(l -> l.job()).toList();
    }

    private static List<JobId> cancelled(SledHarness h) {
        return h.gossiped(Message.JobCancelled.class).stream().map(Message.JobCancelled::job).toList();
    }

    /** The journal's decisions of {@code job}, as {@code KIND detail} lines in order. */
    private static List<String> decisions(Path dir, JobId job) throws Exception {
        List<String> out = new ArrayList<>();
        Journal.read(dir, Optional.empty(), r -> {
            if (r instanceof JournalRecord.Decision && ((JournalRecord.Decision) r).subject().equals(job.codephrase())) {
                out.add(((JournalRecord.Decision) r).kind() + " " + ((JournalRecord.Decision) r).detail());
            }
        });
        return out;
    }

    /** The journal's passes of {@code job}, in order. */
    private static List<ChainProjection.Passed> passes(Path dir, JobId job) throws Exception {
        List<ChainProjection.Passed> out = new ArrayList<>();
        Journal.read(dir, Optional.empty(), r -> {
            if (r instanceof JournalRecord.Passed && ((JournalRecord.Passed) r).job().equals(job)) {
                out.add(((JournalRecord.Passed) r).how());
            }
        });
        return out;
    }

    /** j0 runs (sequential, on every sled), j1 waits at the head for it, j2 stands ahead of the head. */
    private static List<SignedJob> runFirstOfThree(SledHarness h, String command) {
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 3, command, "*");
        h.operator(Rack.start(1));
        jobs.forEach(j -> h.operator(new Message.JobStart(j)));
        h.sync();
        assertEquals(List.of(id(jobs.get(0))), ledger(h));
        return jobs;
    }

    @Test
    void aStopAheadOfTheHeadIsNotCancelledAtOnceOnceTheSledFailedClosed() throws Exception {
        SledHarness h = new SledHarness().provision();
        boolean[] armed = new boolean[1];
        h.beforeStart = sled -> sled.probe(stage -> {
            if (armed[0] && stage.equals("delivery")) {
                armed[0] = false;
                throw new IllegalStateException("injected");
            }
        });
        h.boot(1);
        List<SignedJob> jobs = runFirstOfThree(h, "f");
        armed[0] = true;
        h.rack().send(new byte[] {(byte) 0xff, 1, 2});
        h.sync();
        assertTrue(h.sled.failure().isPresent());
        h.operator(new Message.JobStop(id(jobs.get(2)), "operator"));
        h.sync();
        assertEquals(List.of(), cancelled(h), "no admission after the failure: nothing is provably never started");
    }

    @Test
    void aStopAheadOfTheHeadIsNotCancelledAtOnceWhileAdmissionWouldRefuseIt() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        List<SignedJob> jobs = runFirstOfThree(h, "u");
        h.a.setContents(Optional.of(new byte[] {1, 2, 3}));
        assertTrue(h.locker.verify().isPresent(), "the store is untrusted from now on");
        h.operator(new Message.JobStop(id(jobs.get(2)), "operator"));
        h.sync();
        assertEquals(List.of(), cancelled(h), "kept: an untrusted store admits nothing");
        assertTrue(h.sled.failure().isEmpty());
    }

    @Test
    void aStopBeyondAGapIsKeptAndCancelsTheJobWhenItReachesTheHead(@TempDir Path dir) throws Exception {
        SledHarness h = new SledHarness().provision();
        h.journal = Optional.of(Journal.open(dir, Optional.empty(), Entropy.seeded(11)));
        h.boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 3, "g", "*");
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(jobs.get(1)));
        h.operator(new Message.JobStart(jobs.get(2)));
        h.sync();
        h.operator(new Message.JobStop(id(jobs.get(1)), "operator"));
        h.sync();
        assertEquals(List.of(), cancelled(h), "j1's place is not known yet: the stop is kept");
        h.operator(new Message.JobStart(jobs.get(0)));
        h.sync();
        assertEquals(List.of(id(jobs.get(1))), cancelled(h), "admitted at the head after j0 started: cancelled");
        h.launcher.end(id(jobs.get(0)), 0);
        h.settle();
        assertEquals(List.of(id(jobs.get(0)), id(jobs.get(2))), ledger(h), "j1 was passed: j2 runs after j0");
        h.journal.get().close();
        assertEquals(List.of(ChainProjection.Passed.NEVER_RAN), passes(dir, id(jobs.get(1))));
    }

    @Test
    void aTargetNoSledParsesIsReportedOnceAndNeverForAnotherRequestAtItsPosition() throws Exception {
        SledHarness h = new SledHarness().provision().boot(1);
        SignedJob other = Jobs.at(Signers.KEY, Rack.session(1), sush.projections.id.Chain.first(Rack.session(1)), "o",
                "7", false);
        SignedJob unparsable = Jobs.after(Signers.KEY, other, "p", "7,,8", false);
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(other));
        h.operator(new Message.JobStart(unparsable));
        h.sync();
        assertEquals(List.of(id(unparsable)), h.gossiped(Message.JobErrored.class).stream().map(Message.JobErrored::job)
                .toList(), "reported as its request arrives");
        h.operator(new Message.JobStart(unparsable)); // re-sent: not reported again
        h.sync();
        List<Message.JobErrored> errors = h.gossiped(Message.JobErrored.class);
        assertEquals(1, errors.size(), errors.toString());
        assertEquals(id(unparsable), errors.get(0).job());
        assertEquals(Message.JobError.INVALID_JOB, errors.get(0).kind());
        assertTrue(errors.get(0).detail().startsWith("target: "), errors.get(0).detail());
        // Another request at the first position (behind the head now), naming a target no sled
        // parses: refused by the chain, so no sled reports it.
        SignedJob refused = Jobs.at(Signers.KEY, Rack.session(1), id(other), "q", "7,,8", false);
        h.operator(new Message.JobStart(refused));
        h.sync();
        assertEquals(1, h.gossiped(Message.JobErrored.class).size(), h.gossiped().toString());
    }

    @Test
    void aConflictAheadOfTheHeadIsJournalledAndGossipedOnce(@TempDir Path dir) throws Exception {
        SledHarness h = new SledHarness().provision();
        h.journal = Optional.of(Journal.open(dir, Optional.empty(), Entropy.seeded(12)));
        h.boot(1);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 2, "c", "*");
        h.operator(Rack.start(1));
        jobs.forEach(j -> h.operator(new Message.JobStart(j)));
        h.sync(); // j0 runs, j1 waits at the head
        SignedJob second = Jobs.at(Signers.KEY, Rack.session(1), id(jobs.get(1)), "another", "*", false);
        h.operator(new Message.JobStart(second));
        h.sync();
        List<Message.JobConflict> conflicts = h.gossiped(Message.JobConflict.class);
        assertEquals(1, conflicts.size(), h.gossiped().toString());
        assertEquals(id(jobs.get(1)), conflicts.get(0).job());
        h.journal.get().close();
        assertTrue(decisions(dir, id(jobs.get(1))).stream().anyMatch(d -> d.startsWith("VERDICT Conflict: ")),
                decisions(dir, id(jobs.get(1))).toString());
    }

    @Test
    void aTerminalOrStreamRunsOnlyWhereItsTargetNamesOneSled(@TempDir Path dir) throws Exception {
        SledHarness h = new SledHarness().provision();
        h.journal = Optional.of(Journal.open(dir, Optional.empty(), Entropy.seeded(13)));
        h.boot(1);
        SignedJob everywhere = Jobs.at(Signers.KEY, Rack.session(1), sush.projections.id.Chain.first(Rack.session(1)),
                "s", "*", JobMode.STREAMING);
        SignedJob here = Jobs.at(Signers.KEY, Rack.session(1), everywhere.request().successor(), "t", "0",
                JobMode.INTERACTIVE);
        SignedJob recorded = Jobs.after(Signers.KEY, here, "r", "*", false);
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(everywhere));
        h.operator(new Message.JobStart(here));
        h.operator(new Message.JobStart(recorded));
        h.sync();
        h.launcher.end(id(here), 0);
        h.settle();
        assertEquals(List.of(id(here), id(recorded)), ledger(h), "the one-sled terminal runs, then the recorded job");
        List<Message.JobErrored> errors = h.gossiped(Message.JobErrored.class);
        assertEquals(List.of(id(everywhere)), errors.stream().map(Message.JobErrored::job).toList());
        assertEquals(Message.JobError.INVALID_JOB, errors.get(0).kind());
        h.journal.get().close();
        assertEquals(List.of("VERDICT streaming jobs target exactly one sled, not *"), decisions(dir, id(everywhere)));
        assertEquals(List.of(ChainProjection.Passed.MAY_HAVE_RUN), passes(dir, id(everywhere)));
    }

    @Test
    void aStopKeptForTheLaunchIsJournalled(@TempDir Path dir) throws Exception {
        SledHarness h = new SledHarness().provision();
        h.journal = Optional.of(Journal.open(dir, Optional.empty(), Entropy.seeded(14)));
        List<Runnable> held = new ArrayList<>();
        h.bootHoldingWrites(held);
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "w", "*");
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(jobs.get(0)));
        h.sync();
        h.operator(new Message.JobStop(id(jobs.get(0)), "operator"));
        h.sync();
        h.journal.get().close();
        assertTrue(decisions(dir, id(jobs.get(0))).contains(
                "VERDICT stop kept until the commit lands: it will not be launched"), decisions(dir, id(jobs.get(0))).toString());
    }

    @Test
    void anAlreadyHandledJobAtTheHeadIsJournalledWithItsOwnStatus(@TempDir Path dir) throws Exception {
        SledHarness h = new SledHarness().provision();
        h.journal = Optional.of(Journal.open(dir, Optional.empty(), Entropy.seeded(15)));
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 1, "a", "*");
        h.operator0(1, Rack.start(1));
        // An earlier life's Started reached the rack before the request's copy this life replays
        // (its record is gone: genesis slots resume nothing).
        h.operator0(1, new Message.JobStarted(Rack.ME.baseboard(), id(jobs.get(0))));
        h.operator0(1, new Message.JobStart(jobs.get(0)));
        h.boot(1);
        h.journal.get().close();
        assertTrue(decisions(dir, id(jobs.get(0))).contains("VERDICT AlreadyHandled: own status STARTED"),
                decisions(dir, id(jobs.get(0))).toString());
        assertEquals(List.of(), ledger(h), "never run again");
    }
}
