package sush.gossip.node;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import reactor.core.scheduler.Scheduler;
import sush.gossip.clock.Version;
import sush.gossip.set.Message;
import sush.gossip.set.Replica;
import sush.gossip.set.ReplicaException;
import sush.gossip.sync.LinkMux;
import sush.gossip.sync.Push;
import sush.gossip.sync.SyncException;
import sush.gossip.sync.Targets;

/**
 * Pushes, both ways: a message this sled sends goes to every connected peer, a push received is
 * applied and relayed to the peers it has not reached, and a push whose causal past has not
 * arrived is held back (bounded in all and per link) until it has, or until a session with its
 * sender brings it. State is guarded by the node's lock ({@code lock}); a mux is never called
 * while holding it.
 */
final class PushPath {
    private final Object lock;
    private final Scheduler scheduler;
    private final byte[] name;
    private final int nameHash;
    private final PeerLinks links;
    private final UniverseContest universe;
    private final NodeCounters counters;
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    /** Bytes held in {@link #pending}, in all and per link (under the lock). */
    private long pendingBytes;
    private final Map<LinkMux, long[]> pendingPerLink = new IdentityHashMap<>();

    PushPath(Object lock, Scheduler scheduler, byte[] name, int nameHash, PeerLinks links, UniverseContest universe,
            NodeCounters counters) {
        this.lock = lock;
        this.scheduler = scheduler;
        this.name = name;
        this.nameHash = nameHash;
        this.links = links;
        this.universe = universe;
        this.counters = counters;
    }

    /** See {@link GossipNode#send}. */
    Version send(byte[] payload) {
        Replica r = universe.replica();
        Replica.Sent sent = r.sendOnBase(payload);
        List<LinkMux> targets = new ArrayList<>();
        int[] hashes;
        int count = 0;
        synchronized (lock) {
            hashes = new int[links.peers().size() + 1];
            if (universe.replica() != r) {
                // The universe was lost while we sent: the message went down with it.
                throw new ReplicaException(ReplicaException.Kind.UNIVERSE_CHANGED,
                        "the sled left universe " + r.network() + " during the send");
            }
            hashes[count++] = nameHash;
            for (Peer p : links.peers()) {
                if (p.mux != null && p.mux.isOpen()) {
                    targets.add(p.mux);
                    hashes[count++] = p.hash;
                }
            }
        }
        Push push = new Push(r.network(), name, Targets.of(hashes, count), sent.base(), sent.version(),
                List.of(new Message(sent.version(), payload)));
        byte[] frame = push.encode();
        targets.forEach(m -> m.push(frame));
        return sent.version();
    }

    /** A push arrived on {@code mux}: applied and relayed, or held back while its past is missing. */
    void onPush(LinkMux mux, Push push) {
        Push.Result result = apply(mux, push);
        if (result == Push.Result.GAP) {
            counters.gapPushes.incrementAndGet();
            hold(new Pending(mux, push));
        } else if (result == Push.Result.APPLIED) {
            relay(mux, push);
            retryPending();
        }
    }

    private Push.Result apply(LinkMux mux, Push push) {
        Replica r = universe.replica();
        try {
            Push.Result result = push.applyTo(r);
            if (result == Push.Result.FOREIGN) {
                counters.foreignPushes.incrementAndGet();
            }
            return result;
        } catch (SyncException e) {
            mux.close(e.getMessage());
            return Push.Result.FOREIGN;
        }
    }

