package sush.gossip.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.Consumer;

import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import sush.gossip.Entropy;
import sush.gossip.net.DelayedTransport;
import sush.gossip.net.TcpTransport;
import sush.gossip.net.Transport;
import sush.gossip.node.GossipConfig;
import sush.gossip.node.GossipNode;

/**
 * 32 sleds in one JVM on loopback TCP: cold boot to one universe, dissemination of 200
 * messages sent at random sleds (latency until every sled holds each, frames and bytes per
 * message, cores kept busy), the same with 100 ms added per link hop, and two peer baselines
 * spreading the same messages from the same members at the same pace: ScaleCube's SWIM gossip
 * (its loopback profile; under light load too; its LAN profile without {@code --quick}) and
 * JGroups' reliable multicast over TCP (stock {@code tcp.xml}). The peers run in child JVMs of
 * their own after ours, each after a warm-up run; {@link PeerBench} has their settings
 * and the reasons. Run: {@code ./bench.sh rack [--quick] [--tls-first] [--peers-inline]}.
 */
public final class RackBench {
    private static final int SLEDS = 32;
    private static final int GLOMERS_NODES = 25;
    private static final int MESSAGES = 200;
    private static final Duration SEND_SPACING = Duration.ofMillis(Long.getLong("spacing", 20));
    private static final Duration HOP_DELAY = Duration.ofMillis(100);
    static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final int PAYLOAD_BYTES = 32;
    /** The light-load ScaleCube run: few messages, far enough apart that none queue behind another. */
    private static final int LIGHT_MESSAGES = 20;
    private static final Duration LIGHT_SPACING = Duration.ofMillis(500);

    private RackBench() {
    }

