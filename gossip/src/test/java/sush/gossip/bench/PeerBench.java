package sush.gossip.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import io.scalecube.cluster.Cluster;
import io.scalecube.cluster.ClusterConfig;
import io.scalecube.cluster.ClusterImpl;
import io.scalecube.cluster.ClusterMath;
import io.scalecube.cluster.ClusterMessageHandler;
import io.scalecube.cluster.transport.api.Message;
import io.scalecube.transport.netty.tcp.TcpTransportFactory;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Receiver;
import org.jgroups.protocols.TCP;
import org.jgroups.protocols.TCPPING;
import org.jgroups.protocols.TP;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.stack.Protocol;

/**
 * The peer baselines of {@code ./bench.sh rack}: the same 32 members, the same 200 messages of
 * 32 bytes sent from the same random members (seed 1) one every 20 ms, the same measure (time
 * from the send until every member holds the message; the sender holds it when it sends), spread
 * by two other systems with the settings their authors ship for this setting.
 *
 * <p><b>How a peer is run.</b> Each peer run happens in a child JVM of its own (the bench's JVM
 * flags and class path), one after the other and after our racks, while the bench JVM waits idle:
 * no system shares a heap, a garbage collector, compiled code, system properties or leftover
 * threads with another. In the child, a warm-up cluster forms, runs the same workload once
 * unmeasured and stops; once the JVM is idle again (under 0.1 cores busy over a second) a fresh
 * cluster forms and runs it measured. What this answers, seen on two shared cores: the earlier
 * ScaleCube runs shared the bench JVM with our four racks, and its second run started while the
 * first one's members were still stopping ({@code shutdown()} returns before they stop). More
 * than either, a ScaleCube cluster formed in a cold JVM builds a backlog on this workload that
 * it does not always work off: its members then miss the 200 ms ping timeout, suspect, remove
 * and re-add each other, and that membership gossip kept both cores busy for a minute after the
 * last message, so a second run on the same cluster measured the storm; a fresh cluster in the
 * warmed JVM does not start one. The warm-up run's figures are reported too: they are what a cold
 * JVM gets. Our rack is measured as before, the first rack of the bench JVM right after it
 * booted, with no warm-up; this favours the peers. {@code --peers-inline} runs the peers (warm-up
 * included) in the bench JVM instead, to compare.
 *
 * <p><b>ScaleCube</b> ({@code io.scalecube:scalecube-cluster} 2.7.10, SWIM membership plus
 * infection-style gossip, TCP transport on Reactor Netty, the default message codec
 * {@code JdkMessageCodec}, the only one in these jars). Measured with the profile ScaleCube ships
 * for members talking over the loopback interface, {@code ClusterConfig.defaultLocalConfig()}
 * ({@code ClusterConfig}, {@code GossipConfig}, {@code MembershipConfig},
 * {@code FailureDetectorConfig} of scalecube-cluster-api 2.7.10 and {@code TransportConfig} of
 * scalecube-transport-api 2.7.10; the constants were checked in the 2.7.10 jars):
 * <ul>
 * <li>gossip interval 100 ms ({@code DEFAULT_LOCAL_GOSSIP_INTERVAL}; LAN default 200 ms),
 * <li>gossip fanout 3 ({@code DEFAULT_GOSSIP_FANOUT}, the same in the local and LAN profiles),
 * <li>gossip repeat multiplier 2 ({@code DEFAULT_LOCAL_GOSSIP_REPEAT_MULT}; LAN 3): a member
 * sends a gossip for {@code repeatMult * ceilLog2(members)} periods after it got it
 * ({@code ClusterMath.gossipPeriodsToSpread}; its ceilLog2(32) is 6: 12 periods, 1.2 s) and
 * drops it after {@code 2 * (12 + 1)} periods ({@code gossipPeriodsToSweep}),
 * <li>membership sync interval 15 s, sync timeout 3 s, suspicion multiplier 3
 * ({@code MembershipConfig.defaultLocalConfig()}; LAN 30 s, 3 s, 5),
 * <li>failure detector ping interval 1 s, ping timeout 200 ms, 1 indirect ping member
 * ({@code FailureDetectorConfig.defaultLocalConfig()}; LAN 1 s, 500 ms, 3),
 * <li>transport connect timeout 1 s, metadata timeout 1 s (LAN 3 s and 3 s).
 * </ul>
 * Every period a member picks {@code fanout} members (round robin over a shuffled list) and sends
 * each of them, one transport message per gossip, every gossip still within its spreading
 * periods that it has not received from that member ({@code GossipProtocolImpl.doSpreadGossip},
 * {@code selectGossipsToSend}). Push gossip with fanout 3 reaches 32 members within about
 * log2(32) = 5 periods, so one message should take a few hundred milliseconds at 100 ms; the
 * light-load run (20 messages, one every 500 ms) measures that. Without {@code --quick} the LAN
 * profile ({@code ClusterConfig.defaultConfig()}, what {@code new ClusterImpl()} uses) runs too.
 * Member 0 is every other member's seed; a run starts once every member lists the 31 others.
 * The frames column counts every transport message the members receive (gossip requests, pings,
 * syncs and their answers) from the first send to the last arrival.
 *
 * <p><b>JGroups</b> ({@code org.jgroups:jgroups} 5.4.8.Final): the stock {@code tcp.xml} of the
 * jar (TCP, NON_BLOCKING_SENDS, TCPPING, MERGE3, FD_SOCK2, FD_ALL3, VERIFY_SUSPECT2, BARRIER,
 * pbcast.NAKACK2, UNICAST3, pbcast.STABLE, pbcast.GMS, MFC, UFC, FRAG2, pbcast.STATE_TRANSFER),
 * changed only where 32 members on one loopback interface need it, as its header comment asks:
 * TCP binds 127.0.0.1 on a free port of its own, TCPPING's initial hosts are the 32 members'
 * addresses (port range 0, so no multicast discovery), and GMS does not print each member's
 * address. A message goes to the whole cluster ({@code new BytesMessage(null, payload)}): over
 * TCP the sender writes it to each of the 31 others, NAKACK2 makes delivery reliable and FIFO per
 * sender. A member discards its own copy. A run starts once every member's view has 32 members
 * and every member has a connection to each of the 31 others (our rack starts from a full mesh
 * too; JGroups connects on first use, and FD_ALL3's heartbeats open what joining did not).
 */
