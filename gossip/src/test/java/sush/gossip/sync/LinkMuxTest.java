package sush.gossip.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;

import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;
import reactor.test.scheduler.VirtualTimeScheduler;
import sush.gossip.Entropy;
import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.gossip.set.Message;
import sush.gossip.set.NetworkId;
import sush.gossip.set.Replica;
import sush.gossip.wire.WireReader;

/**
 * Sessions and pushes over one long-lived link: what goes out and in what order, how a peer
 * is identified, the bounds on what is queued and read, and how the link ends.
 */
class LinkMuxTest {
    private static final NetworkId NET = NetworkId.random(Entropy.seeded(70));
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration IDLE = Duration.ofSeconds(40);
    private static final byte[] B = "b".getBytes(StandardCharsets.UTF_8);
    private static final int MAX = LinkMux.MAX_QUEUED_FRAMES;

    /** What the mux told its owner. */
    private static final class Handler implements MuxHandler {
        Predicate<String> admits = name -> true;
        Function<LinkMux, SyncSession> sessions;
        final List<String> admitted = new ArrayList<>();
        final List<SyncOutcome> done = new ArrayList<>();
        final List<SyncException> failed = new ArrayList<>();
        final List<Push> pushes = new ArrayList<>();
        int closed;

        @Override
        public boolean admits(LinkMux mux, byte[] sender) {
            String name = new String(sender, StandardCharsets.UTF_8);
            admitted.add(name);
            return admits.test(name);
        }

        @Override
        public SyncSession newSession(LinkMux mux) {
            return sessions.apply(mux);
        }

        @Override
        public void onSessionDone(LinkMux mux, SyncOutcome outcome) {
            done.add(outcome);
        }

        @Override
        public void onSessionFailed(LinkMux mux, SyncException error) {
            failed.add(error);
        }

        @Override
        public void onPush(LinkMux mux, Push push) {
            pushes.add(push);
        }

        @Override
        public void onClosed(LinkMux mux) {
            closed++;
        }
    }

    /** Virtual time that remembers every timer it was asked for. */
    private static final class Timers implements Scheduler {
        final VirtualTimeScheduler time = VirtualTimeScheduler.create();
        final List<Disposable> periodic = new ArrayList<>();
        final List<Disposable> delayed = new ArrayList<>();

        @Override
        public Disposable schedule(Runnable task) {
            return time.schedule(task);
        }

        @Override
        public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
            Disposable d = tracked(time.schedule(task, delay, unit));
            delayed.add(d);
            return d;
        }

        @Override
        public Disposable schedulePeriodically(Runnable task, long initialDelay, long period, TimeUnit unit) {
            Disposable d = tracked(time.schedulePeriodically(task, initialDelay, period, unit));
            periodic.add(d);
            return d;
        }

        /** The virtual scheduler's handles do not say whether they were disposed: these do. */
        private static Disposable tracked(Disposable inner) {
            return new Disposable() {
                private boolean disposed;

                @Override
                public void dispose() {
                    disposed = true;
                    inner.dispose();
                }

                @Override
                public boolean isDisposed() {
                    return disposed;
                }
            };
        }

        @Override
        public Worker createWorker() {
            return time.createWorker();
        }

