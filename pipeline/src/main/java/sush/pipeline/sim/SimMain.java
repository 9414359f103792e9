package sush.pipeline.sim;

import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Supplier;

import sush.projections.fold.Ordering;
import sush.projections.fold.Settlement;
import sush.projections.job.ClientChain;
import sush.projections.job.KeyException;
import sush.projections.job.SignatureAlgorithm;
import sush.projections.job.SignerKey;
import sush.projections.job.TrustStore;

/**
 * The simulator as a command: {@code --seeds N} random schedules (8 sleds unless {@code --sleds}),
 * {@code --seed S} replays one and prints its trace, {@code --ordering signed|causal} picks the
 * session ordering (causal unless given; signed schedules add replayed grants). Prints a summary
 * per failing seed and one JSON line: {@code seeds}, {@code violations}, {@code seeds_per_min},
 * {@code fault_kinds}, {@code refused_per_1000}. {@code --compare} runs the same random schedules
 * under both orderings and prints {@code refused_per_1000_signed} beside
 * {@code refused_per_1000_causal} (refused: (sled, job) pairs skipped BelowFloor or Superseded,
 * per 1,000 targeted pairs submitted; a request held at the end for a session the sled never learnt of,
 * its start lost with a universe, counts as refused too) with both orderings' violations; the compared schedules have
 * no signed-only faults (no replayed grants, no signer clock going back).
 */
public final class SimMain {
    /** Steps of a random schedule. */
    public static final int STEPS = 40;
    /**
     * The simulated operator's client: the CLI's (kept chain), or, to see the checkers catch it,
     * the CLI's placement and resume of before issue 34 ({@code --client sled-next-job}).
     */
    private static Simulation.Client client = Simulation.Client.KEPT_CHAIN;
    /**
     * Issue 39: the sleds run their settlement, as a daemon of a rack does by default (D-057);
     * {@code --no-forgetting} runs none (null), {@code --forgetting-break R} a wrong rule.
     */
    private static Settlement.Break forgetting = Settlement.Break.NONE;
    /** {@code --seeds-with KIND}: names every seed in which that fault kind fired (to replay one). */
    private static String seedsWith;
    /** Issue 39: {@code --jobs N} runs a steady rack of N jobs instead of random schedules. */
    private static Integer steadyJobs;
    /**
     * Issue 39: jobs per session of a steady run ({@code --session-jobs S}). By default as many as
     * an operator's kept chain holds ({@link ClientChain#MAX_ENTRIES}): past them the client says
     * to start a new session (D-058: the sleds' chains follow the live work, the operator's record
     * of what it signed does not).
     */
    private static int sessionJobs = ClientChain.MAX_ENTRIES;
    /** Issue 39: {@code --restarts N} restarts random sleds N times and follows the largest version. */
    private static Integer restarts;
    /** Issue 39: {@code --identity keep|fork|stale}: how a restarted sled takes an identity (D-053). */
    private static Simulation.Identity identity = Simulation.Identity.KEEP;
    /** Issue 40: the operator signs jobs in waves (on by default; {@code --no-waves} signs none). */
    private static boolean waves = true;

    private SimMain() {
    }