final class PeerBench {
    /** Prefix of the one line a child JVM prints for the bench to read. */
    private static final String RESULT = "peer-result\t";
    private static final Duration CHILD_DEADLINE = Duration.ofMinutes(5);
    /** Below this many busy cores (over one second) the JVM counts as idle between the runs. */
    private static final double IDLE_CORES = 0.1;
    /** ScaleCube's gossip interval on loopback ({@code GossipConfig.DEFAULT_LOCAL_GOSSIP_INTERVAL}). */
    static final long LOCAL_INTERVAL_MS = ClusterConfig.defaultLocalConfig().gossipConfig().gossipInterval();

    /** The systems and profiles measured. */
    enum Kind {
        SCALECUBE_LOCAL("scalecube-local"), SCALECUBE_LAN("scalecube-lan"), JGROUPS("jgroups");

        final String label;

        Kind(String label) {
            this.label = label;
        }

        static Kind of(String label) {
            return Arrays.stream(values()).filter(k -> k.label.equals(label)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("unknown peer: " + label));
        }
    }

    /**
     * What one peer run reports: formation time, the settings used, per-message latencies,
     * transport messages and busy cores, and the warm-up run before it.
     */
    static final class Outcome {
        final double formedMs;
        final String settings;
        final long[] latencyNs;
        /** Transport messages received per message sent, first send to last arrival; -1 if not counted. */
        final double framesPerMessage;
        /** Cores the peer's JVM kept busy from the first send to the last arrival. */
        final double cores;
        /** Collections in the peer's JVM over the same span, and the ms its collectors reported. */
        final long gcCount;
        final long gcMs;
        /** The warm-up run: the same workload on a cluster formed in the cold JVM; null for itself. */
        final Outcome warmup;

        Outcome(double formedMs, String settings, long[] latencyNs, double framesPerMessage, double cores,
                long gcCount, long gcMs, Outcome warmup) {
            this.formedMs = formedMs;
            this.settings = settings;
            this.latencyNs = latencyNs.clone();
            this.framesPerMessage = framesPerMessage;
            this.cores = cores;
            this.gcCount = gcCount;
            this.gcMs = gcMs;
            this.warmup = warmup;
        }

        Outcome after(Outcome warmupRun) {
            return new Outcome(formedMs, settings, latencyNs, framesPerMessage, cores, gcCount, gcMs, warmupRun);
        }

        RackBench.Spread spread() {
            return new RackBench.Spread(latencyNs, framesPerMessage, -1, cores, gcCount, gcMs);
        }

        /** The fields of one outcome, tab-separated; {@link #FIELDS} of them. */
        private String fields() {
            return String.format(Locale.ROOT, "%.1f\t%s\t%.3f\t%.3f\t%d\t%d\t", formedMs,
                    settings.replace('\t', ' '), framesPerMessage, cores, gcCount, gcMs)
                    + Arrays.stream(latencyNs).mapToObj(Long::toString).collect(Collectors.joining(","));
        }