    public static void main(String[] args) throws Exception {
        boolean quick = Measure.quick(args);
        HeapWatch heap = new HeapWatch();
        heap.start();
        Map<String, Double> figures = new LinkedHashMap<>();

        // The same rack over mutual TLS, in the same run: what authentication costs. The rack
        // booted first boots with this JVM's code cold; --tls-first gives that to the TLS rack.
        boolean tlsFirst = java.util.Arrays.asList(args).contains("--tls-first");
        Rack secure = tlsFirst ? Rack.boot(SLEDS, Duration.ZERO, true) : null;
        Spread tls = secure == null ? null : secure.disseminate(new Random(1));
        if (secure != null) {
            secure.stop();
        }
        Rack plain = Rack.boot(SLEDS, Duration.ZERO);
        figures.put("cold_boot_ms", plain.coldBootMs);
        // Ours is measured as the peers are (PeerBench): on a fresh rack, after a warm-up rack ran
        // the same workload in this JVM. Its cold figures are kept apart.
        Spread oursCold = plain.disseminate(new Random(1));
        plain.stop();
        // The same pause the peers get between their warm-up and measured clusters.
        double idleS = PeerBench.awaitIdle();
        System.err.printf(Locale.ROOT, "sush: warm-up rack stopped, JVM idle %.1f s later%n", idleS);
        Rack fresh = Rack.boot(SLEDS, Duration.ZERO);
        Spread ours = fresh.disseminate(new Random(1));
        fresh.stop();
        figures.put("cold_p50_ms", oursCold.p50());
        figures.put("cold_p99_ms", oursCold.p99());
        figures.put("p50_ms", ours.p50());
        figures.put("p99_ms", ours.p99());
        figures.put("max_ms", ours.max());
        figures.put("gc_ms", (double) ours.gcMs);

        if (secure == null) {
            secure = Rack.boot(SLEDS, Duration.ZERO, true);
            tls = secure.disseminate(new Random(1));
            secure.stop();
        }
        figures.put("tls_first", tlsFirst ? 1.0 : 0.0);
        figures.put("tls_cold_boot_ms", secure.coldBootMs);
        figures.put("tls_p50_ms", tls.p50());
        figures.put("tls_p99_ms", tls.p99());
        figures.put("tls_over_plain_p99", tls.p99() / ours.p99());

        Spread slow = Rack.spread(SLEDS, HOP_DELAY, 2);
        figures.put("delayed_p50_ms", slow.p50());
        figures.put("delayed_max_ms", slow.max());
        figures.put("delayed_msgs_per_op", slow.framesPerMessage);
        // The public bars are for 25 nodes: the same run at that size compares like with like.
        Spread slow25 = Rack.spread(GLOMERS_NODES, HOP_DELAY, 3);
        figures.put("delayed25_p50_ms", slow25.p50());
        figures.put("delayed25_max_ms", slow25.max());
        figures.put("delayed25_msgs_per_op", slow25.framesPerMessage);

        // The peers, each in a JVM of its own while this one waits (PeerBench): the same members,
        // messages, seed and pacing, with the settings their authors ship for this setting.
        boolean inline = java.util.Arrays.asList(args).contains("--peers-inline");
        heap.stopWatching();
        PeerBench.Outcome cubeRun = PeerBench.run(PeerBench.Kind.SCALECUBE_LOCAL, SLEDS, MESSAGES, SEND_SPACING, 1,
                inline);
        Spread cube = cubeRun.spread();
        figures.put("scalecube_p50_ms", cube.p50());
        figures.put("scalecube_p99_ms", cube.p99());
        figures.put("scalecube_gc_ms", (double) cube.gcMs);
        figures.put("scalecube_max_ms", cube.max());
        figures.put("scalecube_warmup_p50_ms", cubeRun.warmup.spread().p50());
        figures.put("scalecube_warmup_p99_ms", cubeRun.warmup.spread().p99());
        // The same members under light load: what one gossip takes when nothing queues.
        PeerBench.Outcome cubeLightRun = PeerBench.run(PeerBench.Kind.SCALECUBE_LOCAL, SLEDS, LIGHT_MESSAGES,
                LIGHT_SPACING, 1, inline);
        Spread cubeLight = cubeLightRun.spread();
        figures.put("scalecube_light_p50_ms", cubeLight.p50());
        figures.put("scalecube_light_p99_ms", cubeLight.p99());
        PeerBench.Outcome cubeLanRun = quick ? null
                : PeerBench.run(PeerBench.Kind.SCALECUBE_LAN, SLEDS, MESSAGES, SEND_SPACING, 1, inline);
        Spread cubeLan = cubeLanRun == null ? null : cubeLanRun.spread();
        if (cubeLan != null) {
            figures.put("scalecube_lan_p50_ms", cubeLan.p50());
            figures.put("scalecube_lan_p99_ms", cubeLan.p99());
        }
        PeerBench.Outcome groupsRun = PeerBench.run(PeerBench.Kind.JGROUPS, SLEDS, MESSAGES, SEND_SPACING, 1, inline);
        Spread groups = groupsRun.spread();
        figures.put("jgroups_p50_ms", groups.p50());
        figures.put("jgroups_p99_ms", groups.p99());
        figures.put("jgroups_gc_ms", (double) groups.gcMs);
        figures.put("jgroups_max_ms", groups.max());
        figures.put("jgroups_warmup_p99_ms", groupsRun.warmup.spread().p99());
        // Against the better peer at p99 (both with their documented settings).
        boolean cubeBetter = cube.p99() < groups.p99();
        Spread theirs = cubeBetter ? cube : groups;
        figures.put("ratio_p99", ours.p99() / theirs.p99());
        figures.put("peak_heap_mb", heap.peakMb());

        System.out.printf(Locale.ROOT, "rack: %d sleds on loopback TCP, %d messages of %d bytes, one every %d ms%n",
                SLEDS, MESSAGES, PAYLOAD_BYTES, SEND_SPACING.toMillis());
        System.out.printf(Locale.ROOT, "cold boot to one universe: %.1f ms (after %d contests lost)%n",
                plain.coldBootMs, plain.losses);
        System.out.printf(Locale.ROOT, "%-28s %9s %9s %9s %12s %12s %6s %10s%n", "run", "p50 ms", "p99 ms", "max ms",
                "frames/msg", "bytes/msg", "cores", "gc n/ms");
        row("sush", ours);
        row("  its warm-up run (cold)", oursCold);
        row("sush, mutual TLS 1.3", tls);
        row("sush, 100 ms per hop", slow);
        row("sush, 25 sleds, 100 ms/hop", slow25);
        row("scalecube, loopback profile", cube);
        row("  its warm-up run", cubeRun.warmup.spread());
        row(String.format(Locale.ROOT, "scalecube, 1 msg per %d ms", LIGHT_SPACING.toMillis()), cubeLight);
        if (cubeLan != null) {
            row("scalecube, LAN profile", cubeLan);
            row("  its warm-up run", cubeLanRun.warmup.spread());
        }
        row("jgroups, tcp.xml", groups);
        row("  its warm-up run", groupsRun.warmup.spread());
        System.out.printf(Locale.ROOT, "TLS/plain p99 %.2f (bar: within 1.5); TLS cold boot %.1f ms%s, engine %s "
                + "(bar: < 2000 ms)%n", tls.p99() / ours.p99(), secure.coldBootMs,
                tlsFirst ? " (booted first)" : " (booted after the plain rack)", sush.gossip.net.GossipTls.provider());
        System.out.println("gossip glomers bars (25 nodes, 100 ms): median < 400 ms, max < 600 ms, < 30 msgs/op");
        System.out.println("gc n/ms: collections in the system's JVM from the first send to the last arrival, and the"
                + " ms its collectors reported (G1: pauses; ours shares one JVM among its 32 sleds)");
        System.out.println("peers, each run in a JVM of its own" + (inline ? " (not so: --peers-inline)" : "")
                + ", measured on a fresh cluster after a warm-up cluster ran the same workload, as ours is:");
        System.out.printf(Locale.ROOT, "  %s; formed in %.0f ms%n", cubeRun.settings, cubeRun.formedMs);
        if (cubeLanRun != null) {
            System.out.printf(Locale.ROOT, "  %s; formed in %.0f ms%n", cubeLanRun.settings, cubeLanRun.formedMs);
        }
        System.out.printf(Locale.ROOT, "  %s; formed in %.0f ms%n", groupsRun.settings, groupsRun.formedMs);
        System.out.printf(Locale.ROOT, "scalecube light load (%d messages, one every %d ms): p50 %.0f ms, expected "
                + "order log2(%d) = %.0f rounds x %d ms = %.0f ms%n", LIGHT_MESSAGES, LIGHT_SPACING.toMillis(),
                cubeLight.p50(), SLEDS, Math.log(SLEDS) / Math.log(2), PeerBench.LOCAL_INTERVAL_MS,
                Math.log(SLEDS) / Math.log(2) * PeerBench.LOCAL_INTERVAL_MS);
        System.out.printf(Locale.ROOT, "ours/better peer (%s) p50 %.3f, p99 %.3f; peak heap (this JVM, ours) %.0f MB%n",
                cubeBetter ? "scalecube" : "jgroups", ours.p50() / theirs.p50(), ours.p99() / theirs.p99(),
                heap.peakMb());
        System.out.println(Measure.json("rack", figures));
        System.exit(0);
    }

