package sush.gossip.sync;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;
import sush.gossip.link.Link;

/**
 * Sessions and pushes over one long-lived link to one peer (D-008). Sessions run one after
 * another: either side may open one, and a PREAMBLE arriving while idle opens this side's half
 * (both opening at once is still one session: the protocol is symmetric). PUSH frames may
 * arrive at any point and are handled on their own. A session that outlives its timeout, a
 * link silent past the idle timeout, or any protocol error poisons the link.
 */
public final class LinkMux {
    /** Outbound frames queued for the link before a slow peer is cut off. */
    public static final int MAX_QUEUED_FRAMES = 65_536;

    private final Link link;
    private final MuxHandler handler;
    private final Scheduler scheduler;
    private final Duration sessionTimeout;
    private final Duration idleTimeout;
    private final Traffic traffic;
    /**
     * Frames are bounded by {@link Frames#MAX_FIRST_FRAME_BYTES} until the peer is identified
     * (an accepted link learns it from its first frame): a stranger cannot make the sled hold
     * a megabyte per connection by sending a large frame one byte short.
     */
    private final FrameDecoder decoder;
    /** Whether this side dialled the link (it knew the peer's name before any frame). */
    private final boolean dialled;
    private final ArrayDeque<byte[]> outbound = new ArrayDeque<>();
    private final AtomicInteger sending = new AtomicInteger();
    private final List<Disposable> timers = new ArrayList<>();
    private Disposable sessionTimer;
    private volatile byte[] peer;
    private SyncSession current;
    private long sessionNumber;
    private boolean wantSession;
    /** Volatile so that {@link #isOpen()} takes no lock: the sled asks it while holding its own. */
    private volatile boolean closed;
    /** Set when a session failed: nothing more is read, the close follows at once. */
    private boolean failed;
    /** Why the link is being closed; the drain loop poisons it after the last queued frame. */
    private String closeReason;
    private boolean poisoned;
    private long inboundChunks;

    /**
     * @param peer the peer's name when this side dialled it; null for an accepted link, which
     *             learns it from the first PREAMBLE or PUSH
     */
    public LinkMux(Link link, MuxHandler handler, Scheduler scheduler, Duration sessionTimeout, Duration idleTimeout,
            byte[] peer, Traffic traffic) {
        this.link = link;
        this.traffic = traffic;
        this.handler = handler;
        this.scheduler = scheduler;
        this.sessionTimeout = sessionTimeout;
        this.peer = peer == null ? null : peer.clone();
        this.idleTimeout = idleTimeout;
        this.decoder = new FrameDecoder(peer == null ? Frames.MAX_FIRST_FRAME_BYTES : Frames.MAX_FRAME_BYTES);
        this.dialled = peer != null;
    }

    /** The sled the link's transport proved the peer to be (TLS), if it proves one. */
    public Optional<String> peerIdentity() {
        return link.peerIdentity();
    }

    /** Starts reading the link and watching it for silence. */
    public void start() {
        long idleNs = idleTimeout.toNanos();
        Disposable idle = scheduler.schedulePeriodically(new IdleCheck(), idleNs, idleNs, TimeUnit.NANOSECONDS);
        Disposable reading = link.receive().subscribe(this::onChunk, e -> close("link broke: " + e.getMessage()),
                () -> close("peer closed the link"));
        synchronized (this) {
            timers.add(idle);
            timers.add(reading);
        }
    }

    public boolean isOpen() {
        return !closed;
    }

    /** Runs a session now, or right after the one in progress. */
    public void requestSession() {
        Runnable failure = null;
        synchronized (this) {
            if (closed) {
                return;
            }
            if (current != null) {
                wantSession = true;
                return;
            }
            try {
                openSession();
            } catch (SyncException e) {
                failure = failLocked(e);
            }
        }
        flush();
        if (failure != null) {
            failure.run();
        }
    }

    /**
     * Sends an encoded push; dropped if the link is closed (the next session heals it). A peer
     * too slow to take {@link #MAX_QUEUED_FRAMES} frames loses its link, not the sender.
     */
    public void push(byte[] encodedPush) {
        boolean overflow = false;
        Runnable failure = null;
        synchronized (this) {
            if (closed) {
                return;
            }
            if (dialled && sessionNumber == 0 && current == null) {
                // A dialled link's first frame is a session's PREAMBLE: the accepting side reads
                // nothing larger than Frames.MAX_FIRST_FRAME_BYTES before it knows who we are.
                try {
                    openSession();
                } catch (SyncException e) {
                    failure = failLocked(e);
                }
            }
            if (failure == null && outbound.size() >= MAX_QUEUED_FRAMES) {
                overflow = true;
            } else if (failure == null) {
                outbound.add(encodedPush);
            }
        }
        if (failure != null) {
            failure.run();
            return;
        }
        if (overflow) {
            close("outbound queue over " + MAX_QUEUED_FRAMES + " frames: the peer is not reading");
            return;
        }
        flush();
    }

    /**
     * Poisons the link once every frame already queued (an ABORT, a preamble the peer needs to
     * learn it lost) has been handed to it.
     */
    public void close(String reason) {
        boolean first;
        synchronized (this) {
            first = !closed;
            closed = true;
            if (closeReason == null) {
                closeReason = reason;
            }
            current = null;
            if (sessionTimer != null) {
                sessionTimer.dispose();
            }
            timers.forEach(Disposable::dispose);
            timers.clear();
        }
        if (first) {
            flush();
            handler.onClosed(this);
        }
    }

