package sush.gossip.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

import sush.gossip.clock.Id;
import sush.gossip.clock.Version;

/**
 * Nanoseconds per tick, join and leq on versions of a 32-party universe (every party has
 * ticked and gossiped, so versions have about 32 leaves). Run: {@code ./bench.sh itc [--quick]}.
 */
public final class ItcBench {
    private static final int PARTIES = 32;
    private static final int VERSIONS = 256;
    private static final int OPS_PER_SAMPLE = 20_000;

    private ItcBench() {
    }

    public static void main(String[] args) throws Exception {
        boolean quick = Measure.quick(args);
        int samples = quick ? 30 : 200;
        List<Id> ids = Id.ONE.fork(PARTIES);
        Version[] versions = new Version[VERSIONS];
        Random random = new Random(7);
        Version frontier = Version.ZERO;
        for (int p = 0; p < PARTIES; p++) {
            for (int t = 0; t < 1 + random.nextInt(5); t++) {
                frontier = frontier.tick(ids.get(p));
            }
        }
        for (int i = 0; i < VERSIONS; i++) {
            Version mine = frontier.tick(ids.get(random.nextInt(PARTIES)));
            versions[i] = mine;
            if (random.nextInt(4) == 0) {
                frontier = frontier.join(mine);
            }
        }
        int leaves = 0;
        for (Version v : versions) {
            leaves += v.leafCount();
        }
        long[] sink = new long[1];
        long[] tick = Measure.samples(samples / 3, samples, () -> {
            long start = System.nanoTime();
            for (int i = 0; i < OPS_PER_SAMPLE; i++) {
                sink[0] += versions[i & (VERSIONS - 1)].tick(ids.get(i & (PARTIES - 1))).leafCount();
            }
            return System.nanoTime() - start;
        });
        long[] join = Measure.samples(samples / 3, samples, () -> {
            long start = System.nanoTime();
            for (int i = 0; i < OPS_PER_SAMPLE; i++) {
                sink[0] += versions[i & (VERSIONS - 1)].join(versions[(i * 7 + 3) & (VERSIONS - 1)]).leafCount();
            }
            return System.nanoTime() - start;
        });
        long[] leq = Measure.samples(samples / 3, samples, () -> {
            long start = System.nanoTime();
            for (int i = 0; i < OPS_PER_SAMPLE; i++) {
                sink[0] += versions[i & (VERSIONS - 1)].leq(versions[(i * 7 + 3) & (VERSIONS - 1)]) ? 1 : 0;
            }
            return System.nanoTime() - start;
        });
        Map<String, Double> figures = new LinkedHashMap<>();
        figures.put("tick_ns", Measure.median(tick) / OPS_PER_SAMPLE);
        figures.put("join_ns", Measure.median(join) / OPS_PER_SAMPLE);
        figures.put("leq_ns", Measure.median(leq) / OPS_PER_SAMPLE);
        System.out.printf(Locale.ROOT, "itc: %d-party universe, versions of %.1f leaves on average (checksum %d)%n",
                PARTIES, leaves / (double) VERSIONS, sink[0] % 10);
        figures.forEach((k, v) -> System.out.printf(Locale.ROOT, "%-8s %8.1f ns/op%n", k, v));
        System.out.println(Measure.json("itc", figures));
    }
}
