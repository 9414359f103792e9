package sush.projections.fold;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;
import sush.projections.id.JobId;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;

class StatusProjectionTest {
    private static final String SLED = "p:s";
    private static final JobId JOB = new JobId(new byte[11]);

    private static Map<JobStatus, Message> oneOfEach() {
        return Map.of(
                JobStatus.STARTED, new Message.JobStarted(SLED, JOB),
                JobStatus.INTERRUPTED, new Message.JobErrored(SLED, JOB, Message.JobError.INTERRUPTED, "crash", 0),
                JobStatus.SKIPPED, new Message.JobSkipped(SLED, JOB, Message.SkipReason.BELOW_FLOOR),
                JobStatus.ERROR, new Message.JobErrored(SLED, JOB, Message.JobError.KILLED, "stop", 9),
                JobStatus.STOPPED, new Message.JobStopped(SLED, JOB, 0, null, 0, new byte[32], 0, new byte[32]));
    }

    @Test
    void everyPrecedencePairEndsOnTheHigherStatusInBothOrders() {
        Map<JobStatus, Message> events = oneOfEach();
        for (JobStatus a : events.keySet()) {
            for (JobStatus b : events.keySet()) {
                JobStatus expected = a.outranks(b) ? a : b;
                StatusProjection p = new StatusProjection();
                p.apply(events.get(a));
                p.apply(events.get(b));
                assertEquals(expected, p.status(JOB, SLED).orElseThrow().status(), a + " then " + b);
            }
        }
    }

    @Test
    void equalRanksSettleTheSameWhateverTheOrder() {
        List<Message> errors = new ArrayList<>(List.of(
                new Message.JobErrored(SLED, JOB, Message.JobError.KILLED, "stop", 9),
                new Message.JobErrored(SLED, JOB, Message.JobError.IO, "disk", 0),
                new Message.JobErrored(SLED, JOB, Message.JobError.OUTPUT_LIMIT, "big", 0)));
        Message first = null;
        Random random = new Random(3);
        for (int i = 0; i < 20; i++) {
            Collections.shuffle(errors, random);
            StatusProjection p = new StatusProjection();
            errors.forEach(p::apply);
            Message settled = p.status(JOB, SLED).orElseThrow().message();
            if (first == null) {
                first = settled;
            }
            assertEquals(first, settled);
        }
    }

    @Test
    void theHistoryForgetsTheOldestFinishedJobNeverARunningOne() {
        StatusProjection p = new StatusProjection(2);
        JobId running = new JobId(filled(1));
        JobId done = new JobId(filled(2));
        p.apply(new Message.JobStarted(SLED, running));
        p.apply(new Message.JobSkipped(SLED, done, Message.SkipReason.SUPERSEDED));
        JobId third = new JobId(filled(3));
        p.apply(new Message.JobStarted(SLED, third));
        assertEquals(2, p.size());
        assertTrue(p.statuses(done).isEmpty(), "the finished job was forgotten");
        assertEquals(JobStatus.STARTED, p.status(running, SLED).orElseThrow().status());
        p.apply(new Message.JobStarted(SLED, new JobId(filled(4))));
        assertEquals(1, p.untracked(), "nothing finished to forget: the bound holds");
        assertEquals(2, p.size());
    }

    private static byte[] filled(int v) {
        byte[] b = new byte[11];
        b[10] = (byte) v;
        return b;
    }

