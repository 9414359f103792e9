package sush.gossip.bench;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import reactor.core.publisher.Mono;
import sush.gossip.Entropy;
import sush.gossip.link.MemoryLink;
import sush.gossip.set.NetworkId;
import sush.gossip.set.Replica;
import sush.gossip.sync.SyncDriver;
import sush.gossip.sync.SyncOutcome;
import sush.gossip.sync.SyncSession;

/**
 * Two replicas over the in-memory link share 10,000 small messages; one side holds I extra.
 * Reports the median time of a whole session (both sides done) and the bytes on the wire per
 * extra message. Run: {@code ./bench.sh sync [--quick]}.
 */
public final class SyncBench {
    private static final int SHARED_MESSAGES = 10_000;
    private static final int PAYLOAD_BYTES = 32;
    private static final byte[] SENDER = {'b'};

    private SyncBench() {
    }

    public static void main(String[] args) throws Exception {
        boolean quick = Measure.quick(args);
        Replica ahead = Replica.seed(NetworkId.random(Entropy.seeded(42)));
        Replica behind = bootstrap(ahead);
        for (int i = 0; i < SHARED_MESSAGES; i++) {
            (i % 2 == 0 ? ahead : behind).send(payload(i));
        }
        session(ahead, behind);
        Map<String, Double> figures = new LinkedHashMap<>();
        System.out.println("sync: two replicas sharing " + SHARED_MESSAGES + " messages of " + PAYLOAD_BYTES + " bytes");
        System.out.printf(Locale.ROOT, "%-8s %12s %12s %14s %8s%n", "extra I", "median", "p90", "bytes/session", "samples");
        long bytesAtZero = 0;
        int sent = 0;
        for (int extra : new int[] {0, 500, 5000}) {
            for (; sent < extra; sent++) {
                ahead.send(payload(SHARED_MESSAGES + sent));
            }
            int samples = extra == 0 ? (quick ? 2_000 : 20_000) : extra == 500 ? (quick ? 60 : 300) : (quick ? 15 : 60);
            // A session of two microseconds reaches steady-state code only after about 100,000
            // runs (measured: 31 us average over the first 50,000, 2 us from 100,000 on).
            int warmup = extra == 0 ? (quick ? 50_000 : 200_000) : samples / 5;
            long[] bytes = new long[1];
            long[] nanos = Measure.samples(warmup, samples, () -> {
                Replica fresh = extra == 0 ? behind : bootstrap(behind);
                MemoryLink[] links = MemoryLink.pair();
                long start = System.nanoTime();
                SyncOutcome o = session(ahead, fresh, links);
                long elapsed = System.nanoTime() - start;
                if (o.sent() != extra) {
                    throw new IllegalStateException("expected " + extra + " supplied, got " + o.sent());
                }
                bytes[0] = links[0].bytesSent() + links[1].bytesSent();
                return elapsed;
            });
            if (extra == 0) {
                bytesAtZero = bytes[0];
            }
            double medianNs = Measure.median(nanos);
            System.out.printf(Locale.ROOT, "%-8d %10.1fus %10.1fus %14d %8d%n", extra, medianNs / 1e3,
                    Measure.percentile(nanos, 90) / 1e3, bytes[0], samples);
            if (extra == 0) {
                figures.put("i0_us", medianNs / 1e3);
            } else {
                figures.put("i" + extra + "_ms", medianNs / 1e6);
            }
            if (extra == 5000) {
                figures.put("bytes_per_msg", (bytes[0] - bytesAtZero) / (double) extra);
            }
        }
        System.out.println("reference (Rust library, its authors' machine): i5000 9.2 ms, i0 about 17 us");
        System.out.println(Measure.json("sync", figures));
    }

    private static byte[] payload(int i) {
        byte[] p = new byte[PAYLOAD_BYTES];
        for (int k = 0; k < p.length; k++) {
            p[k] = (byte) (i * 31 + k);
        }
        return p;
    }

    /** A newcomer holding everything {@code provider} holds (the provider's identity is forked). */
    private static Replica bootstrap(Replica provider) {
        Replica newcomer = Replica.newcomer();
        runPair(provider, SyncSession.Intent.GOSSIP, newcomer, SyncSession.Intent.BOOTSTRAP, MemoryLink.pair());
        return newcomer;
    }

    private static SyncOutcome session(Replica a, Replica b) {
        return session(a, b, MemoryLink.pair());
    }

    private static SyncOutcome session(Replica a, Replica b, MemoryLink[] links) {
        return runPair(a, SyncSession.Intent.GOSSIP, b, SyncSession.Intent.GOSSIP, links);
    }

    private static SyncOutcome runPair(Replica a, SyncSession.Intent ia, Replica b, SyncSession.Intent ib,
            MemoryLink[] links) {
        return Mono.zip(SyncDriver.run(a, links[0], ia, SENDER), SyncDriver.run(b, links[1], ib, SENDER))
                .map(t -> t.getT1()).block();
    }
}