    /**
     * Holds a push whose base this sled does not hold yet: causal delivery cannot add it before
     * its past, which usually arrives moments later by another push. If it is still waiting
     * after {@link GossipNode#GAP_PATIENCE}, a session with its sender brings everything.
     */
    private void hold(Pending p) {
        List<Pending> dropped = new ArrayList<>();
        synchronized (lock) {
            pending.addLast(p);
            pendingBytes += p.bytes;
            long[] share = pendingPerLink.computeIfAbsent(p.from, k -> new long[2]);
            share[0]++;
            share[1] += p.bytes;
            // The sender's own oldest first, while it is over its share; then anyone's oldest.
            while (share[0] > GossipNode.MAX_PENDING_PER_LINK || share[1] > GossipNode.MAX_PENDING_BYTES_PER_LINK) {
                Pending oldest = null;
                for (Pending q : pending) {
                    if (q.from == p.from) {
                        oldest = q;
                        break;
                    }
                }
                unhold(oldest);
                dropped.add(oldest);
            }
            while (pending.size() > GossipNode.MAX_PENDING_PUSHES || pendingBytes > GossipNode.MAX_PENDING_BYTES) {
                Pending oldest = pending.peekFirst();
                unhold(oldest);
                dropped.add(oldest);
            }
        }
        // What was dropped comes again by a session with its sender.
        dropped.stream().map(Pending::from).distinct().forEach(LinkMux::requestSession);
        // The missing past may have been applied on another link's thread between our failed
        // apply and the hold; retrying now closes that race (else it waits for the timer).
        retryPending();
        scheduler.schedule(() -> {
            boolean waiting;
            synchronized (lock) {
                waiting = unhold(p);
            }
            if (waiting) {
                p.from.requestSession();
            }
        }, GossipNode.GAP_PATIENCE.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Applies every held push whose base has arrived, until none does. */
    void retryPending() {
        boolean progress = true;
        while (progress) {
            progress = false;
            List<Pending> waiting;
            synchronized (lock) {
                if (pending.isEmpty()) {
                    return;
                }
                waiting = new ArrayList<>(pending);
            }
            for (Pending p : waiting) {
                Push.Result result = apply(p.from, p.push);
                if (result != Push.Result.GAP) {
                    synchronized (lock) {
                        unhold(p);
                    }
                    if (result == Push.Result.APPLIED) {
                        relay(p.from, p.push);
                        progress = true;
                    }
                }
            }
        }
    }

    /** Removes a held push and its bytes from the counts; false if it was no longer held. Under the lock. */
    private boolean unhold(Pending p) {
        if (!pending.remove(p)) {
            return false;
        }
        pendingBytes -= p.bytes;
        long[] share = pendingPerLink.get(p.from);
        share[0]--;
        share[1] -= p.bytes;
        if (share[0] == 0) {
            pendingPerLink.remove(p.from);
        }
        return true;
    }

    /** Pushes held back now, and their bytes (tests, metrics). */
    long[] held() {
        synchronized (lock) {
            return new long[] {pending.size(), pendingBytes};
        }
    }

    /** A push waiting for its base; {@code bytes} counts its payloads and a per-message overhead. */
    private record Pending(LinkMux from, Push push, long bytes) {
        Pending(LinkMux from, Push push) {
            this(from, push, push.messages().stream().mapToLong(m -> m.payloadSize() + 64L).sum() + 64);
        }
    }

    /** Forwards a push to connected peers it has not been pushed to yet (never back). */
    private void relay(LinkMux from, Push push) {
        List<LinkMux> targets = new ArrayList<>();
        int[] added;
        int count = 0;
        synchronized (lock) {
            added = new int[links.peers().size() + 1];
            added[count++] = nameHash;
            for (Peer p : links.peers()) {
                if (p.mux != null && p.mux != from && p.mux.isOpen() && !push.targets().contains(p.hash)) {
                    targets.add(p.mux);
                    added[count++] = p.hash;
                }
            }
        }
        if (targets.isEmpty()) {
            return;
        }
        Targets hashes = push.targets().with(added, count);
        if (hashes.size() > Push.MAX_TARGETS) {
            return;
        }
        Push relayed = new Push(push.network(), name, hashes, push.base(), push.frontier(), push.messages());
        byte[] frame = relayed.encode();
        targets.forEach(m -> m.push(frame));
    }
}