    private static void row(String name, Spread s) {
        System.out.printf(Locale.ROOT, "%-28s %9.1f %9.1f %9.1f %12s %12s %6s %10s%n", name, s.p50(), s.p99(), s.max(),
                s.framesPerMessage < 0 ? "-" : String.format(Locale.ROOT, "%.1f", s.framesPerMessage),
                s.bytesPerMessage < 0 ? "-" : String.format(Locale.ROOT, "%.0f", s.bytesPerMessage),
                s.cores < 0 ? "-" : String.format(Locale.ROOT, "%.2f", s.cores),
                s.gcCount < 0 ? "-" : s.gcCount + "/" + s.gcMs);
    }

    /**
     * Called by every system, in every run, just before its first send: the run starts from a
     * collected heap. A cluster of 32 in one JVM stops all its members at each young collection,
     * and the first one after a cluster forms copies the whole cluster's new state (17-30 ms for
     * ours on this machine, then a backlog), which no member of a real rack, in a JVM of its own,
     * would see. Collections inside a run are still counted and shown ({@code gc n/ms}).
     */
    static void collectBeforeRun() {
        System.gc();
    }

    static byte[] payload(int id) {
        return ByteBuffer.allocate(PAYLOAD_BYTES).putInt(id).array();
    }

    /** Per-message latency until the last sled holds it. */
    static final class Spread {
        final long[] latencyNs;
        final double framesPerMessage;
        final double bytesPerMessage;

        /** Cores the system kept busy from the first send to the last arrival; -1 if not measured. */
        final double cores;
        /** Collections in the system's JVM over the same span, and their reported ms; -1 if not measured. */
        final long gcCount;
        final long gcMs;

