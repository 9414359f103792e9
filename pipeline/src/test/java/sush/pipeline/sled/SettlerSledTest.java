package sush.pipeline.sled;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import sush.pipeline.Rack;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.targets.Sled;

/**
 * A settling sled (bounded-gossip.md, issue 39) in the harness: when it sends a watermark (its
 * head moved, or news arrived: an idle rack sends none), and how its head jumps over positions
 * every other sled passed and this one holds nothing of.
 */
class SettlerSledTest {
    private static final Sled OTHER = new Sled("913-0000020:SLED01", 1);
    private static final Duration EVERY = Duration.ofSeconds(1);

    private static JobId id(SignedJob j) {
        return j.request().job();
    }

    private static SledHarness settling() throws Exception {
        SledHarness h = new SledHarness().provision();
        h.settling = new SledConfig.Settling(List.of(Rack.ME, OTHER), EVERY);
        return h;
    }

    private static void period(SledHarness h) {
        h.time.advanceTimeBy(EVERY);
        h.settle();
    }

    private static List<Message.Watermark> marks(SledHarness h, SessionId session) {
        return h.gossiped(Message.Watermark.class).stream()
                .filter(w -> w.baseboard().equals(Rack.ME.baseboard()) && w.session().equals(session)).toList();
    }

    @Test
    void aWatermarkIsSentWhenTheHeadMovesOrNewsArrivesAndNeverWhileIdle() throws Exception {
        SledHarness h = settling().boot(1);
        SessionId s = Rack.session(1);
        List<SignedJob> jobs = Rack.jobs(s, 1, "w", "*");
        h.operator(Rack.start(1));
        h.operator(new Message.JobStart(jobs.get(0)));
        h.sync();
        h.launcher.end(id(jobs.get(0)), 0);
        h.settle();
        period(h);
        List<Message.Watermark> said = marks(h, s);
        assertEquals(1, said.size(), said.toString());
        assertEquals(1, said.get(0).ordinal());
        assertEquals(jobs.get(0).request().successor(), said.get(0).head());
        period(h);
        period(h);
        assertEquals(1, marks(h, s).size(), "nothing moved and nothing arrived: no watermark");
        // News without a move: another sled's status of the job.
        h.operator(new Message.JobStarted(OTHER.baseboard(), id(jobs.get(0))));
        h.sync();
        period(h);
        assertEquals(2, marks(h, s).size(), "news arrived: said again");
        assertEquals(said.get(0).head(), marks(h, s).get(1).head());
        period(h);
        assertEquals(2, marks(h, s).size());
    }

    @Test
    void aHeadOnPositionsEveryOtherSledPassedAndThisOneHoldsNothingOfJumpsToTheFirstLiveOne() throws Exception {
        SledHarness h = settling();
        SessionId s = Rack.session(1);
        List<SignedJob> jobs = Rack.jobs(s, 3, "k", "*");
        // The rack forgot jobs 0 and 1: the other sled's watermark stands on job 2, which is held.
        h.operator0(1, Rack.start(1));
        h.operator0(1, new Message.Watermark(OTHER.baseboard(), s, 2, id(jobs.get(2)), id(jobs.get(2)), null));
        h.operator0(1, new Message.JobStart(jobs.get(2)));
        h.boot(1);
        h.sync();
        assertEquals(List.of(new SledEvent.Jumped(s, Chain.first(s), id(jobs.get(2)))), h.events(SledEvent.Jumped.class));
        assertEquals(List.of(id(jobs.get(2))), h.ledger.stream().map(l -> l.job()).toList());
    }

    @Test
    void aHeadOnAPositionItHoldsDoesNotJump() throws Exception {
        SledHarness h = settling();
        SessionId s = Rack.session(1);
        List<SignedJob> jobs = Rack.jobs(s, 3, "k", "*");
        h.operator0(1, Rack.start(1));
        jobs.forEach(j -> h.operator0(1, new Message.JobStart(j)));
        h.operator0(1, new Message.Watermark(OTHER.baseboard(), s, 2, id(jobs.get(2)), id(jobs.get(2)), null));
        h.boot(1);
        h.sync();
        assertEquals(List.of(), h.events(SledEvent.Jumped.class));
        assertEquals(List.of(id(jobs.get(0))), h.ledger.stream().map(l -> l.job()).toList());
    }
}
