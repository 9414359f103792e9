package sush.gossip.node;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import sush.gossip.sync.SyncException;

/**
 * A sled's gossip counters, for operators and benchmarks: each is bumped by the part of the node
 * where its event happens (links, pushes, sessions, the universe contest) and read through
 * {@link GossipNode#stats()}, {@link GossipNode#impostors()} and
 * {@link GossipNode#unidentifiedRefused()}. Lock-free.
 */
final class NodeCounters {
    /** Authenticated links refused because the name they claimed was not the one they proved. */
    final AtomicLong impostors = new AtomicLong();
    /** Accepted links closed for staying unidentified too long, or for finding the bound full. */
    final AtomicLong unidentifiedRefused = new AtomicLong();
    final AtomicLong foreignPushes = new AtomicLong();
    final AtomicLong gapPushes = new AtomicLong();
    final AtomicLong failedSessions = new AtomicLong();
    final AtomicLong sessions = new AtomicLong();
    final AtomicLong sessionMessages = new AtomicLong();
    final Map<SyncException.Kind, AtomicLong> failuresByKind = new ConcurrentHashMap<>();
    final AtomicLong universeLosses = new AtomicLong();

    /** The counters now, with {@code connected} peers. */
    GossipNode.Stats stats(int connected) {
        Map<SyncException.Kind, Long> kinds = new EnumMap<>(SyncException.Kind.class);
        failuresByKind.forEach((k, v) -> kinds.put(k, v.get()));
        return new GossipNode.Stats(sessions.get(), sessionMessages.get(), foreignPushes.get(), gapPushes.get(),
                failedSessions.get(), universeLosses.get(), connected, kinds);
    }
}