        Spread(long[] latencyNs, double framesPerMessage, double bytesPerMessage) {
            this(latencyNs, framesPerMessage, bytesPerMessage, -1);
        }

        Spread(long[] latencyNs, double framesPerMessage, double bytesPerMessage, double cores) {
            this(latencyNs, framesPerMessage, bytesPerMessage, cores, -1, -1);
        }

        Spread(long[] latencyNs, double framesPerMessage, double bytesPerMessage, double cores, long gcCount,
                long gcMs) {
            this.cores = cores;
            this.gcCount = gcCount;
            this.gcMs = gcMs;
            this.latencyNs = latencyNs.clone();
            java.util.Arrays.sort(this.latencyNs);
            this.framesPerMessage = framesPerMessage;
            this.bytesPerMessage = bytesPerMessage;
        }

        double p50() {
            return Measure.median(latencyNs) / 1e6;
        }

        double p99() {
            return Measure.percentile(latencyNs, 99) / 1e6;
        }

        double max() {
            return latencyNs[latencyNs.length - 1] / 1e6;
        }
    }

    /**
     * Arrival bookkeeping shared by every system: send time and count of sleds holding each id.
     * Ours counts each sled's first delivery ({@link #arrived}); the peers say which member got
     * which message and each pair counts once ({@link #heldBy}).
     */
    static final class Arrivals {
        final long[] sentAt;
        final long[] doneAt;
        final AtomicInteger[] holders;
        final AtomicInteger complete = new AtomicInteger();
        final AtomicIntegerArray held;
        final int sleds;
        final int messages;
        final Duration spacing;

        Arrivals(int sleds) {
            this(sleds, MESSAGES, SEND_SPACING);
        }

        Arrivals(int sleds, int messages, Duration spacing) {
            this.sleds = sleds;
            this.messages = messages;
            this.spacing = spacing;
            sentAt = new long[messages];
            doneAt = new long[messages];
            holders = new AtomicInteger[messages];
            held = new AtomicIntegerArray(sleds * messages);
            for (int i = 0; i < messages; i++) {
                holders[i] = new AtomicInteger();
            }
        }

        /** Sled {@code sled} holds message {@code id}; a second report of the pair is ignored. */
        void heldBy(int sled, int id) {
            if (id >= 0 && id < messages && held.compareAndSet(sled * messages + id, 0, 1)) {
                arrived(id);
            }
        }

        void arrived(int id) {
            if (id >= 0 && id < messages && holders[id].incrementAndGet() == sleds) {
                doneAt[id] = System.nanoTime();
                complete.incrementAndGet();
            }
        }

        long[] latencies() throws InterruptedException {
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (complete.get() < messages && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            if (complete.get() < messages) {
                throw new IllegalStateException(complete.get() + " of " + messages + " messages reached every sled");
            }
            long[] out = new long[messages];
            for (int i = 0; i < messages; i++) {
                out[i] = doneAt[i] - sentAt[i];
            }
            return out;
        }

        /** Sends every message at a random sled, one per spacing. */
        void sendAll(Random random, Consumer<int[]> send) throws InterruptedException {
            long next = System.nanoTime();
            for (int i = 0; i < messages; i++) {
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(wait);
                }
                sentAt[i] = System.nanoTime();
                send.accept(new int[] {i, random.nextInt(sleds)});
                next += spacing.toNanos();
            }
        }
    }

    /** Our rack: gossip nodes over TCP, optionally with a delay on every link. */
    static final class Rack {
        final List<GossipNode> nodes = new ArrayList<>();
        final Scheduler scheduler = Schedulers.newParallel("rack", 2);
        double coldBootMs;
        long losses;

        /** Boots a rack, spreads the messages once, and stops it. */
        static Spread spread(int sleds, Duration delay, long seed) throws InterruptedException {
            Rack rack = boot(sleds, delay);
            try {
                return rack.disseminate(new Random(seed));
            } finally {
                rack.stop();
            }
        }

        static Rack boot(int sleds, Duration delay) throws InterruptedException {
            return boot(sleds, delay, false);
        }