    public static void main(String[] args) throws KeyException {
        int seeds = 1_000;
        Integer sleds = null;
        Long one = null;
        boolean quick = false;
        boolean compare = false;
        Ordering ordering = Ordering.CAUSAL;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--seeds" -> seeds = Integer.parseInt(args[++i]);
                case "--sleds" -> sleds = Integer.parseInt(args[++i]);
                case "--seed" -> one = Long.parseLong(args[++i]);
                case "--quick" -> quick = true;
                case "--compare" -> compare = true;
                case "--ordering" -> ordering = Ordering.parse(args[++i]);
                case "--client" -> client = Simulation.Client.valueOf(args[++i].toUpperCase(Locale.ROOT).replace('-', '_'));
                case "--forgetting" -> forgetting = Settlement.Break.NONE; // the default
                case "--no-forgetting" -> forgetting = null;
                case "--waves" -> waves = true; // the default
                case "--no-waves" -> waves = false;
                case "--seeds-with" -> seedsWith = args[++i];
                case "--jobs" -> steadyJobs = Integer.parseInt(args[++i]);
                case "--session-jobs" -> sessionJobs = Integer.parseInt(args[++i]);
                case "--restarts" -> restarts = Integer.parseInt(args[++i]);
                case "--identity" -> identity = Simulation.Identity.valueOf(args[++i].toUpperCase(Locale.ROOT));
                case "--forgetting-break" -> forgetting = Settlement.Break.valueOf(args[++i].toUpperCase(Locale.ROOT)
                        .replace('-', '_'));
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (use --seeds N, --sleds K, --seed S, --quick, --ordering signed|causal, --compare, "
                        + "--client kept-chain|sled-next-job, --no-forgetting, --seeds-with KIND, --forgetting-break unseen|unended|not-prefix|any-branch|any-hole, --restarts N, --identity keep|fork|stale, --no-waves)");
            }
        }
        SignerKey key = signerKey();
        TrustStore trust = TrustStore.of(List.of(key.publicPem()));
        if (one != null) {
            System.exit(replay(one, sleds == null ? 8 : sleds, key, trust, ordering) ? 0 : 1);
        }
        if (restarts != null) {
            Simulation.Restarts r = new Simulation(1, sleds == null ? 5 : sleds, key, trust, ordering)
                    .forgetting(forgetting).identity(identity).restarts(restarts, new Random(1));
            r.violations().forEach(v -> System.out.println("  VIOLATION " + v));
            System.out.printf(Locale.ROOT, "{\"bench\":\"sim-restarts\",\"ordering\":\"%s\",\"identity\":\"%s\","
                    + "\"sleds\":%d,\"restarts\":%d,\"version_bytes_after_32\":%d,\"version_bytes_last\":%d,"
                    + "\"version_bytes_max\":%d,\"launches\":%d,\"violations\":%d}%n", ordering,
                    identity.name().toLowerCase(Locale.ROOT),
                    sleds == null ? 5 : sleds, r.restarts(), r.versionAfterFirst32(), r.versionLast(), r.versionMax(),
                    r.launches(), r.violations().size());
            System.exit(r.violations().isEmpty() ? 0 : 1);
        }
        if (steadyJobs != null) {
            System.exit(steady(steadyJobs, sleds == null ? 8 : sleds, key, trust, ordering) ? 0 : 1);
        }
        if (quick) {
            seeds = Math.min(seeds, 200);
        }
        if (compare) {
            int k = sleds == null ? 8 : sleds;
            Figures causal = batch(seeds, k, key, trust, Ordering.CAUSAL, false);
            Figures signed = batch(seeds, k, key, trust, Ordering.SIGNED, false);
            System.out.println(String.format(Locale.ROOT, "{\"bench\":\"sim-compare\",\"seeds\":%d,\"sleds\":%d,"
                    + "\"refused_per_1000_signed\":%.2f,\"refused_per_1000_causal\":%.2f,\"violations_signed\":%d,"
                    + "\"violations_causal\":%d,\"launches_signed\":%d,\"launches_causal\":%d}", seeds, k,
                    signed.refusedPer1000, causal.refusedPer1000, signed.violations, causal.violations, signed.launches,
                    causal.launches));
            System.exit(signed.violations + causal.violations == 0 && signed.refusedPer1000 < causal.refusedPer1000
                    ? 0 : 1);
        }
        // Without --sleds: the 8-sled rack, then a 32-sled one on a tenth of the seeds.
        List<int[]> runs = sleds != null ? List.of(new int[] {sleds, seeds})
                : List.of(new int[] {8, seeds}, new int[] {32, Math.max(1, seeds / 10)});
        StringBuilder json = new StringBuilder("{\"bench\":\"sim\",\"ordering\":\"" + ordering + "\"");
        int violations = 0;
        for (int[] r : runs) {
            Figures f = batch(r[1], r[0], key, trust, ordering, ordering == Ordering.SIGNED);
            violations += f.violations;
            String suffix = runs.size() > 1 && r[0] != 8 ? "_" + r[0] : "";
            json.append(String.format(Locale.ROOT, ",\"seeds%s\":%d,\"violations%s\":%d,\"seeds_per_min%s\":%.0f,"
                    + "\"fault_kinds%s\":%d,\"refused_per_1000%s\":%.2f", suffix, r[1], suffix, f.violations, suffix,
                    f.seedsPerMin, suffix, f.kinds, suffix, f.refusedPer1000));
        }
        System.out.println(json.append('}'));
        System.exit(violations == 0 ? 0 : 1);
    }

    /**
     * The simulated signer's key, the same in every run: session and job ids derive from it, and
     * with them the order of hash maps and ties, so a failing seed replays exactly in another
     * process ({@code --seed S}) only with the very key it failed with.
     */
    public static SignerKey signerKey() {
        try {
            SecureRandom fixed = SecureRandom.getInstance("SHA1PRNG");
            fixed.setSeed("sush-simulator-signer".getBytes(StandardCharsets.US_ASCII));
            return SignerKey.generate(SignatureAlgorithm.ED25519, fixed);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA1PRNG is in every JDK", e);
        }
    }

    private record Figures(int violations, double seedsPerMin, int kinds, double refusedPer1000, long launches) {
    }

    /** A seed's simulation as the options say (client, forgetting, identity, waves). */
    public static Simulation configured(Simulation sim) {
        sim.client(client).forgetting(forgetting).identity(identity);
        return waves ? sim.waves() : sim;
    }

    /** The schedule of {@code seed}: the random one, with replayed grants when {@code replays}. */
    public static List<Step> schedule(long seed, int sleds, boolean replays) {
        List<Step> steps = Schedules.random(seed, sleds, STEPS);
        return replays ? Schedules.withReplays(steps, seed, sleds) : steps;
    }

    private static Figures batch(int seeds, int sleds, SignerKey key, TrustStore trust, Ordering ordering,
            boolean replays) {
        long targeted = 0;
        long refused = 0;
        int failures = 0;
        Map<String, Integer> kinds = new TreeMap<>();
        Map<String, Long> totals = new TreeMap<>();
        Map<String, Long> reSaid = new TreeMap<>();
        long t0 = System.nanoTime();
        for (long seed = 1; seed <= seeds; seed++) {
            Simulation sim = configured(new Simulation(seed, sleds, key, trust, ordering));
            Simulation.Result r = (replays ? sim.signerClockGoesBack() : sim).run(schedule(seed, sleds, replays));
            targeted += r.targeted();
            refused += r.refused();
            r.faultKinds().forEach(k -> kinds.merge(k, 1, Integer::sum));
            if (seedsWith != null && r.faultKinds().contains(seedsWith)) {
                System.out.println("  " + seedsWith + ": seed " + seed);
            }
            totals.merge("launches", r.launches(), Long::sum);
            totals.merge("floors", r.floors(), Long::sum);
            totals.merge("hops", r.hops(), Long::sum);
            totals.merge("flip-flops", r.flipFlops(), Long::sum);
            totals.merge("crashes", r.crashes(), Long::sum);
            r.skips().forEach((k, v) -> totals.merge("skipped " + k, v, Long::sum));
            r.endingsReSaid().forEach((k, v) -> reSaid.merge(k, v, Long::sum));
            if (!r.ok()) {
                failures++;
                System.out.println(r.summary());
                System.out.println("  replay: ./bench.sh sim --seed " + seed + " --sleds " + sleds + " --ordering "
                        + ordering);
            }
        }
        double minutes = (System.nanoTime() - t0) / 60e9;
        double per1000 = targeted == 0 ? 0 : 1000.0 * refused / targeted;
        System.out.printf(Locale.ROOT, "%s: %d seeds of %d sleds, %d steps each: %d violations, %.0f seeds/min, "
                + "%d of %d targeted (sled, job) pairs refused (%.2f per 1,000)%n", ordering, seeds, sleds, STEPS,
                failures, seeds / minutes, refused, targeted, per1000);
        System.out.println("  fault kinds (seeds in which each fired, of " + seeds + "): " + kinds);
        System.out.println("  | fault kind | seeds | share |");
        System.out.println("  |---|---|---|");
        kinds.forEach((k, n) -> System.out.printf(Locale.ROOT, "  | %s | %d | %.1f%% |%n", k, n, 100.0 * n / seeds));
        System.out.println("  totals: " + totals);
        System.out.println("  a second ending of a job in one life of a sled, by what it said first and then: "
                + reSaid);
        return new Figures(failures, seeds / minutes, kinds.size(), per1000, totals.getOrDefault("launches", 0L));
    }

    /** A steady rack (issue 39): its figures as a table and one JSON line; true when no checker found anything. */
    private static boolean steady(int jobs, int sleds, SignerKey key, TrustStore trust, Ordering ordering) {
        long t0 = System.nanoTime();
        Simulation.Steady r = new Simulation(1, sleds, key, trust, ordering).forgetting(forgetting)
                .steady(jobs, sessionJobs, Math.max(1, jobs / 100));
        double seconds = (System.nanoTime() - t0) / 1e9;
        System.out.printf(Locale.ROOT, "%s, %d sleds, %d jobs (sessions of %s), forgetting %s: %d launches in %.0f s%n",
                ordering, sleds, jobs, String.valueOf(sessionJobs),
                forgetting == null ? "off" : forgetting.name().toLowerCase(Locale.ROOT), r.launches(), seconds);
        System.out.println("  | largest set of any sled | messages |");
        System.out.println("  |---|---|");
        System.out.printf(Locale.ROOT, "  | after warm-up (10%% of the jobs) | %d |%n  | largest after warm-up | %d |%n"
                + "  | largest | %d |%n  | at the end | %d |%n", r.setAtWarmup(), r.setMaxAfterWarmup(), r.setMax(),
                r.setLast());
        System.out.println("  forgotten (every sled): " + r.forgotten() + "; chain remembered (any sled's fullest "
                + "memory): " + r.chainMax() + " at most, " + r.chainLast() + " at the end");
        r.violations().forEach(v -> System.out.println("  VIOLATION " + v));
        System.out.printf(Locale.ROOT, "{\"bench\":\"sim-steady\",\"ordering\":\"%s\",\"sleds\":%d,\"jobs\":%d,"
                + "\"forgetting\":%b,\"launches\":%d,\"set_at_warmup\":%d,\"set_max_after_warmup\":%d,\"set_max\":%d,"
                + "\"set_last\":%d,\"chain_max\":%d,\"chain_last\":%d,\"forgotten\":%d,\"violations\":%d,"
                + "\"seconds\":%.0f}%n", ordering, sleds, jobs, forgetting != null, r.launches(), r.setAtWarmup(),
                r.setMaxAfterWarmup(), r.setMax(), r.setLast(), r.chainMax(), r.chainLast(), r.forgotten(),
                r.violations().size(), seconds);
        return r.violations().isEmpty();
    }

    /** Replays one seed: its trace, its summary, and on failure a shrunk schedule. */
    private static boolean replay(long seed, int sleds, SignerKey key, TrustStore trust, Ordering ordering) {
        List<Step> steps = schedule(seed, sleds, ordering == Ordering.SIGNED);
        boolean signed = ordering == Ordering.SIGNED;
        Supplier<Simulation> sim = () -> signed
                ? configured(new Simulation(seed, sleds, key, trust, ordering)).signerClockGoesBack()
                : configured(new Simulation(seed, sleds, key, trust, ordering));
        Simulation.Result r = sim.get().run(steps);
        r.trace().forEach(System.out::println);
        System.out.println(r.summary());
        if (!r.ok()) {
            List<Step> small = Shrink.minimize(steps, s -> !sim.get().run(s).ok());
            System.out.println("shrunk to " + small.size() + " steps (save as a regression scenario):");
            small.forEach(st -> System.out.println("  " + st));
        }
        return r.ok();
    }
}
