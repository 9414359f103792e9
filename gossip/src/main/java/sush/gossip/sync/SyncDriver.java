package sush.gossip.sync;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import sush.gossip.link.Link;
import sush.gossip.set.Replica;

/**
 * Runs one {@link SyncSession} over a {@link Link}: sends its frames, cuts the peer's bytes
 * into frames, and feeds them in. Any failure, cancellation or timeout poisons the link (a
 * half-finished session must never be resumed on the same stream).
 */
public final class SyncDriver {
    private SyncDriver() {
    }

    /** Syncs {@code replica} with whatever replica is on the other end of {@code link}. */
    public static Mono<SyncOutcome> run(Replica replica, Link link, SyncSession.Intent intent, byte[] sender) {
        return run(new SyncSession(replica, intent, sender), link);
    }

    /** Runs a session built by the caller (a floor, a claim gate) over {@code link}. */
    public static Mono<SyncOutcome> run(SyncSession session, Link link) {
        return Mono.create(sink -> new Run(session, link, sink).start());
    }

    /** The state of one run. */
    private static final class Run {
        private final SyncSession session;
        private final Link link;
        private final MonoSink<SyncOutcome> sink;
        private final FrameDecoder decoder = new FrameDecoder(Frames.MAX_FRAME_BYTES);
        private final AtomicBoolean finished = new AtomicBoolean();

        Run(SyncSession session, Link link, MonoSink<SyncOutcome> sink) {
            this.session = session;
            this.link = link;
            this.sink = sink;
        }

        void start() {
            sink.onCancel(() -> {
                if (finished.compareAndSet(false, true)) {
                    link.poison("session cancelled");
                }
            });
            try {
                sendAll(session.start());
            } catch (SyncException e) {
                fail(e);
                return;
            }
            Disposable subscription = link.receive().subscribe(this::onChunk,
                    error -> fail(new SyncException(SyncException.Kind.LINK_BROKEN, String.valueOf(error.getMessage()), error)),
                    () -> fail(new SyncException(decoder.hasPartialFrame() ? SyncException.Kind.TRUNCATED
                            : SyncException.Kind.LINK_BROKEN, "peer closed the link mid-session")));
            sink.onDispose(subscription);
        }

        private void onChunk(byte[] chunk) {
            if (finished.get()) {
                return;
            }
            try {
                for (byte[] frame : decoder.feed(chunk)) {
                    sendAll(session.onFrame(frame));
                    if (session.isDone()) {
                        if (finished.compareAndSet(false, true)) {
                            sink.success(session.outcome());
                        }
                        return;
                    }
                }
            } catch (SyncException e) {
                fail(e);
            } catch (RuntimeException e) {
                fail(new SyncException(SyncException.Kind.MALFORMED_FRAME, "unexpected " + e, e));
            }
        }

        private void sendAll(List<byte[]> frames) {
            for (byte[] frame : frames) {
                link.send(frame);
            }
        }

        private void fail(SyncException e) {
            if (!finished.compareAndSet(false, true)) {
                return;
            }
            if (e.kind() != SyncException.Kind.LINK_BROKEN && e.kind() != SyncException.Kind.PEER_ABORTED) {
                link.send(Frames.abort(e.getMessage()));
            }
            link.poison(e.getMessage());
            sink.error(e);
        }
    }
}
