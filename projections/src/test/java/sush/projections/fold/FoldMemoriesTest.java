package sush.projections.fold;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;

import org.junit.jupiter.api.Test;

import sush.gossip.clock.Version;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.message.Message;

/**
 * The fold's bounded memories on their own: own starts (zombie candidates), ended sessions and
 * early messages, each at and past its bound.
 */
class FoldMemoriesTest {
    private static final String ME = "p:me";

    private static JobId job(int i) {
        byte[] b = new byte[11];
        ByteBuffer.wrap(b).putInt(i);
        return new JobId(b);
    }

    private static SessionId session(int i) {
        return SessionIds.compute("p:a", new byte[SessionIds.NONCE_BYTES], new byte[] {(byte) i});
    }

    private static Message.JobCancelled cancelled(String by, JobId job) {
        return new Message.JobCancelled(by, job);
    }

    // ---- Own starts. ----

    /** Exactly the bound is kept; one more drops the oldest candidate (and only it). */
    @Test
    void ownStartsKeepTheirBoundAndDropTheOldestPastIt() {
        OwnStarts starts = new OwnStarts();
        StatusProjection statuses = new StatusProjection();
        for (int i = 0; i < SledProjection.MAX_OWN_STARTS; i++) {
            starts.started(job(i), Version.ZERO);
        }
        assertEquals(SledProjection.MAX_OWN_STARTS, starts.size(), "exactly the bound: all kept");
        starts.started(job(SledProjection.MAX_OWN_STARTS), Version.ZERO);
        assertEquals(SledProjection.MAX_OWN_STARTS, starts.size());
        for (JobId j : List.of(job(0), job(1))) {
            statuses.apply(cancelled(ME, j));
            starts.forgetEnded(cancelled(ME, j), statuses, ME);
        }
        assertEquals(SledProjection.MAX_OWN_STARTS - 1, starts.size(),
                "the oldest was dropped, the second forgotten now");
    }

    /** Another sled's end of the job leaves this sled's own start a candidate. */
    @Test
    void anotherSledsEndIsNotThisSleds() {
        OwnStarts starts = new OwnStarts();
        StatusProjection statuses = new StatusProjection();
        Message.JobStarted started = new Message.JobStarted(ME, job(1));
        starts.started(job(1), Version.ZERO);
        statuses.apply(started);
        starts.forgetEnded(started, statuses, ME);
        statuses.apply(cancelled("p:other", job(1)));
        starts.forgetEnded(cancelled("p:other", job(1)), statuses, ME);
        assertEquals(1, starts.size());
        assertEquals(List.of(job(1)), starts.zombies(Version.ZERO, statuses, ME));
        statuses.apply(cancelled(ME, job(1)));
        starts.forgetEnded(cancelled(ME, job(1)), statuses, ME);
        assertEquals(0, starts.size());
    }

    /** An own end delivered before the own start (concurrent messages): the job is no zombie. */
    @Test
    void anOwnEndThatArrivedBeforeTheStartIsNoZombie() {
        OwnStarts starts = new OwnStarts();
        StatusProjection statuses = new StatusProjection();
        statuses.apply(cancelled(ME, job(1)));
        starts.forgetEnded(cancelled(ME, job(1)), statuses, ME);
        starts.started(job(1), Version.ZERO);
        statuses.apply(new Message.JobStarted(ME, job(1)));
        starts.started(job(2), Version.ZERO);
        statuses.apply(new Message.JobStarted(ME, job(2)));
        assertEquals(2, starts.size());
        assertEquals(List.of(job(2)), starts.zombies(Version.ZERO, statuses, ME));
    }

    // ---- Ended sessions. ----

    @Test
    void endedSessionsKeepTheirBoundAndForgetTheOldestPastIt() {
        EndedSessions ended = new EndedSessions(2);
        ended.end(session(1), SessionProjection.Ending.STOPPED);
        ended.end(session(2), SessionProjection.Ending.SUPERSEDED);
        assertTrue(ended.contains(session(1)), "exactly the bound: kept");
        assertEquals(2, ended.size());
        assertEquals(0, ended.evicted());
        ended.end(session(3), SessionProjection.Ending.ANNIHILATED);
        assertFalse(ended.contains(session(1)));
        assertEquals(SessionProjection.Ending.SUPERSEDED, ended.get(session(2)));
        assertEquals(2, ended.size());
        assertEquals(1, ended.evicted());
        EndedSessions copy = new EndedSessions(ended);
        assertEquals(1, copy.evicted());
        assertEquals(SessionProjection.Ending.ANNIHILATED, copy.get(session(3)));
    }

    // ---- Early messages. ----

    @Test
    void earlyMessagesAreReleasedInOrderAndDroppedOldestSessionFirstPastTheBound() {
        EarlyMessages early = new EarlyMessages(3);
        Message a1 = new Message.SessionStop(session(1), "a");
        Message a2 = new Message.SessionStop(session(1), "b");
        Message b1 = new Message.SessionStop(session(2), "c");
        early.hold(session(1), a1);
        early.hold(session(1), a2);
        early.hold(session(2), b1);
        assertEquals(3, early.count());
        assertEquals(List.of(a1, a2), early.release(session(1)));
        assertEquals(1, early.count());
        assertNull(early.release(session(1)), "nothing held any more");
        assertNull(early.release(session(3)), "nothing ever held");
        early.hold(session(1), a1);
        early.hold(session(3), a2);
        assertEquals(3, early.count());
        assertEquals(0, early.dropped());
        early.hold(session(4), b1);
        assertEquals(1, early.dropped(), "session 2's message, the oldest held");
        assertNull(early.release(session(2)));
        assertEquals(3, early.count());
    }
}