        /** With {@code tls}, a rack CA is made and every link is mutual TLS 1.3 (security.md section 1). */
        static Rack boot(int sleds, Duration delay, boolean tls) throws InterruptedException {
            Rack rack = new Rack();
            java.nio.file.Path certs = null;
            sush.gossip.net.RackCa ca = null;
            if (tls) {
                try {
                    certs = java.nio.file.Files.createTempDirectory("rack-ca");
                    ca = sush.gossip.net.RackCa.create(certs, "bench", new java.security.SecureRandom());
                } catch (java.io.IOException | sush.gossip.net.RackCa.CaException e) {
                    throw new IllegalStateException(e);
                }
            }
            Map<String, String> identities = new HashMap<>();
            for (int i = 0; i < sleds; i++) {
                String name = String.format("sled-%02d", i);
                java.util.Optional<sush.gossip.net.GossipTls> secure = java.util.Optional.empty();
                if (tls) {
                    try {
                        java.nio.file.Path d = certs.resolve(name);
                        ca.issue(name, d);
                        secure = java.util.Optional.of(sush.gossip.net.GossipTls.load(certs.resolve(
                                sush.gossip.net.RackCa.CA_CERT), d.resolve(sush.gossip.net.RackCa.SLED_CERT),
                                d.resolve(sush.gossip.net.RackCa.SLED_KEY), java.util.Optional.empty()));
                    } catch (sush.gossip.net.RackCa.CaException | sush.gossip.net.GossipTls.TlsException e) {
                        throw new IllegalStateException(e);
                    }
                }
                Transport t = new TcpTransport("127.0.0.1", 0, Duration.ofSeconds(2), secure);
                if (!delay.isZero()) {
                    t = new DelayedTransport(t, delay, rack.scheduler);
                }
                identities.put(name, name);
                GossipNode node = new GossipNode(GossipConfig.defaults(name), t,
                        rack.scheduler, Entropy.seeded(1000 + i));
                node.start().block(Duration.ofSeconds(5));
                rack.nodes.add(node);
            }
            Map<String, String> peers = new HashMap<>();
            for (GossipNode n : rack.nodes) {
                peers.put(n.name(), n.address());
            }
            long start = System.nanoTime();
            rack.nodes.forEach(n -> n.setPeers(peers, identities));
            long deadline = start + DEADLINE.toNanos();
            long report = System.nanoTime();
            while (System.nanoTime() < deadline && !rack.converged()) {
                Thread.sleep(1);
                if (System.getenv("RACK_DEBUG") != null && System.nanoTime() - report > 1_000_000_000L) {
                    report = System.nanoTime();
                    System.err.println("boot: " + rack.describe());
                }
            }
            if (!rack.converged()) {
                throw new IllegalStateException("rack did not converge on one universe: " + rack.describe());
            }
            rack.coldBootMs = (System.nanoTime() - start) / 1e6;
            rack.losses = rack.nodes.stream().mapToLong(n -> n.stats().universeLosses()).sum();
            return rack;
        }

        String describe() {
            long universes = nodes.stream().map(GossipNode::network).distinct().count();
            long bootstrapping = nodes.stream().filter(n -> n.network().isBootstrapping()).count();
            int minPeers = nodes.stream().mapToInt(n -> n.stats().connectedPeers()).min().orElse(0);
            long failed = nodes.stream().mapToLong(n -> n.stats().failedSessions()).sum();
            long lost = nodes.stream().mapToLong(n -> n.stats().universeLosses()).sum();
            Map<Object, Long> kinds = new java.util.TreeMap<>();
            nodes.forEach(n -> n.stats().failuresByKind().forEach((k, v) -> kinds.merge(k.toString(), v, Long::sum)));
            return kinds + " " + universes + " universes, " + bootstrapping + " bootstrapping, min peers " + minPeers + ", failed sessions "
                    + failed + ", losses " + lost;
        }

        boolean converged() {
            var first = nodes.get(0).network();
            return !first.isBootstrapping() && nodes.stream().allMatch(n -> n.network().equals(first))
                    && nodes.stream().allMatch(n -> n.stats().connectedPeers() == nodes.size() - 1);
        }