        void advance(Duration d) {
            time.advanceTimeBy(d);
        }
    }

    /** A mux over a scripted link, its sessions run on a replica of {@link #NET} holding nothing. */
    private static final class Fixture {
        final Replica replica = Replica.seed(NET);
        final ScriptedLink link;
        final Handler handler = new Handler();
        final Timers timers = new Timers();
        final Traffic traffic = new Traffic();
        final LinkMux mux;

        /** @param dialled the peer's name if this side dialled, null for an accepted link */
        Fixture(String dialled) {
            this(dialled, new ScriptedLink());
        }

        Fixture(String dialled, ScriptedLink link) {
            this.link = link;
            handler.sessions = m -> new SyncSession(replica, SyncSession.Intent.GOSSIP, "a".getBytes(StandardCharsets.UTF_8));
            mux = new LinkMux(link, handler, timers, SESSION_TIMEOUT, IDLE,
                    dialled == null ? null : dialled.getBytes(StandardCharsets.UTF_8), traffic);
            mux.start();
        }

        /** The peer's half of a session that finds both sides in sync. */
        void peerOpensInSync(String name) {
            link.deliverFrames(Frames.preamble(NET, SyncSession.Intent.GOSSIP, 0, name.getBytes(StandardCharsets.UTF_8)),
                    Frames.frontier(replica.frontier()));
        }

        List<Integer> sentTypes() {
            return link.sentTypes();
        }
    }

    /** A push with nothing in it (small and self-consistent). */
    private static byte[] emptyPush(String sender) {
        return new Push(NET, sender.getBytes(StandardCharsets.UTF_8), Targets.of(), Version.ZERO, Version.ZERO, List.of())
                .encode();
    }

    /** A push of one message with a payload of {@code bytes}. */
    private static byte[] pushOf(String sender, int bytes) {
        Version v = Version.ZERO.tick(Id.ONE);
        return new Push(NET, sender.getBytes(StandardCharsets.UTF_8), Targets.of(), Version.ZERO, v,
                List.of(new Message(v, new byte[bytes]))).encode();
    }

    private static String abortText(byte[] body) throws Exception {
        assertEquals(Frames.ABORT, body[0] & 0xFF);
        return Frames.readAbort(new WireReader(body, 1, body.length - 1));
    }

    @Test
    void aDialledLinkOpensWithASessionBeforeItsFirstPush() {
        Fixture f = new Fixture("b");
        byte[] push = emptyPush("a");
        f.mux.push(push);
        assertEquals(List.of(Frames.PREAMBLE, Frames.FRONTIER, Frames.PUSH), f.sentTypes());
        f.mux.push(push);
        assertEquals(List.of(Frames.PREAMBLE, Frames.FRONTIER, Frames.PUSH, Frames.PUSH), f.sentTypes(),
                "one opening session");
        f.peerOpensInSync("b");
        assertEquals(1, f.handler.done.size());
        assertEquals(SyncSession.Role.IN_SYNC, f.handler.done.get(0).role());
        f.mux.push(push);
        assertEquals(5, f.sentTypes().size(), "after its first session a dialled link pushes at once");
        assertEquals(Frames.PUSH, f.sentTypes().get(4));
        assertTrue(f.mux.isOpen());
        assertTrue(f.link.isOpen());
    }

    @Test
    void anAcceptedLinkPushesWithoutASession() {
        Fixture f = new Fixture(null);
        f.mux.push(emptyPush("a"));
        assertEquals(List.of(Frames.PUSH), f.sentTypes());
        assertTrue(f.mux.isOpen());
        assertEquals(List.of(), f.handler.admitted);
    }

    @Test
    void trafficCountsEveryFrameAndByteHandedToTheLink() {
        Fixture f = new Fixture("b");
        f.mux.push(emptyPush("a"));
        f.mux.push(pushOf("a", 300));
        assertEquals(4, f.traffic.frames());
        assertEquals(f.link.sentBytes().length, f.traffic.bytes());
        assertEquals(2, f.link.sends(), "the opening and the first push as one batch, then the second push");
    }

    @Test
    void theTransportsProofOfThePeerIsPassedOn() {
        assertEquals(Optional.of("sled-b"), new Fixture(null, new ScriptedLink(Optional.of("sled-b"))).mux.peerIdentity());
        assertEquals(Optional.empty(), new Fixture(null).mux.peerIdentity());
    }

    @Test
    void closingPoisonsTheLinkOnceAndStopsEveryTimer() {
        Fixture f = new Fixture("b");
        f.mux.requestSession();
        assertTrue(f.mux.isOpen());
        assertTrue(f.link.isReadBySomeone());
        assertEquals(1, f.timers.periodic.size());
        assertEquals(1, f.timers.delayed.size());
        f.mux.close("bye");
        assertFalse(f.mux.isOpen());
        assertEquals("bye", f.link.poisonReason());
        assertEquals(1, f.handler.closed);
        assertTrue(f.timers.periodic.get(0).isDisposed(), "the idle check stops");
        assertTrue(f.timers.delayed.get(0).isDisposed(), "the session timer stops");
        assertFalse(f.link.isReadBySomeone());
        f.mux.close("again");
        assertEquals(1, f.handler.closed, "closed once");
        f.mux.push(emptyPush("a"));
        f.mux.requestSession();
        assertEquals(List.of(Frames.PREAMBLE, Frames.FRONTIER), f.sentTypes(), "nothing more goes out");
    }

    @Test
    void aPeerThatClosesItsEndClosesTheMux() {
        Fixture f = new Fixture(null);
        f.link.complete();
        assertFalse(f.mux.isOpen());
        assertEquals(1, f.handler.closed);
        assertEquals("peer closed the link", f.link.poisonReason());
    }

    @Test
    void aNewSessionReplacesTheTimerOfTheLastOne() {
        Fixture f = new Fixture("b");
        f.mux.requestSession();
        f.peerOpensInSync("b");
        f.mux.requestSession();
        assertEquals(2, f.timers.delayed.size());
        assertTrue(f.timers.delayed.get(0).isDisposed(), "one session timer at a time");
        assertFalse(f.timers.delayed.get(1).isDisposed());
        f.timers.advance(SESSION_TIMEOUT.minusMillis(1));
        assertTrue(f.mux.isOpen());
        f.timers.advance(Duration.ofMillis(1));
        assertFalse(f.mux.isOpen(), "the unanswered session timed out");
        assertTrue(f.link.poisonReason().startsWith("session timed out"), f.link.poisonReason());
    }

    @Test
    void aFinishedSessionsTimerDoesNotCloseTheLink() {
        Fixture f = new Fixture("b");
        f.mux.requestSession();
        f.peerOpensInSync("b");
        for (Duration t = Duration.ZERO; t.compareTo(SESSION_TIMEOUT) <= 0; t = t.plus(IDLE)) {
            f.link.deliverFrames(emptyPush("b"));
            f.timers.advance(IDLE);
        }
        assertTrue(f.mux.isOpen(), f.link.poisonReason());
        assertEquals(1, f.timers.delayed.size());
    }

    @Test
    void aLinkIsClosedAfterAWholeIdlePeriodWithoutAChunk() {
        Fixture f = new Fixture(null);
        f.link.deliverFrames(emptyPush("b"));
        f.timers.advance(IDLE);
        assertTrue(f.mux.isOpen(), "a chunk arrived during the first period");
        f.timers.advance(IDLE.minusMillis(1));
        assertTrue(f.mux.isOpen());
        f.timers.advance(Duration.ofMillis(1));
        assertFalse(f.mux.isOpen(), "nothing arrived during the second");
        assertTrue(f.link.poisonReason().startsWith("idle"), f.link.poisonReason());
        assertEquals(1, f.handler.closed);
    }

    @Test
    void chunksKeepALinkOpen() {
        Fixture f = new Fixture(null);
        for (int period = 0; period < 5; period++) {
            f.link.deliverFrames(emptyPush("b"));
            f.timers.advance(IDLE);
        }
        assertTrue(f.mux.isOpen());
        assertEquals(5, f.handler.pushes.size());
    }

    @Test
    void anAcceptedLinkLearnsItsPeerFromTheFirstPreambleAndRefusesAnyOther() {
        Fixture f = new Fixture(null);
        f.peerOpensInSync("b");
        assertEquals(List.of("b"), f.handler.admitted);
        assertEquals(1, f.handler.done.size());
        assertEquals(List.of(Frames.PREAMBLE, Frames.FRONTIER), f.sentTypes());
        f.link.deliverFrames(emptyPush("c"));
        assertEquals(1, f.handler.failed.size());
        assertEquals(SyncException.Kind.PEER_ABORTED, f.handler.failed.get(0).kind());
        assertEquals(List.of(), f.handler.pushes);
        assertEquals(List.of("b"), f.handler.admitted, "the other name is not even asked about");
        assertEquals(List.of(Frames.PREAMBLE, Frames.FRONTIER), f.sentTypes(), "no ABORT to a refused peer");
        assertFalse(f.mux.isOpen());
        assertFalse(f.link.isOpen());
    }

    @Test
    void aDialledLinkRefusesPushesFromAnyoneButItsPeer() {
        Fixture f = new Fixture("b");
        f.link.deliverFrames(emptyPush("b"));
        assertEquals(1, f.handler.pushes.size());
        f.link.deliverFrames(emptyPush("c"));
        assertEquals(1, f.handler.pushes.size());
        assertEquals(SyncException.Kind.PEER_ABORTED, f.handler.failed.get(0).kind());
        assertFalse(f.mux.isOpen());
    }

    @Test
    void aRefusedPeerLosesTheLink() {
        Fixture f = new Fixture(null);
        f.handler.admits = name -> false;
        f.link.deliverFrames(emptyPush("b"));
        assertEquals(List.of("b"), f.handler.admitted);
        assertEquals(List.of(), f.handler.pushes);
        assertEquals(SyncException.Kind.PEER_ABORTED, f.handler.failed.get(0).kind());
        assertFalse(f.mux.isOpen());
    }

    @Test
    void framesOverTheFirstFrameBoundAreReadOnlyFromAnAdmittedPeer() throws Exception {
        int large = Frames.MAX_FIRST_FRAME_BYTES + 100;
        Fixture stranger = new Fixture(null);
        stranger.link.deliverFrames(pushOf("b", large));
        assertEquals(SyncException.Kind.FRAME_TOO_LARGE, stranger.handler.failed.get(0).kind());
        assertEquals(List.of(Frames.ABORT), stranger.sentTypes());
        assertFalse(stranger.mux.isOpen());

        Fixture known = new Fixture(null);
        known.link.deliverFrames(emptyPush("b"));
        known.link.deliverFrames(pushOf("b", large));
        assertEquals(List.of(), known.handler.failed);
        assertEquals(2, known.handler.pushes.size());
        assertEquals(large, known.handler.pushes.get(1).messages().get(0).payloadSize());

        Fixture dialled = new Fixture("b");
        dialled.link.deliverFrames(pushOf("b", large));
        assertEquals(1, dialled.handler.pushes.size(), "a dialled link knows its peer from the start");
    }

    @Test
    void aFrameOutsideASessionIsAnsweredWithAnAbortNamingIt() throws Exception {
        Fixture f = new Fixture(null);
        f.link.deliverFrames(Frames.commit());
        SyncException e = f.handler.failed.get(0);
        assertEquals(SyncException.Kind.UNEXPECTED_FRAME, e.kind());
        assertTrue(e.getMessage().contains("frame " + Frames.COMMIT + " outside a session"), e.getMessage());
        List<byte[]> sent = f.link.sentFrames();
        assertEquals(1, sent.size());
        assertEquals(e.getMessage(), abortText(sent.get(0)));
        assertEquals(e.getMessage(), f.link.poisonReason());
        assertEquals(1, f.handler.closed);
        assertFalse(f.mux.isOpen());
    }

    @Test
    void aPeersAbortInsideASessionIsNotAnswered() {
        Fixture f = new Fixture("b");
        f.mux.requestSession();
        f.link.deliverFrames(Frames.abort("no"));
        assertEquals(SyncException.Kind.PEER_ABORTED, f.handler.failed.get(0).kind());
        assertEquals(List.of(Frames.PREAMBLE, Frames.FRONTIER), f.sentTypes());
        assertFalse(f.mux.isOpen());
    }

    @Test
    void aSessionAskedForDuringOneRunsRightAfterIt() {
        Fixture f = new Fixture("b");
        f.mux.requestSession();
        f.mux.requestSession();
        assertEquals(List.of(Frames.PREAMBLE, Frames.FRONTIER), f.sentTypes(), "one session at a time");
        f.peerOpensInSync("b");
        assertEquals(1, f.handler.done.size());
        assertEquals(List.of(Frames.PREAMBLE, Frames.FRONTIER, Frames.PREAMBLE, Frames.FRONTIER), f.sentTypes());
        f.peerOpensInSync("b");
        assertEquals(2, f.handler.done.size());
        f.peerOpensInSync("b");
        assertEquals(3, f.handler.done.size(), "the peer may open one too");
        assertEquals(6, f.sentTypes().size());
    }

    /** A session that cannot start: this replica holds history, yet the session wants a bootstrap. */
    private static void sessionsCannotStart(Fixture f) {
        f.replica.send(new byte[] {1});
        f.handler.sessions = m -> new SyncSession(f.replica, SyncSession.Intent.BOOTSTRAP, "a".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aSessionThatCannotStartClosesTheLinkAfterAnAbort() throws Exception {
        Fixture f = new Fixture("b");
        sessionsCannotStart(f);
        f.mux.requestSession();
        assertEquals(SyncException.Kind.CLAIMANT_HAS_HISTORY, f.handler.failed.get(0).kind());
        assertEquals(List.of(Frames.ABORT), f.sentTypes());
        assertFalse(f.mux.isOpen());
        assertEquals(1, f.handler.closed);
    }

    @Test
    void aPushWhoseOpeningSessionCannotStartIsNotSent() {
        Fixture f = new Fixture("b");
        sessionsCannotStart(f);
        f.mux.push(emptyPush("a"));
        assertEquals(SyncException.Kind.CLAIMANT_HAS_HISTORY, f.handler.failed.get(0).kind());
        assertEquals(List.of(Frames.ABORT), f.sentTypes());
        assertFalse(f.mux.isOpen());
        assertEquals(1, f.handler.closed);
    }

    /** Runs {@code whileSending} re-entrantly during the link's first send, when nothing else drains. */
    private static void duringFirstSend(Fixture f, Runnable whileSending) {
        boolean[] once = {false};
        f.link.onSend = bytes -> {
            if (!once[0]) {
                once[0] = true;
                whileSending.run();
            }
        };
    }

    @Test
    void aPeerNotTakingTheQueueBoundOfFramesLosesTheLinkAfterThem() {
        Fixture f = new Fixture(null);
        byte[] push = emptyPush("a");
        duringFirstSend(f, () -> {
            for (int i = 0; i < MAX; i++) {
                f.mux.push(push);
            }
            assertTrue(f.mux.isOpen(), "the bound is not reached");
            f.mux.push(push);
        });
        f.mux.push(push);
        assertFalse(f.mux.isOpen());
        assertTrue(f.link.poisonReason().startsWith("outbound queue over"), f.link.poisonReason());
        assertEquals(1 + MAX, f.link.sentFrames().size(), "what was queued still went out");
        assertEquals(1 + MAX, f.traffic.frames());
        assertEquals(1, f.handler.closed);
    }

    @Test
    void aSessionFitsInTheQueueUpToItsLastFrame() {
        Fixture f = new Fixture(null);
        byte[] push = emptyPush("a");
        duringFirstSend(f, () -> {
            for (int i = 0; i < MAX - 2; i++) {
                f.mux.push(push);
            }
            f.mux.requestSession();
        });
        f.mux.push(push);
        assertEquals(List.of(), f.handler.failed);
        assertTrue(f.mux.isOpen());
        List<Integer> types = f.sentTypes();
        assertEquals(1 + MAX, types.size());
        assertEquals(List.of(Frames.PREAMBLE, Frames.FRONTIER), types.subList(types.size() - 2, types.size()));
    }

    @Test
    void aSessionThatDoesNotFitInTheQueueFailsAndItsAbortStillGoesOut() throws Exception {
        Fixture f = new Fixture(null);
        byte[] push = emptyPush("a");
        duringFirstSend(f, () -> {
            for (int i = 0; i < MAX - 1; i++) {
                f.mux.push(push);
            }
            f.mux.requestSession();
        });
        f.mux.push(push);
        assertEquals(SyncException.Kind.REPLICA_REFUSED, f.handler.failed.get(0).kind());
        assertFalse(f.mux.isOpen());
        List<byte[]> sent = f.link.sentFrames();
        assertEquals(1 + MAX, sent.size(), "the pushes and the ABORT");
        assertTrue(abortText(sent.get(sent.size() - 1)).startsWith("REPLICA_REFUSED"));
        assertNull(f.handler.done.isEmpty() ? null : f.handler.done);
    }
}