        private static final int FIELDS = 7;

        String encode() {
            return RESULT + fields() + (warmup == null ? "" : "\t" + warmup.fields());
        }

        private static Outcome parse(String[] f, int at, Outcome warmup) {
            long[] latencies = Arrays.stream(f[at + 6].split(",")).mapToLong(Long::parseLong).toArray();
            return new Outcome(Double.parseDouble(f[at]), f[at + 1], latencies, Double.parseDouble(f[at + 2]),
                    Double.parseDouble(f[at + 3]), Long.parseLong(f[at + 4]), Long.parseLong(f[at + 5]), warmup);
        }

        static Outcome decode(String line) {
            String[] f = line.substring(RESULT.length()).split("\t", -1);
            return parse(f, 0, f.length >= 2 * FIELDS ? parse(f, FIELDS, null) : null);
        }
    }

    private PeerBench() {
    }

    /** Child JVM: {@code PeerBench KIND MEMBERS MESSAGES SPACING_MS SEED}; prints one result line. */
    public static void main(String[] args) throws Exception {
        Kind kind = Kind.of(args[0]);
        Outcome o = measure(kind, Integer.parseInt(args[1]), Integer.parseInt(args[2]),
                Duration.ofMillis(Long.parseLong(args[3])), Long.parseLong(args[4]), false);
        System.out.println(o.encode());
        System.out.flush();
        // Nothing to tidy: the members go with the JVM.
        System.exit(0);
    }

