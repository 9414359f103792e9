package sush.ops.daemon;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Locale;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import sush.gossip.node.GossipNode;
import sush.gossip.set.Replica;
import sush.gossip.sync.Traffic;
import sush.locker.admission.Verdict;
import sush.pipeline.sled.SledEvent;
import sush.pipeline.sled.SledRuntime;

/**
 * The daemon's metrics (issue 16), Prometheus text at {@code GET /metrics}: commit and fsync
 * latency, launches, endings by status, refusals by reason, admissions by rule, gossip frames
 * and bytes by kind, links, messages held and set fill, pending launches, journal bytes, and the
 * JVM's and Reactor Netty's own. Names follow Prometheus conventions (units in names).
 */
public final class SledMetrics implements AutoCloseable {
    /**
     * What Reactor Netty records in Micrometer's global registry (its HTTP servers' meters): one
     * registry for the JVM, added to the global one once, before any meter is there. A daemon's
     * own registry added at each start would come after the meters an earlier daemon of the same
     * JVM left there (the demo's restarted sled, a test's), which Micrometer warns about (issue
     * 41); with one daemon per JVM it is that daemon's. Every daemon's scrape includes it.
     */
    private static final PrometheusMeterRegistry HTTP = inGlobalRegistry();
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Timer commit;
    private final Timer fsync;
    private final Counter launches;
    private final JvmGcMetrics gc = new JvmGcMetrics();
    /** Gauges hold what they read weakly: the journal's directory is kept here. */
    private Path journalDir;

