package sush.ops.nemesis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;

import sush.gossip.net.RackCa;
import sush.ops.cli.Client;
import sush.ops.cli.RackCommand;
import sush.ops.daemon.RackFile;
import sush.ops.wire.Readiness;
import sush.projections.fold.Ordering;

/**
 * {@code ./bench.sh nemesis [--minutes M] [--sleds N] [--ordering signed|causal] [--seed S]}
 * (issue 38): N real daemons, each in its own network namespace, an operator in the root
 * namespace, and for M minutes a nemesis driven by the seed: partitions, one-way drops, congested
 * and lossy links, links down, kill -9 and power cuts, SIGSTOP pauses, slow and failing slots, a
 * full output disk, wall clocks that jump, whole-rack cold boots. Then everything is healed and
 * the checkers judge what happened from the jobs' own ledger and what the sleds said: at most
 * once, status truth, liveness after the heal, no daemon exit the nemesis did not cause, no
 * untyped failure in a log. It prints the fault table, the verdicts and one JSON line; on a
 * violation also the seed, the schedule, the ledger's lines of the jobs concerned and each
 * daemon's log tail. Exit 0 only when every checker passed; 0 with a printed reason when this
 * machine cannot make namespaces (not root, no {@code ip}/{@code tc}/{@code iptables-legacy},
 * no libfaketime).
 */
public final class NemesisBench {
    private NemesisBench() {
    }

    /** What the run found: the violations, whether liveness was reached, and numbers for the JSON line. */
    record Verdict(List<String> violations, boolean liveness, String livenessNote) {
    }

    public static void main(String[] args) throws Exception {
        double minutes = Double.parseDouble(option(args, "--minutes", "10"));
        int n = Integer.parseInt(option(args, "--sleds", "5"));
        Ordering ordering = Ordering.valueOf(option(args, "--ordering", "signed").toUpperCase(Locale.ROOT));
        long seed = Long.parseLong(option(args, "--seed", Long.toString(System.nanoTime() % 1_000_000_000L)));
        String skip = unavailable();
        if (skip != null) {
            System.out.println("nemesis: skipped: " + skip);
            System.out.printf(Locale.ROOT, "{\"bench\":\"nemesis\",\"skipped\":\"%s\"}%n", skip.replace('"', '\''));
            return;
        }
        if (n < 3) {
            throw new IllegalArgumentException("--sleds: at least 3");
        }
        System.exit(run(minutes, n, ordering, seed, !Arrays.asList(args).contains("--no-forgetting")) ? 0 : 1);
    }

    private static String option(String[] args, String name, String otherwise) {
        int at = Arrays.asList(args).indexOf(name);
        return at >= 0 && at + 1 < args.length ? args[at + 1] : otherwise;
    }

