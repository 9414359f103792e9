package sush.pipeline.sim;

import java.security.SecureRandom;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import sush.projections.job.KeyException;
import sush.projections.job.SignatureAlgorithm;
import sush.projections.job.SignerKey;
import sush.projections.job.TrustStore;

/**
 * The simulator as a command: {@code --seeds N} random schedules (8 sleds unless {@code --sleds}),
 * {@code --seed S} replays one and prints its trace. Prints a summary per failing seed and one
 * JSON line: {@code seeds}, {@code violations}, {@code seeds_per_min}, {@code fault_kinds}.
 */
public final class SimMain {
    /** Steps of a random schedule. */
    public static final int STEPS = 40;

    private SimMain() {
    }

    public static void main(String[] args) throws KeyException {
        int seeds = 1_000;
        Integer sleds = null;
        Long one = null;
        boolean quick = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--seeds" -> seeds = Integer.parseInt(args[++i]);
                case "--sleds" -> sleds = Integer.parseInt(args[++i]);
                case "--seed" -> one = Long.parseLong(args[++i]);
                case "--quick" -> quick = true;
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (use --seeds N, --sleds K, --seed S, --quick)");
            }
        }
        SignerKey key = SignerKey.generate(SignatureAlgorithm.ED25519, new SecureRandom());
        TrustStore trust = TrustStore.of(List.of(key.publicPem()));
        if (one != null) {
            System.exit(replay(one, sleds == null ? 8 : sleds, key, trust) ? 0 : 1);
        }
        if (quick) {
            seeds = Math.min(seeds, 200);
        }
        // Without --sleds: the 8-sled rack, then a 32-sled one on a tenth of the seeds.
        List<int[]> runs = sleds != null ? List.of(new int[] {sleds, seeds})
                : List.of(new int[] {8, seeds}, new int[] {32, Math.max(1, seeds / 10)});
        StringBuilder json = new StringBuilder("{\"bench\":\"sim\"");
        int violations = 0;
        for (int[] r : runs) {
            Figures f = batch(r[1], r[0], key, trust);
            violations += f.violations;
            String suffix = runs.size() > 1 && r[0] != 8 ? "_" + r[0] : "";
            json.append(String.format(Locale.ROOT, ",\"seeds%s\":%d,\"violations%s\":%d,\"seeds_per_min%s\":%.0f,"
                    + "\"fault_kinds%s\":%d", suffix, r[1], suffix, f.violations, suffix, f.seedsPerMin, suffix,
                    f.kinds));
        }
        System.out.println(json.append('}'));
        System.exit(violations == 0 ? 0 : 1);
    }

    private record Figures(int violations, double seedsPerMin, int kinds) {
    }

    private static Figures batch(int seeds, int sleds, SignerKey key, TrustStore trust) {
        int failures = 0;
        Map<String, Integer> kinds = new TreeMap<>();
        Map<String, Long> totals = new TreeMap<>();
        long t0 = System.nanoTime();
        for (long seed = 1; seed <= seeds; seed++) {
            Simulation.Result r = new Simulation(seed, sleds, key, trust).run(Schedules.random(seed, sleds, STEPS));
            r.faultKinds().forEach(k -> kinds.merge(k, 1, Integer::sum));
            totals.merge("launches", r.launches(), Long::sum);
            totals.merge("floors", r.floors(), Long::sum);
            totals.merge("hops", r.hops(), Long::sum);
            totals.merge("flip-flops", r.flipFlops(), Long::sum);
            totals.merge("crashes", r.crashes(), Long::sum);
            r.skips().forEach((k, v) -> totals.merge("skipped " + k, v, Long::sum));
            if (!r.ok()) {
                failures++;
                System.out.println(r.summary());
                System.out.println("  replay: ./bench.sh sim --seed " + seed + " --sleds " + sleds);
            }
        }
        double minutes = (System.nanoTime() - t0) / 60e9;
        System.out.printf(Locale.ROOT, "%d seeds of %d sleds, %d steps each: %d violations, %.0f seeds/min%n", seeds,
                sleds, STEPS, failures, seeds / minutes);
        System.out.println("  fault kinds (seeds in which each fired, of " + seeds + "): " + kinds);
        System.out.println("  | fault kind | seeds | share |");
        System.out.println("  |---|---|---|");
        kinds.forEach((k, n) -> System.out.printf(Locale.ROOT, "  | %s | %d | %.1f%% |%n", k, n, 100.0 * n / seeds));
        System.out.println("  totals: " + totals);
        return new Figures(failures, seeds / minutes, kinds.size());
    }

    /** Replays one seed: its trace, its summary, and on failure a shrunk schedule. */
    private static boolean replay(long seed, int sleds, SignerKey key, TrustStore trust) {
        List<Step> steps = Schedules.random(seed, sleds, STEPS);
        Simulation.Result r = new Simulation(seed, sleds, key, trust).run(steps);
        r.trace().forEach(System.out::println);
        System.out.println(r.summary());
        if (!r.ok()) {
            List<Step> small = Shrink.minimize(steps, s -> !new Simulation(seed, sleds, key, trust).run(s).ok());
            System.out.println("shrunk to " + small.size() + " steps (save as a regression scenario):");
            small.forEach(st -> System.out.println("  " + st));
        }
        return r.ok();
    }
}