        Spread disseminate(Random random) throws InterruptedException {
            Arrivals arrivals = new Arrivals(nodes.size());
            boolean debug = System.getenv("RACK_DEBUG") != null;
            long[][] heldAt = new long[debug ? nodes.size() : 0][MESSAGES];
            int[] senders = new int[MESSAGES];
            for (int s = 0; s < nodes.size(); s++) {
                GossipNode n = nodes.get(s);
                int sled = s;
                long from = n.replica().size();
                n.replica().deliveries(from).subscribe(d -> {
                    int id = ByteBuffer.wrap(d.payload()).getInt();
                    if (debug && id >= 0 && id < MESSAGES) {
                        heldAt[sled][id] = System.nanoTime();
                    }
                    arrivals.arrived(id);
                });
            }
            long frames = frames();
            long bytes = bytes();
            if (System.getenv("RACK_DEBUG") != null) {
                System.err.println("before: sessions " + nodes.stream().mapToLong(n -> n.stats().sessions()).sum()
                        + " sessionMessages " + nodes.stream().mapToLong(n -> n.stats().sessionMessages()).sum()
                        + " gaps " + nodes.stream().mapToLong(n -> n.stats().gapPushes()).sum() + " " + describe());
            }
            collectBeforeRun();
            Measure.CpuWatch cpu = new Measure.CpuWatch();
            long startedMs = System.currentTimeMillis();
            arrivals.sendAll(random, pick -> {
                senders[pick[0]] = pick[1];
                nodes.get(pick[1]).send(payload(pick[0]));
            });
            long[] latencies = arrivals.latencies();
            if (System.getenv("RACK_DEBUG") != null) {
                System.err.println("disseminated from " + java.time.Instant.ofEpochMilli(startedMs) + " to "
                        + java.time.Instant.now());
                // Slow messages, stamped in JVM uptime to line up with -Xlog's uptime decoration.
                long uptimeNs = ManagementFactory.getRuntimeMXBean().getUptime() * 1_000_000L;
                long nowNs = System.nanoTime();
                long[] sorted = latencies.clone();
                java.util.Arrays.sort(sorted);
                double median = Measure.median(sorted);
                for (int i = 0; i < latencies.length; i++) {
                    if (latencies[i] > Math.max(10_000_000L, 3 * median)) {
                        StringBuilder late = new StringBuilder();
                        for (int sled = 0; sled < heldAt.length; sled++) {
                            double ms = (heldAt[sled][i] - arrivals.sentAt[i]) / 1e6;
                            if (ms > 5) {
                                late.append(String.format(Locale.ROOT, " %d:%.1f", sled, ms));
                            }
                        }
                        System.err.printf(Locale.ROOT, "slow: message %d from sled %d sent at uptime %.3f s took %.1f"
                                + " ms; sleds holding it after 5 ms:%s%n", i, senders[i],
                                (uptimeNs - (nowNs - arrivals.sentAt[i])) / 1e9, latencies[i] / 1e6, late);
                    }
                }
            }
            if (System.getenv("RACK_DEBUG") != null) {
                System.err.println("after: sessions " + nodes.stream().mapToLong(n -> n.stats().sessions()).sum()
                        + " sessionMessages " + nodes.stream().mapToLong(n -> n.stats().sessionMessages()).sum()
                        + " gaps " + nodes.stream().mapToLong(n -> n.stats().gapPushes()).sum()
                        + " foreign " + nodes.stream().mapToLong(n -> n.stats().foreignPushes()).sum() + " " + describe());
            }
            return new Spread(latencies, (frames() - frames) / (double) MESSAGES, (bytes() - bytes) / (double) MESSAGES,
                    cpu.cores(), cpu.gcCount(), cpu.gcMs());
        }

        long frames() {
            return nodes.stream().mapToLong(n -> n.traffic().frames()).sum();
        }

        long bytes() {
            return nodes.stream().mapToLong(n -> n.traffic().bytes()).sum();
        }

        void stop() {
            nodes.forEach(GossipNode::stop);
            scheduler.dispose();
        }
    }

    /** Samples the heap in use across all heap pools every 20 ms. */
    static final class HeapWatch extends Thread {
        private volatile boolean running = true;
        private volatile long peakBytes;

        HeapWatch() {
            setDaemon(true);
        }

        @Override
        public void run() {
            while (running) {
                long used = 0;
                for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                    if (pool.getType() == MemoryType.HEAP) {
                        used += pool.getUsage().getUsed();
                    }
                }
                peakBytes = Math.max(peakBytes, used);
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        void stopWatching() {
            running = false;
        }

        double peakMb() {
            return peakBytes / (1024.0 * 1024.0);
        }
    }
}