    public SledMetrics() {
        commit = Timer.builder("sush.commit").description("a boundary record stored on every slot before a launch")
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofSeconds(10)).register(registry);
        fsync = Timer.builder("sush.fsync").description("one fsync of a boundary slot's file or directory")
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofNanos(50_000))
                .maximumExpectedValue(Duration.ofSeconds(10)).register(registry);
        launches = Counter.builder("sush.launches").description("jobs launched after their commit").register(registry);
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
    }

    /** {@link #HTTP}: a registry added to Micrometer's global one, where Reactor Netty records its meters. */
    private static PrometheusMeterRegistry inGlobalRegistry() {
        PrometheusMeterRegistry r = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Metrics.addRegistry(r);
        return r;
    }

    /** Counts one fsync (a slot's listener). */
    public void fsync(long nanos) {
        fsync.record(Duration.ofNanos(nanos));
    }

    /** The gauges and counters read from the sled's parts when scraped. */
    void bind(GossipNode node, SledRuntime runtime, Path journal) {
        this.journalDir = journal;
        Gauge.builder("sush.links", node, n -> n.stats().connectedPeers()).description("gossip links up")
                .register(registry);
        Gauge.builder("sush.peers", node, GossipNode::expectedPeers).description("gossip peers expected")
                .register(registry);
        Gauge.builder("sush.gossip.messages", node, n -> n.replica().size())
                .description("messages held in the current universe's gossip set").register(registry);
        Gauge.builder("sush.gossip.set.fill", node, n -> (double) n.replica().size() / Replica.MAX_MESSAGES)
                .baseUnit("ratio").description("the gossip set's share of its capacity").register(registry);
        Gauge.builder("sush.gossip.forgotten", node, n -> n.replica().forgottenCount())
                .description("messages this sled forgot from the current universe's gossip set (settled)")
                .register(registry);
        Gauge.builder("sush.gossip.version.bytes", node, n -> n.replica().frontier().encodedSize()).baseUnit("bytes")
                .description("the encoded size of the current universe's frontier: it grows with identity forks "
                        + "(D-053)").register(registry);
        Gauge.builder("sush.gossip.identity.resumed", node, n -> n.replica().resumed() ? 1 : 0)
                .description("1 when this life took its identity back from its bookmark, 0 when it forked or "
                        + "seeded one (D-053)").register(registry);
        Gauge.builder("sush.chain.fill", runtime, SledRuntime::chainFill).baseUnit("ratio")
                .description("the active session's chain: its fullest memory's share of its bound").register(registry);
        Gauge.builder("sush.pending.launches", runtime, SledRuntime::pendingLaunches)
                .description("commits reserved and not yet launched").register(registry);
        FunctionCounter.builder("sush.stores.coalesced", runtime,
                r -> (double) r.coalescedStores()).description("boundary stores acknowledged by a newer store of "
                        + "their batch instead of their own (D-036)").register(registry);
        Gauge.builder("sush.journal", journalDir, SledMetrics::bytes).baseUnit("bytes")
                .description("bytes of the sled's journal").register(registry);
        Traffic traffic = node.traffic();
        for (String kind : Traffic.kinds()) {
            FunctionCounter.builder("sush.gossip.frames", traffic, t -> t.framesOf(kind)).tag("kind", kind)
                    .description("gossip frames sent").register(registry);
            FunctionCounter.builder("sush.gossip.sent", traffic, t -> t.bytesOf(kind)).tag("kind", kind)
                    .baseUnit("bytes").description("gossip bytes sent").register(registry);
        }
    }

    /** Counts what one sled event means. */
    void on(SledEvent e) {
        if (e instanceof SledEvent.Committed) {
            commit.record(Duration.ofNanos(((SledEvent.Committed) e).micros() * 1_000));
        } else if (e instanceof SledEvent.Launched) {
            launches.increment();
        } else if (e instanceof SledEvent.Ended) {
            String status = ((SledEvent.Ended) e).summary().split(" ")[0];
            Counter.builder("sush.endings").tag("status", status).description("jobs ended, by status")
                    .register(registry).increment();
        } else if (e instanceof SledEvent.Screened) {
            Verdict v = ((SledEvent.Screened) e).verdict();
            if (v instanceof Verdict.Admit) {
                String rule = ((Verdict.Admit) v).rule();
                Counter.builder("sush.admissions").tag("rule", rule.contains(":") ? rule.substring(0, rule.indexOf(':'))
                        : rule).description("jobs admitted, by admission rule").register(registry).increment();
            } else {
                Counter.builder("sush.refusals").tag("reason", reason(v)).description("jobs refused, by reason")
                        .register(registry).increment();
            }
        }
    }

    static String reason(Verdict v) {
        if (v instanceof Verdict.Skip) {
            return ((Verdict.Skip) v).reason().name().toLowerCase(Locale.ROOT);
        } else if (v instanceof Verdict.Refuse) {
            return "untrusted";
        } else if (v instanceof Verdict.EpochReuse) {
            return "epoch_reuse";
        } else if (v instanceof Verdict.Hop) {
            return "hop";
        }
        return "adjudicated";
    }

    /** Bytes of the files under {@code dir}; a file removed while counted counts nothing. */
    static double bytes(Path dir) {
        long[] sum = {0};
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file,
                        BasicFileAttributes attrs) {
                    sum[0] += attrs.isRegularFile() ? attrs.size() : 0;
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) {
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            return Double.NaN;
        }
        return sum[0];
    }

    /** A request's URI as a metric tag: ids replaced by a placeholder, no query (bounded cardinality). */
    public static String uriTemplate(String uri) {
        String path = uri.contains("?") ? uri.substring(0, uri.indexOf('?')) : uri;
        StringBuilder b = new StringBuilder();
        for (String segment : path.split("/")) {
            if (segment.isEmpty()) {
                continue;
            }
            b.append('/').append(segment.matches("[a-z]+(-[a-z]+){3,}") || segment.length() > 40 ? "{id}" : segment);
        }
        return b.length() == 0 ? "/" : b.toString();
    }

    /** The Prometheus text exposition: this sled's meters, then Reactor Netty's ({@link #HTTP}). */
    public String scrape() {
        return registry.scrape() + HTTP.scrape();
    }

    @Override
    public void close() {
        gc.close();
        registry.close();
    }
}