    /** One peer run, in a child JVM unless {@code inline}. */
    static Outcome run(Kind kind, int members, int messages, Duration spacing, long seed, boolean inline)
            throws Exception {
        if (inline) {
            return measure(kind, members, messages, spacing, seed, true);
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(PeerBench.class.getName());
        command.addAll(List.of(kind.label, Integer.toString(members), Integer.toString(messages),
                Long.toString(spacing.toMillis()), Long.toString(seed)));
        Process child = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        Outcome outcome = null;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith(RESULT)) {
                    outcome = Outcome.decode(line);
                } else {
                    // The peer's own chatter stays out of the table.
                    System.err.println(kind.label + ": " + line);
                }
            }
        } catch (IOException e) {
            child.destroyForcibly();
            throw new UncheckedIOException(e);
        }
        if (!child.waitFor(CHILD_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
            child.destroyForcibly();
            throw new IllegalStateException(kind.label + ": child JVM did not exit");
        }
        if (child.exitValue() != 0 || outcome == null) {
            throw new IllegalStateException(kind.label + ": child JVM exited " + child.exitValue()
                    + (outcome == null ? " without a result" : ""));
        }
        return outcome;
    }

    /**
     * One peer run here: a warm-up cluster runs the workload once unmeasured and stops; once this
     * JVM is idle again a fresh cluster forms and runs it measured. {@code tidy} stops the
     * measured cluster too (a child JVM just exits).
     */
    static Outcome measure(Kind kind, int members, int messages, Duration spacing, long seed, boolean tidy)
            throws Exception {
        Outcome warmup = once(kind, members, messages, spacing, seed + 1, true);
        double idleS = awaitIdle();
        System.err.printf(Locale.ROOT, "%s: warm-up cluster stopped, JVM idle %.1f s later%n", kind.label, idleS);
        return once(kind, members, messages, spacing, seed, tidy).after(warmup);
    }

    private static Outcome once(Kind kind, int members, int messages, Duration spacing, long seed, boolean tidy)
            throws Exception {
        switch (kind) {
            case SCALECUBE_LOCAL:
                return scaleCube(ClusterConfig.defaultLocalConfig(),
                        "loopback profile (ClusterConfig.defaultLocalConfig())", members, messages, spacing, seed,
                        tidy);
            case SCALECUBE_LAN:
                return scaleCube(ClusterConfig.defaultConfig(), "LAN profile (ClusterConfig.defaultConfig())",
                        members, messages, spacing, seed, tidy);
            case JGROUPS:
                return jgroups(members, messages, spacing, seed, tidy);
            default:
                throw new IllegalArgumentException(kind.label);
        }
    }

    /** Waits until this JVM keeps fewer than {@link #IDLE_CORES} busy over a second; seconds waited. */
    static double awaitIdle() throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + RackBench.DEADLINE.toNanos();
        while (System.nanoTime() < deadline) {
            Measure.CpuWatch window = new Measure.CpuWatch();
            Thread.sleep(1000);
            if (window.cores() < IDLE_CORES) {
                break;
            }
        }
        return (System.nanoTime() - start) / 1e9;
    }

    private static int id(byte[] payload) {
        return ByteBuffer.wrap(payload).getInt();
    }

    /** The settings a ScaleCube member runs with, read back from the config it is given. */
    static String describe(ClusterConfig c, String profile, int members) {
        var g = c.gossipConfig();
        var m = c.membershipConfig();
        var f = c.failureDetectorConfig();
        var t = c.transportConfig();
        int periods = ClusterMath.gossipPeriodsToSpread(g.gossipRepeatMult(), members);
        return String.format(Locale.ROOT, "scalecube 2.7.10 %s: gossip interval %d ms, fanout %d, repeat mult %d "
                + "(spreads %d periods = %d ms, sweeps after %d), sync interval %d ms, sync timeout %d ms, "
                + "suspicion mult %d, ping interval %d ms, ping timeout %d ms, ping-req members %d, connect timeout "
                + "%d ms, metadata timeout %d ms, codec %s, TCP transport",
                profile, g.gossipInterval(), g.gossipFanout(), g.gossipRepeatMult(), periods,
                ClusterMath.gossipDisseminationTime(g.gossipRepeatMult(), members, g.gossipInterval()),
                ClusterMath.gossipPeriodsToSweep(g.gossipRepeatMult(), members), m.syncInterval(), m.syncTimeout(),
                m.suspicionMult(), f.pingInterval(), f.pingTimeout(), f.pingReqMembers(), t.connectTimeout(),
                c.metadataTimeout(), t.messageCodec().getClass().getSimpleName());
    }

    /**
     * The members a node knows; ScaleCube reads its member map without a lock, so a read racing
     * its own update can throw: then it is asked again on the next poll.
     */
    private static int knows(Cluster c) {
        try {
            return c.otherMembers().size();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    private static Outcome scaleCube(ClusterConfig config, String profile, int members, int messages,
            Duration spacing, long seed, boolean tidy) throws Exception {
        RackBench.Arrivals arrivals = new RackBench.Arrivals(members, messages, spacing);
        List<Cluster> clusters = new ArrayList<>();
        // Every transport message a member receives (gossip requests, pings, syncs and answers).
        AtomicLong frames = new AtomicLong();
        long start = System.nanoTime();
        String seedAddress = null;
        for (int i = 0; i < members; i++) {
            int index = i;
            String seedMember = seedAddress;
            Cluster c = new ClusterImpl(config)
                    .transportFactory(TcpTransportFactory::new)
                    .membership(m -> seedMember == null ? m : m.seedMembers(seedMember))
                    .handler(cluster -> new ClusterMessageHandler() {
                        @Override
                        public void onGossip(Message gossip) {
                            byte[] data = gossip.data();
                            arrivals.heldBy(index, id(data));
                        }
                    })
                    .startAwait();
            c.transport().listen().subscribe(m -> frames.incrementAndGet());
            clusters.add(c);
            if (seedAddress == null) {
                seedAddress = c.address();
            }
        }
        long deadline = System.nanoTime() + RackBench.DEADLINE.toNanos();
        while (System.nanoTime() < deadline && clusters.stream().anyMatch(c -> knows(c) < members - 1)) {
            Thread.sleep(10);
        }
        if (clusters.stream().anyMatch(c -> knows(c) < members - 1)) {
            throw new IllegalStateException("scalecube: the members did not all see each other");
        }
        double formedMs = (System.nanoTime() - start) / 1e6;
        long framesBefore = frames.get();
        RackBench.collectBeforeRun();
        Measure.CpuWatch cpu = new Measure.CpuWatch();
        arrivals.sendAll(new Random(seed), pick -> {
            arrivals.heldBy(pick[1], pick[0]);
            clusters.get(pick[1]).spreadGossip(Message.withData(RackBench.payload(pick[0])).build())
                    .subscribe(id -> { }, e -> { });
        });
        long[] latencies = arrivals.latencies();
        double cores = cpu.cores();
        long gcCount = cpu.gcCount();
        long gcMs = cpu.gcMs();
        double framesPerMessage = (frames.get() - framesBefore) / (double) messages;
        if (tidy) {
            clusters.forEach(Cluster::shutdown);
            try {
                List<reactor.core.publisher.Mono<Void>> stopped = clusters.stream().map(Cluster::onShutdown)
                        .collect(Collectors.toList());
                reactor.core.publisher.Mono.when(stopped).block(Duration.ofSeconds(10));
            } catch (RuntimeException e) {
                // Stopping is best effort: the idle wait that follows covers what lingers.
            }
        }
        return new Outcome(formedMs, describe(config, profile, members), latencies, framesPerMessage, cores,
                gcCount, gcMs, null);
    }

    /** {@code count} ports free on the loopback interface at the time of asking. */
    private static int[] freePorts(int count) throws IOException {
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                held.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
            }
            return held.stream().mapToInt(ServerSocket::getLocalPort).toArray();
        } finally {
            for (ServerSocket s : held) {
                s.close();
            }
        }
    }

    private static int openConnections(JChannel c) {
        return ((TCP) c.getProtocolStack().getTransport()).getOpenConnections();
    }

    private static Outcome jgroups(int members, int messages, Duration spacing, long seed, boolean tidy)
            throws Exception {
        // tcp.xml's TCP binds ${jgroups.bind_addr:site_local}: resolved when the stack is made.
        System.setProperty("jgroups.bind_addr", "127.0.0.1");
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        int[] ports = freePorts(members);
        List<InetSocketAddress> hosts = new ArrayList<>();
        for (int p : ports) {
            hosts.add(new InetSocketAddress(loopback, p));
        }
        RackBench.Arrivals arrivals = new RackBench.Arrivals(members, messages, spacing);
        List<JChannel> channels = new ArrayList<>();
        String stack = null;
        long start = System.nanoTime();
        for (int i = 0; i < members; i++) {
            int index = i;
            JChannel ch = new JChannel("tcp.xml");
            TP transport = ch.getProtocolStack().getTransport();
            transport.setBindAddress(loopback);
            transport.setBindPort(ports[i]);
            TCPPING discovery = ch.getProtocolStack().findProtocol(TCPPING.class);
            discovery.setInitialHosts(hosts);
            discovery.setPortRange(0);
            GMS gms = ch.getProtocolStack().findProtocol(GMS.class);
            gms.printLocalAddress(false);
            ch.setDiscardOwnMessages(true);
            ch.setReceiver(new Receiver() {
                @Override
                public void receive(org.jgroups.Message msg) {
                    arrivals.heldBy(index, id(((BytesMessage) msg).getArray()));
                }
            });
            ch.connect("rack");
            channels.add(ch);
            if (stack == null) {
                List<Protocol> bottomUp = new ArrayList<>(ch.getProtocolStack().getProtocols());
                Collections.reverse(bottomUp);
                StringJoiner j = new StringJoiner(" ");
                bottomUp.forEach(p -> j.add(p.getName()));
                stack = j + "; bundler " + transport.getBundlerType();
            }
        }
        long deadline = System.nanoTime() + RackBench.DEADLINE.toNanos();
        while (System.nanoTime() < deadline && channels.stream().anyMatch(c -> c.getView().size() < members)) {
            Thread.sleep(10);
        }
        if (channels.stream().anyMatch(c -> c.getView().size() != members)) {
            throw new IllegalStateException("jgroups: views " + channels.stream().map(c -> c.getView().size())
                    .collect(Collectors.toList()));
        }
        double formedMs = (System.nanoTime() - start) / 1e6;
        while (System.nanoTime() < deadline && channels.stream().anyMatch(c -> openConnections(c) < members - 1)) {
            Thread.sleep(10);
        }
        if (channels.stream().anyMatch(c -> openConnections(c) < members - 1)) {
            throw new IllegalStateException("jgroups: open connections " + channels.stream()
                    .map(PeerBench::openConnections).collect(Collectors.toList()));
        }
        RackBench.collectBeforeRun();
        Measure.CpuWatch cpu = new Measure.CpuWatch();
        arrivals.sendAll(new Random(seed), pick -> {
            arrivals.heldBy(pick[1], pick[0]);
            try {
                channels.get(pick[1]).send(new BytesMessage(null, RackBench.payload(pick[0])));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        long[] latencies = arrivals.latencies();
        double cores = cpu.cores();
        long gcCount = cpu.gcCount();
        long gcMs = cpu.gcMs();
        String settings = "jgroups " + org.jgroups.Version.printVersion() + ", stock tcp.xml, bottom up: " + stack
                + "; TCP on 127.0.0.1, TCPPING initial hosts: the " + members + " members (port range 0); view of "
                + channels.get(0).getView().size() + " and a full mesh of connections before sending";
        if (tidy) {
            for (int i = channels.size() - 1; i >= 0; i--) {
                channels.get(i).close();
            }
        }
        return new Outcome(formedMs, settings, latencies, -1, cores, gcCount, gcMs, null);
    }
}
