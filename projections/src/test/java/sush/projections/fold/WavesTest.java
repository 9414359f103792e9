package sush.projections.fold;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import sush.gossip.clock.Version;
import sush.projections.fixtures.Signers;
import sush.projections.id.Id88;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.JobLimits;
import sush.projections.job.JobMode;
import sush.projections.job.JobRequest;
import sush.projections.job.JobWave;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;
import sush.projections.message.MessageException;

/** Issue 40 (D-059): the wave rule as a sled reads it from its fold, and waves on the wire. */
class WavesTest {
    private static final SessionId SESSION = new SessionId(filled(1));
    private static final JobId POSITION = new JobId(filled(2));

    private static byte[] filled(int v) {
        byte[] b = new byte[Id88.BYTES];
        java.util.Arrays.fill(b, (byte) v);
        return b;
    }

    private static SignedJob job(String target, JobWave wave) {
        return Signers.KEY.sign(new JobRequest(SESSION, POSITION, "repair", target, false, JobLimits.NONE,
                JobMode.RECORDED, wave));
    }

    private static String board(int cubby) {
        return "913-0000019:SLED" + cubby;
    }

    /** Sleds 0..3 announced in their cubbies. */
    private static Map<String, SledProjection.Announced> rack() {
        Map<String, SledProjection.Announced> a = new HashMap<>();
        for (int c = 0; c < 4; c++) {
            a.put(board(c), new SledProjection.Announced(new Message.Announcement(board(c), "0.1.0", c), Version.ZERO));
        }
        return a;
    }

    private static Message.JobStopped exited(int cubby, int code) {
        return new Message.JobStopped(board(cubby), POSITION, code, null, 0, new byte[32], 0, new byte[32]);
    }

    @Test
    void theFirstWaveGoesAndLaterWavesAwaitEveryEarlierCubby() {
        SignedJob j = job("3,0,2,1", new JobWave(1, 0));
        StatusProjection st = new StatusProjection();
        assertInstanceOf(Waves.Gate.Go.class, Waves.gate(j, 0, st, rack()));
        assertEquals(new Waves.Gate.Await(2, List.of(0, 1)), Waves.gate(j, 2, st, rack()));
        st.apply(new Message.JobStarted(board(0), POSITION));
        assertEquals(new Waves.Gate.Await(1, List.of(0)), Waves.gate(j, 1, st, rack()), "started is not done");
        st.apply(exited(0, 0));
        assertInstanceOf(Waves.Gate.Go.class, Waves.gate(j, 1, st, rack()));
        assertEquals(new Waves.Gate.Await(3, List.of(1, 2)), Waves.gate(j, 3, st, rack()));
    }

    @Test
    void moreFailuresThanTheBudgetSpendItAtOnceAndSkippedSledsAreDoneWithoutFailing() {
        SignedJob j = job("0,1,2,3", new JobWave(2, 1));
        StatusProjection st = new StatusProjection();
        st.apply(exited(0, 3));
        assertEquals(new Waves.Gate.Await(1, List.of(1)), Waves.gate(j, 2, st, rack()), "one failure is within");
        st.apply(new Message.JobErrored(board(1), POSITION, Message.JobError.INTERRUPTED, "crash", 0));
        Waves.Gate g = Waves.gate(j, 3, st, rack());
        assertEquals(new Waves.Gate.Spent(1, 2, 1, List.of(0, 1)), g);
        StatusProjection other = new StatusProjection();
        other.apply(exited(0, 0));
        other.skipSled(POSITION, 1);
        assertInstanceOf(Waves.Gate.Go.class, Waves.gate(j, 2, other, rack()), "a skipped part is done, not failed");
        // An ending the rack forgot (a cold boot): the sled says it ran or may have run; counted as failed.
        StatusProjection forgot = new StatusProjection();
        forgot.apply(new Message.JobSkipped(board(0), POSITION, Message.SkipReason.ALREADY_HANDLED));
        assertEquals(new Waves.Gate.Spent(1, 1, 0, List.of(0)), Waves.gate(job("0,1", new JobWave(1, 0)), 1, forgot,
                rack()));
        // A cubby no sled announced is awaited until its part is skipped.
        SignedJob empty = job("0,9", new JobWave(1, 0));
        assertEquals(new Waves.Gate.Await(1, List.of(0)), Waves.gate(empty, 9, new StatusProjection(), rack()));
    }

    @Test
    void aJobInWavesTargetsCubbiesAndAJobWithoutWavesIsNeverHeld() {
        assertInstanceOf(Waves.Gate.NotCubbies.class, Waves.gate(job("*", new JobWave(1, 0)), 1, new StatusProjection(),
                rack()));
        assertInstanceOf(Waves.Gate.Go.class, Waves.gate(job("0,1", JobWave.NONE), 1, new StatusProjection(), rack()));
        assertThrows(IllegalArgumentException.class, () -> new JobWave(0, 1));
        assertThrows(IllegalArgumentException.class, () -> new JobWave(33, 0));
    }

    @Test
    void wavesAreSignedAndTravelAndARequestWithoutThemHashesAsBefore() throws Exception {
        JobRequest plain = new JobRequest(SESSION, POSITION, "repair", "0,1", false);
        assertArrayEquals(plain.digest(), new JobRequest(SESSION, POSITION, "repair", "0,1", false, JobLimits.NONE,
                JobMode.RECORDED, JobWave.NONE).digest());
        SignedJob waved = job("0,1", new JobWave(1, 0));
        assertFalse(java.util.Arrays.equals(waved.request().digest(), job("0,1", new JobWave(1, 1)).request()
                .digest()), "the budget is signed");
        Message back = MessageCodec.decode(MessageCodec.encode(new Message.JobStart(waved)));
        assertEquals(new JobWave(1, 0), ((Message.JobStart) back).job().request().wave());
        Message.JobSkipped spent = new Message.JobSkipped(board(2), POSITION, Message.SkipReason.BUDGET_SPENT,
                "2 failed");
        assertEquals(spent, MessageCodec.decode(MessageCodec.encode(spent)));
        Message.JobSledSkip skip = new Message.JobSledSkip(POSITION, 7, "operator");
        assertEquals(skip, MessageCodec.decode(MessageCodec.encode(skip)));
        // D-060: a receipt travels as its body and signature, and its body reads back to the receipt.
        sush.projections.job.Receipt r = sush.projections.job.Receipt.commit("rack", board(1), SESSION, POSITION,
                POSITION, "00c0ffee", 42);
        Message.JobReceipt signed = new Message.JobReceipt(board(1), r.body(), new byte[] {1, 2, 3});
        Message.JobReceipt read = (Message.JobReceipt) MessageCodec.decode(MessageCodec.encode(signed));
        assertEquals(signed, read);
        assertEquals(r, sush.projections.job.Receipt.parse(read.body()));
    }

    /** D-060: a job keeps at most {@link StatusProjection#MAX_RECEIPTS_PER_JOB} receipts; the one past it is counted. */
    @Test
    void receiptsOfAJobAreBoundedAndThePastOneCounted() {
        StatusProjection st = new StatusProjection();
        for (int i = 0; i <= StatusProjection.MAX_RECEIPTS_PER_JOB; i++) {
            st.receipt(POSITION, new Message.JobReceipt(board(1), new byte[] {1}, new byte[] {(byte) i, (byte) (i >> 8)}));
        }
        assertEquals(StatusProjection.MAX_RECEIPTS_PER_JOB, st.receipts(POSITION).size());
        assertEquals(1, st.untracked());
    }
}
