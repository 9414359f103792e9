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
        int seeds = 300;
        int sleds = 8;
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
        System.exit(run(seeds, sleds, one, quick) ? 0 : 1);
    }

    /** Runs and prints; true if no seed broke a promise. */
    public static boolean run(int seeds, int sleds, Long one, boolean quick) throws KeyException {
        SignerKey key = SignerKey.generate(SignatureAlgorithm.ED25519, new SecureRandom());
        TrustStore trust = TrustStore.of(List.of(key.publicPem()));
        if (one != null) {
            Simulation.Result r = new Simulation(one, sleds, key, trust).run(Schedules.random(one, sleds, STEPS));
            r.trace().forEach(System.out::println);
            System.out.println(r.summary());
            return r.ok();
        }
        int failures = 0;
        Map<String, Integer> kinds = new TreeMap<>();
        long t0 = System.nanoTime();
        int total = quick ? Math.min(seeds, 100) : seeds;
        for (long seed = 1; seed <= total; seed++) {
            Simulation.Result r = new Simulation(seed, sleds, key, trust).run(Schedules.random(seed, sleds, STEPS));
            r.faultKinds().forEach(k -> kinds.merge(k, 1, Integer::sum));
            if (!r.ok()) {
                failures++;
                System.out.println(r.summary());
            }
        }
        double minutes = (System.nanoTime() - t0) / 60e9;
        System.out.printf(Locale.ROOT, "%d seeds of %d sleds, %d steps each: %d violations, %.0f seeds/min%n", total,
                sleds, STEPS, failures, total / minutes);
        System.out.println("fault kinds (seeds in which each fired): " + kinds);
        System.out.printf(Locale.ROOT, "{\"bench\":\"sim\",\"seeds\":%d,\"violations\":%d,\"seeds_per_min\":%.0f,"
                + "\"fault_kinds\":%d}%n", total, failures, total / minutes, kinds.size());
        return failures == 0;
    }
}