    @Test
    void applySaysWhetherTheStatusChangedForEveryKindOfEvent() {
        List<Message> events = List.of(new Message.JobStarted(SLED, JOB),
                new Message.JobStopped(SLED, JOB, 0, null, 0, new byte[32], 0, new byte[32]),
                new Message.JobErrored(SLED, JOB, Message.JobError.KILLED, "stop", 9),
                new Message.JobErrored(SLED, JOB, Message.JobError.INTERRUPTED, "crash", 0),
                new Message.JobSkipped(SLED, JOB, Message.SkipReason.BELOW_FLOOR),
                new Message.JobCancelled(SLED, JOB));
        for (Message e : events) {
            StatusProjection p = new StatusProjection();
            assertTrue(p.apply(e), "a first status: " + e);
            org.junit.jupiter.api.Assertions.assertFalse(p.apply(e), "the same event again changes nothing: " + e);
            assertEquals(List.of(JOB), p.jobs());
        }
        StatusProjection p = new StatusProjection();
        org.junit.jupiter.api.Assertions.assertFalse(p.apply(new Message.JobStop(JOB, "someone")), "not a status");
        assertTrue(p.apply(events.get(1)));
        org.junit.jupiter.api.Assertions.assertFalse(p.apply(events.get(0)), "a lower rank changes nothing");
        // Equal ranks: the smaller encoding wins, in either order, and only it changes the status.
        Message a = new Message.JobStopped(SLED, JOB, 1, null, 0, new byte[32], 0, new byte[32]);
        Message b = new Message.JobStopped(SLED, JOB, 2, null, 0, new byte[32], 0, new byte[32]);
        boolean aFirst = Arrays.compareUnsigned(MessageCodec.encode(a),
                MessageCodec.encode(b)) < 0;
        StatusProjection q = new StatusProjection();
        q.apply(aFirst ? b : a);
        assertTrue(q.apply(aFirst ? a : b), "the smaller one replaces");
        org.junit.jupiter.api.Assertions.assertFalse(q.apply(aFirst ? b : a), "the larger one does not");
    }

    @Test
    void aStatusNeverOutranksItself() {
        for (JobStatus s : JobStatus.values()) {
            org.junit.jupiter.api.Assertions.assertFalse(s.outranks(s), s.toString());
        }
    }

    @Test
    void aFullHistoryOfRunningJobsRefusesANewJobsStatusAndCountsIt() {
        StatusProjection p = new StatusProjection(3);
        for (int i = 0; i < 3; i++) {
            byte[] b = new byte[11];
            b[0] = (byte) i;
            assertTrue(p.apply(new Message.JobStarted(SLED, new JobId(b))));
        }
        byte[] b = new byte[11];
        b[0] = 9;
        org.junit.jupiter.api.Assertions.assertFalse(p.apply(new Message.JobStarted(SLED, new JobId(b))),
                "no room: running jobs are never forgotten");
        assertEquals(1, p.untracked());
        assertEquals(3, p.size());
    }

    // ---- Issue 37: the tests below kill mutants of StatusProjection that survived the suite. ----

    @Test
    void aConflictIsASkipKeptBesideTheStatusesTheSmallerOnePerReporter() {
        Message.JobConflict a = new Message.JobConflict(SLED, JOB, new JobId(filled(5)), new JobId(filled(6)));
        Message.JobConflict b = new Message.JobConflict(SLED, JOB, new JobId(filled(7)), new JobId(filled(8)));
        Message.JobConflict smaller = Arrays.compareUnsigned(MessageCodec.encode(a), MessageCodec.encode(b)) < 0 ? a : b;
        for (Message.JobConflict[] order : new Message.JobConflict[][] {{a, b}, {b, a}}) {
            StatusProjection p = new StatusProjection();
            assertEquals(Map.of(), p.conflicts(JOB), "none before");
            assertTrue(p.apply(order[0]), "a first status");
            assertEquals(Map.of(SLED, order[0]), p.conflicts(JOB));
            assertFalse(p.apply(order[0]), "the same conflict again changes nothing");
            assertEquals(order[0] == smaller, !p.apply(order[1]), "only the smaller one changes the status");
            assertEquals(Map.of(SLED, smaller), p.conflicts(JOB), "the smaller one is kept, in either order");
            assertEquals(JobStatus.SKIPPED, p.status(JOB, SLED).orElseThrow().status());
            assertEquals(smaller, p.status(JOB, SLED).orElseThrow().message());
            StatusProjection copy = new StatusProjection(p);
            assertEquals(Map.of(SLED, smaller), copy.conflicts(JOB), "a copy keeps the conflicts");
        }
    }

    @Test
    void aConflictOfAJobTheFullHistoryCannotTrackIsNotKept() {
        StatusProjection p = new StatusProjection(1);
        p.apply(new Message.JobStarted(SLED, JOB)); // running: never forgotten
        JobId other = new JobId(filled(9));
        assertFalse(p.apply(new Message.JobConflict(SLED, other, new JobId(filled(5)), new JobId(filled(6)))));
        assertEquals(1, p.untracked());
        assertEquals(Map.of(), p.conflicts(other));
        assertEquals(Map.of(), p.statuses(other));
    }
}