    /** Why this machine cannot run the nemesis, or null. */
    static String unavailable() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "the nemesis makes network namespaces and mounts: it runs as root";
        }
        if (!Files.exists(Path.of(Sleds.FAKETIME_LIB))) {
            return "libfaketime is not installed (" + Sleds.FAKETIME_LIB + ")";
        }
        return Netns.unavailable();
    }

    /** One run; true when every checker passed. */
    static boolean run(double minutes, int n, Ordering ordering, long seed) throws Exception {
        return run(minutes, n, ordering, seed, false);
    }

    /** One run, every daemon forgetting what the rack settled when {@code forgetting} (issue 39). */
    static boolean run(double minutes, int n, Ordering ordering, long seed, boolean forgetting) throws Exception {
        long pid = ProcessHandle.current().pid();
        String tag = String.format("%03x", (seed ^ pid) & 0xfff);
        int subnet = 1 + (int) (pid % 250);
        Path dir = Files.createTempDirectory(Files.createDirectories(Path.of("ops", "target")), "nemesis-" + seed + "-")
                .toAbsolutePath();
        System.out.printf(Locale.ROOT, "nemesis: %d sleds, %s ordering, %.1f min, seed %d%s, in %s%n", n,
                ordering.wireName(), minutes, seed, forgetting ? ", forgetting" : "", dir);
        Netns net = new Netns(tag, subnet, n);
        AtomicBoolean closed = new AtomicBoolean();
        Sleds[] sledsRef = new Sleds[1];
        Runnable cleanup = () -> {
            if (closed.compareAndSet(false, true)) {
                if (sledsRef[0] != null) {
                    sledsRef[0].close();
                }
                net.close();
            }
        };
        Thread hook = new Thread(cleanup, "nemesis-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            net.up();
            RackFile made = RackCommand.create(dir, n, 7100, ordering);
            List<RackFile.SledEntry> entries = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                RackFile.SledEntry e = made.sleds().get(i);
                entries.add(new RackFile.SledEntry(e.baseboard(), e.cubby(), net.ip(i) + ":7100", net.ip(i) + ":7200",
                        e.m2(), e.output(), e.peers()));
            }
            RackFile rack = made.withSleds(entries);
            rack.write(dir.resolve("rack.json"));
            Sleds sleds = new Sleds(dir, rack, net);
            sleds.forgetting = forgetting;
            sledsRef[0] = sleds;
            sleds.prepare();
            return new Run(dir, n, ordering, seed, minutes, net, sleds).go();
        } finally {
            cleanup.run();
            Runtime.getRuntime().removeShutdownHook(hook);
        }
    }

    /** The run's phases, from the first start to the verdicts. */
    private static final class Run {
        private final Path dir;
        private final int n;
        private final Ordering ordering;
        private final long seed;
        private final double minutes;
        private final Netns net;
        private final Sleds sleds;
        private final Ledger ledger;
        private final Workload operator;
        private final Observer observer;
        private final Faults faults;
        private final long t0 = System.nanoTime();

        Run(Path dir, int n, Ordering ordering, long seed, double minutes, Netns net, Sleds sleds) throws Exception {
            this.dir = dir;
            this.n = n;
            this.ordering = ordering;
            this.seed = seed;
            this.minutes = minutes;
            this.net = net;
            this.sleds = sleds;
            this.ledger = new Ledger(dir.resolve("ledger"));
            this.operator = new Workload(dir, sleds, ordering, new Random(seed), ledger.file());
            this.observer = new Observer(sleds, operator);
            long scale = (long) Math.min(30_000, Math.max(4_000, minutes * 60_000 / 20));
            this.faults = new Faults(new Random(seed * 31 + 7), net, sleds, operator, scale);
        }

        private long now() {
            return (System.nanoTime() - t0) / 1_000_000;
        }

        boolean go() throws Exception {
            for (int i = 0; i < n; i++) {
                sleds.start(i);
            }
            if (!converged(120_000)) {
                throw new IllegalStateException("the rack did not come up in 120 s; see " + dir);
            }
            long end = now() + (long) (minutes * 60_000);
            AtomicBoolean running = new AtomicBoolean(true);
            Thread work = new Thread(() -> {
                Random pace = new Random(seed + 1);
                while (running.get()) {
                    try {
                        operator.step();
                        Thread.sleep(50 + pace.nextInt(300));
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "nemesis-operator");
            Thread watch = new Thread(() -> {
                while (running.get()) {
                    observer.observe();
                    try {
                        Thread.sleep(3_000);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "nemesis-observer");
            work.start();
            watch.start();
            long nextFault = now() + 2_000;
            Random pace = new Random(seed + 2);
            while (now() < end) {
                sleds.watch();
                if (now() >= nextFault) {
                    faults.tick(now());
                    nextFault = now() + 2_000 + pace.nextInt(4_000);
                }
                Thread.sleep(250);
            }
            running.set(false);
            work.join(120_000);
            faults.healAll(now());
            watch.join(120_000);
            Verdict v = judge();
            report(v);
            return v.violations().isEmpty() && v.liveness();
        }

        /** Every sled ready, in one universe, with every peer connected, within {@code ms}. */
        private boolean converged(long ms) throws InterruptedException {
            long until = now() + ms;
            while (now() < until) {
                Set<String> universes = new HashSet<>();
                int ready = 0;
                for (int i = 0; i < n; i++) {
                    try {
                        Readiness r = probe(i).probe("/ready").readiness();
                        if (Boolean.TRUE.equals(r.ready()) && r.peersConnected() != null
                                && r.peersConnected() >= n - 1) {
                            ready++;
                            universes.add(r.universe());
                        }
                    } catch (Client.Failure f) {
                        // not up yet
                    }
                }
                if (ready == n && universes.size() == 1) {
                    return true;
                }
                Thread.sleep(500);
            }
            return false;
        }

        private Verdict judge() throws Exception {
            List<String> violations = new ArrayList<>();
            sleds.watch();
            // Liveness: one universe, a new session, a final job on every sled, terminal statuses.
            boolean live = false;
            String note;
            service();
            if (!converged(180_000)) {
                note = "the sleds did not converge to one ready universe in 180 s after the heal";
            } else {
                note = finalJob();
                live = note == null;
            }
            observer.observe();
            List<Ledger.Execution> ran = ledger.read();
            violations.addAll(Checks.atMostOnce(ran));
            violations.addAll(Checks.statusTruth(ran, observer.claims(), operator.jobs()));
            violations.addAll(Checks.targeted(ran, operator.jobs(), i -> sleds.entry(i).baseboard()));
            for (String e : sleds.unexpectedExits()) {
                violations.add("daemon exit not caused by the nemesis: " + e);
            }
            for (int i = 0; i < n; i++) {
                for (String line : Checks.untypedFailures(sleds.log(i))) {
                    violations.add("sled " + i + " logged an untyped failure: " + line);
                }
            }
            return new Verdict(violations, live, note == null ? "reached" : note);
        }

        /**
         * What an operator does after the drives are fixed: a sled whose boundary slots loaded
         * untrusted (it started while a slot failed with EIO) runs nothing until serviced
         * (at-most-once.md: fail closed, a human decides), and is restarted.
         */
        private void service() throws Exception {
            for (int i = 0; i < n; i++) {
                try {
                    Readiness r = probe(i).probe("/ready").readiness();
                    if (Boolean.FALSE.equals(r.storeTrusted())) {
                        faults.serviced(now(), i);
                    }
                } catch (Client.Failure f) {
                    // not answering: the convergence below says so
                }
            }
        }

        private Client probe(int i) throws Client.Failure {
            String url = "https://" + sleds.entry(i).api();
            return new Client(url, RackCommand.operatorClient(dir, url).credentials(),
                    Client.trusting(dir.resolve(RackCa.CA_CERT)));
        }

        /** A new session, one job on every sled; null when every sled ended it, else what was missing. */
        private String finalJob() throws Exception {
            String last = null;
            for (int attempt = 0; attempt < 5 && last == null; attempt++) {
                try {
                    operator.newSession(0);
                    operator.start(0, "*", false);
                    List<String> order = operator.order();
                    last = order.get(order.size() - 1);
                } catch (Client.Failure f) {
                    operator.forget(0);
                    Thread.sleep(1_000);
                }
            }
            if (last == null) {
                return "the final job could not be started";
            }
            long until = now() + 120_000;
            Set<Integer> ended = new HashSet<>();
            while (now() < until && ended.size() < n) {
                for (int i = 0; i < n; i++) {
                    if (!ended.contains(i) && observer.observe(i)) {
                        for (Observer.Claim c : observer.claims()) {
                            if (c.job().equals(last) && c.sled() == i && !c.status().equals("queued")
                                    && !c.status().equals("started")) {
                                ended.add(i);
                            }
                        }
                    }
                }
                Thread.sleep(500);
            }
            return ended.size() == n ? null : "the final job " + last + " ended on " + ended.size() + " of " + n
                    + " sleds in 120 s";
        }

        private void report(Verdict v) throws IOException {
            List<Ledger.Execution> ran = ledger.read();
            System.out.println();
            System.out.println("faults fired:");
            Map<String, Integer> table = new LinkedHashMap<>();
            for (Faults.Kind k : Faults.Kind.values()) {
                table.put(k.name().toLowerCase(Locale.ROOT).replace('_', '-'), faults.fired().getOrDefault(k, 0));
            }
            table.forEach((k, c) -> System.out.printf(Locale.ROOT, "  %-12s %4d%n", k, c));
            System.out.println("operator: " + new TreeMap<>(operator.actions()));
            long accepted = operator.jobs().values().stream().filter(j -> j.answer().equals("ok")).count();
            System.out.printf(Locale.ROOT, "jobs signed %d, accepted %d; executions in the ledger %d; status reads %d "
                    + "(%d failed)%n", operator.jobs().size(), accepted, ran.size(), observer.reads(),
                    observer.failedReads());
            long serviced = faults.schedule().stream().filter(x -> x.contains(" serviced: ")).count();
            System.out.println("sleds serviced after the heal (store untrusted after an EIO at start): " + serviced);
            System.out.println("checkers:");
            System.out.println("  at most once, status truth, targets, exits, logs: " + (v.violations().isEmpty()
                    ? "pass" : v.violations().size() + " violations"));
            System.out.println("  liveness after the final heal: " + v.livenessNote());
            if (!v.violations().isEmpty() || !v.liveness()) {
                System.out.println();
                System.out.println("seed " + seed + " (replay: ./bench.sh nemesis --seed " + seed + " --sleds " + n
                        + " --ordering " + ordering.wireName() + " --minutes " + minutes + ")");
                v.violations().forEach(x -> System.out.println("VIOLATION: " + x));
                System.out.println("schedule:");
                faults.schedule().forEach(x -> System.out.println("  " + x));
                Set<String> concerned = new HashSet<>();
                v.violations().forEach(x -> {
                    for (String w : x.split("[ ,:()]+")) {
                        if (operator.jobs().values().stream().anyMatch(j -> j.id().equals(w))) {
                            concerned.add(w);
                        }
                    }
                });
                System.out.println("ledger lines of the jobs concerned:");
                ran.stream().filter(e -> concerned.contains(e.job())).forEach(e -> System.out.println("  " + e.line()));
                for (int i = 0; i < n; i++) {
                    System.out.println("--- sled " + i + " log tail (" + sleds.log(i) + ")");
                    Checks.tail(sleds.log(i), 40).forEach(x -> System.out.println("  " + x));
                }
            }
            Map<String, Integer> kinds = new HashMap<>();
            table.forEach((k, c) -> {
                if (c > 0) {
                    kinds.put(k, c);
                }
            });
            StringBuilder fk = new StringBuilder("[");
            table.forEach((k, c) -> {
                if (c > 0) {
                    fk.append(fk.length() > 1 ? "," : "").append('"').append(k).append('"');
                }
            });
            System.out.printf(Locale.ROOT, "{\"bench\":\"nemesis\",\"seed\":%d,\"sleds\":%d,\"ordering\":\"%s\","
                    + "\"minutes\":%.1f,\"violations\":%d,\"fault_kinds\":%s,\"fault_kinds_fired\":%d,"
                    + "\"fault_kinds_all\":%d,\"faults\":%d,\"jobs\":%d,\"accepted\":%d,\"executions\":%d,"
                    + "\"liveness\":%s}%n", seed, n, ordering.wireName(), minutes, v.violations().size(),
                    fk.append(']'), kinds.size(), table.size(), table.values().stream().mapToInt(x -> x).sum(),
                    operator.jobs().size(), accepted, ran.size(), v.liveness());
            Files.writeString(dir.resolve("schedule.txt"), String.join("\n", faults.schedule()) + "\n",
                    StandardCharsets.UTF_8);
        }
    }
}