    private void onChunk(byte[] chunk) {
        List<Runnable> callbacks = new ArrayList<>();
        synchronized (this) {
            if (closed || failed) {
                return;
            }
            inboundChunks++;
            try {
                decoder.feed(chunk, frame -> {
                    onFrame(frame, callbacks);
                    return !(closed || failed);
                });
            } catch (SyncException e) {
                callbacks.add(failLocked(e));
            } catch (RuntimeException e) {
                callbacks.add(failLocked(new SyncException(SyncException.Kind.MALFORMED_FRAME, "unexpected " + e, e)));
            }
        }
        flush();
        callbacks.forEach(Runnable::run);
    }

    private void onFrame(byte[] frame, List<Runnable> callbacks) throws SyncException {
        if (Push.isPush(frame)) {
            Push push = Push.decode(frame);
            if (!identify(push.sender())) {
                throw new SyncException(SyncException.Kind.PEER_ABORTED, "push from a sled outside the peer set");
            }
            callbacks.add(() -> handler.onPush(this, push));
            return;
        }
        if (current == null) {
            byte[] sender = Frames.preambleSender(frame).orElseThrow(() -> new SyncException(
                    SyncException.Kind.UNEXPECTED_FRAME, "frame " + (frame[0] & 0xFF) + " outside a session"));
            if (!identify(sender)) {
                throw new SyncException(SyncException.Kind.PEER_ABORTED, "session from a sled outside the peer set");
            }
            openSession();
        }
        SyncSession session = current;
        enqueue(session.onFrame(frame));
        if (session.isDone()) {
            SyncOutcome outcome = session.outcome();
            current = null;
            callbacks.add(() -> handler.onSessionDone(this, outcome));
            if (wantSession) {
                wantSession = false;
                openSession();
            }
        }
    }

    /** Learns or checks the peer's name; the handler decides whether it may talk to us. */
    private boolean identify(byte[] sender) {
        byte[] known = peer;
        if (known != null && !Arrays.equals(known, sender)) {
            return false;
        }
        if (known == null) {
            peer = sender.clone();
        }
        boolean admitted = handler.admits(this, sender);
        if (admitted) {
            decoder.bound(Frames.MAX_FRAME_BYTES);
        }
        return admitted;
    }

    private void openSession() throws SyncException {
        current = handler.newSession(this);
        long number = ++sessionNumber;
        enqueue(current.start());
        if (sessionTimer != null) {
            sessionTimer.dispose();
        }
        sessionTimer = scheduler.schedule(() -> {
            boolean stale;
            synchronized (this) {
                stale = current != null && sessionNumber == number;
            }
            if (stale) {
                close("session timed out after " + sessionTimeout);
            }
        }, sessionTimeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    private Runnable failLocked(SyncException e) {
        if (e.kind() != SyncException.Kind.LINK_BROKEN && e.kind() != SyncException.Kind.PEER_ABORTED) {
            // The ABORT goes out even past the queue bound: the link closes right after it.
            outbound.add(Frames.abort(e.getMessage()));
        }
        current = null;
        failed = true;
        return () -> {
            handler.onSessionFailed(this, e);
            close(e.getMessage());
        };
    }

    private void enqueue(List<byte[]> frames) throws SyncException {
        if (outbound.size() + frames.size() > MAX_QUEUED_FRAMES) {
            throw new SyncException(SyncException.Kind.REPLICA_REFUSED,
                    "outbound queue over " + MAX_QUEUED_FRAMES + " frames: the peer is not reading");
        }
        outbound.addAll(frames);
    }

    /** Sends queued frames in order; one thread at a time, re-entrant calls leave it to the outer one. */
    private void flush() {
        if (sending.getAndIncrement() != 0) {
            return;
        }
        int missed = 1;
        do {
            while (true) {
                byte[] batch;
                int frames;
                String poisonNow = null;
                synchronized (this) {
                    if (outbound.isEmpty() && closed && !poisoned) {
                        poisoned = true;
                        poisonNow = closeReason;
                    }
                }
                if (poisonNow != null) {
                    link.poison(poisonNow);
                }
                synchronized (this) {
                    if (outbound.isEmpty()) {
                        break;
                    }
                    frames = outbound.size();
                    int size = 0;
                    for (byte[] f : outbound) {
                        size += f.length;
                        traffic.frame(f);
                    }
                    batch = new byte[size];
                    int at = 0;
                    while (!outbound.isEmpty()) {
                        byte[] f = outbound.poll();
                        System.arraycopy(f, 0, batch, at, f.length);
                        at += f.length;
                    }
                }
                traffic.add(frames, batch.length);
                link.send(batch);
            }
            missed = sending.addAndGet(-missed);
        } while (missed != 0);
    }

    /** Poisons the link if nothing arrived during a whole idle period. */
    private final class IdleCheck implements Runnable {
        private long seen = -1;

        @Override
        public void run() {
            long now;
            synchronized (LinkMux.this) {
                now = inboundChunks;
            }
            if (now == seen) {
                close("idle: nothing received for a whole idle period");
            }
            seen = now;
        }
    }
}
