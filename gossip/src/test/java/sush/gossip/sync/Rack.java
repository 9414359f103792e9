package sush.gossip.sync;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

import reactor.core.publisher.Mono;
import sush.gossip.Entropy;
import sush.gossip.clock.Version;
import sush.gossip.link.MemoryLink;
import sush.gossip.set.Delivery;
import sush.gossip.set.IdentityKeeper;
import sush.gossip.set.NetworkId;
import sush.gossip.set.Replica;

/**
 * Test fixture: replicas of one universe over in-memory links, every send recorded, every
 * replica's deliveries collected by a live subscriber.
 */
final class Rack {
    private static final Duration BLOCK_LIMIT = Duration.ofSeconds(10);

    final List<Replica> replicas = new ArrayList<>();
    final List<List<Delivery>> delivered = new ArrayList<>();
    final Map<Version, String> sent = new HashMap<>();

    /** One seeded replica and {@code size - 1} newcomers bootstrapped from it in turn. */
    static Rack of(int size, long seed) {
        return of(size, seed, i -> IdentityKeeper.NONE);
    }

    /** {@link #of(int, long)} whose replica {@code i} keeps its identity with {@code keepers.apply(i)}. */
    static Rack of(int size, long seed, IntFunction<IdentityKeeper> keepers) {
        Rack rack = new Rack();
        rack.add(Replica.seed(NetworkId.random(Entropy.seeded(seed)), keepers.apply(0)));
        for (int i = 1; i < size; i++) {
            Replica newcomer = Replica.newcomer(keepers.apply(i));
            Outcomes o = sync(rack.replicas.get(i - 1), SyncSession.Intent.GOSSIP, newcomer,
                    SyncSession.Intent.BOOTSTRAP, MemoryLink.pair());
            if (o.error() != null) {
                throw new AssertionError("bootstrap failed", o.error());
            }
            rack.add(newcomer);
        }
        return rack;
    }

    void add(Replica r) {
        replicas.add(r);
        delivered.add(subscribe(r));
    }

    /** Replica {@code k} is replaced (a restart): the new one's deliveries are collected from the start. */
    void replace(int k, Replica r) {
        replicas.set(k, r);
        delivered.set(k, subscribe(r));
    }

    private static List<Delivery> subscribe(Replica r) {
        List<Delivery> sink = new ArrayList<>();
        r.deliveries(0).subscribe(d -> {
            synchronized (sink) {
                sink.add(d);
            }
        });
        return sink;
    }

    Version send(int replica, String text) {
        Version v = replicas.get(replica).send(text.getBytes(StandardCharsets.UTF_8));
        sent.put(v, text);
        return v;
    }

    /** Both sides of a session over {@code links}; outcomes or the first error. */
    static Outcomes sync(Replica a, SyncSession.Intent ia, Replica b, SyncSession.Intent ib, MemoryLink[] links) {
        Mono<SyncOutcome> left = SyncDriver.run(a, links[0], ia, "a".getBytes(StandardCharsets.UTF_8));
        Mono<SyncOutcome> right = SyncDriver.run(b, links[1], ib, "b".getBytes(StandardCharsets.UTF_8));
        List<Object> results = new ArrayList<>(List.of("pending", "pending"));
        left.subscribe(o -> results.set(0, o), e -> results.set(0, e));
        right.subscribe(o -> results.set(1, o), e -> results.set(1, e));
        long deadline = System.nanoTime() + BLOCK_LIMIT.toNanos();
        while (results.contains("pending") && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        return new Outcomes(results.get(0), results.get(1));
    }

    Outcomes sync(int i, int j) {
        return sync(replicas.get(i), SyncSession.Intent.GOSSIP, replicas.get(j), SyncSession.Intent.GOSSIP,
                MemoryLink.pair());
    }

    /** The results of both sides. */
    record Outcomes(Object left, Object right) {
        Throwable error() {
            return left instanceof Throwable ? (Throwable) left : right instanceof Throwable ? (Throwable) right : null;
        }

        SyncOutcome leftOutcome() {
            return (SyncOutcome) left;
        }

        SyncOutcome rightOutcome() {
            return (SyncOutcome) right;
        }
    }
}
