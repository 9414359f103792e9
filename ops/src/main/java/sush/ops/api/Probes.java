package sush.ops.api;

import static sush.ops.api.Replies.error;
import static sush.ops.api.Replies.json;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import org.reactivestreams.Publisher;

import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerResponse;
import sush.gossip.node.GossipNode;
import sush.gossip.set.Replica;
import sush.locker.record.SignedRecord;
import sush.locker.store.Locker;
import sush.ops.wire.Version;
import sush.pipeline.disk.DiskReserve;
import sush.pipeline.exec.ProcessLauncher;
import sush.pipeline.sled.SledConfig;
import sush.pipeline.sled.SledRuntime;
import sush.projections.fold.Ordering;
import sush.projections.targets.Sled;

/**
 * What supervisors, monitors and scrapers ask a sled, and what any client asks first: whether
 * it is alive ({@code /health}), ready to run jobs ({@code /ready}), its metrics, its version
 * and the versions every sled announced. The first three need no login: nothing private in them.
 */
final class Probes {
    private final ApiContext api;
    private final SledConfig cfg;
    private final GossipNode node;
    private final SledRuntime runtime;
    private final Locker<?> locker;
    private final ProcessLauncher launcher;
    /** The daemon's metrics as Prometheus text, served at {@code /metrics} once given. */
    private volatile Supplier<String> metrics;

    Probes(ApiContext api) {
        this.api = api;
        this.cfg = api.cfg();
        this.node = api.node();
        this.runtime = api.runtime();
        this.locker = api.locker();
        this.launcher = api.launcher();
    }

    /** Serves {@code /metrics} from {@code scrape}. */
    void metrics(Supplier<String> scrape) {
        this.metrics = scrape;
    }

    /** {@code GET /metrics}: the Prometheus text exposition (no login: a scraper's probe, nothing private). */
    Publisher<Void> metrics(HttpServerResponse s) {
        Supplier<String> m = metrics;
        if (m == null) {
            return error(s, 404, "no-metrics", "this API front serves no metrics");
        }
        return s.status(200).header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                .sendString(Mono.fromCallable(m::get)).then();
    }

    /**
     * {@code GET /health}: 200 when the sled's loop answered within
     * {@link ApiLimits#healthDeadline()} and has not failed; 503 otherwise (a supervisor restarts
     * the daemon).
     */
    Publisher<Void> health(HttpServerResponse s) {
        long t0 = System.nanoTime();
        return runtime.query(v -> true).timeout(api.limits().healthDeadline()).map(ok -> healthBody(
                cfg.me().baseboard(), api.rackId(), (System.nanoTime() - t0) / 1_000_000.0, runtime.failure()))
                .flatMap(m -> json(s, "ok".equals(m.get("status")) ? 200 : 503, m))
                .onErrorResume(e -> json(s, 503, Map.of("status", "stalled", "sled", cfg.me().baseboard(), "rack_id",
                        api.rackId(), "message", "the sled's loop did not answer within "
                                + api.limits().healthDeadline().toMillis() + " ms")));
    }

    /** The body of a {@code /health} the loop answered: failed or ok, who answers, how long the loop took. */
    static Map<String, Object> healthBody(String sled, String rackId, double loopMs, Optional<String> failure) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("status", failure.isPresent() ? "failed" : "ok");
        // Who answers: what a client names in every signed request (issue 36).
        m.put("sled", sled);
        m.put("rack_id", rackId);
        m.put("loop_ms", loopMs);
        failure.ifPresent(f -> m.put("failure", f));
        return m;
    }

    /**
     * {@code GET /ready}: whether the sled can run jobs now, and why not: its store trusted, in a
     * universe, at least one peer connected when it has peers, its gossip set not full, its loop
     * not failed, its output disk not short of space. 200 when ready, 503 with the reasons otherwise.
     */
    Publisher<Void> ready(HttpServerResponse s) {
        return runtime.query(this::readiness).timeout(api.limits().healthDeadline())
                .flatMap(m -> json(s, Boolean.TRUE.equals(m.get("ready")) ? 200 : 503, m))
                .onErrorResume(e -> json(s, 503, Map.of("ready", false, "reasons", List.of("the sled's loop did not "
                        + "answer within " + api.limits().healthDeadline().toMillis() + " ms"))));
    }

    private Map<String, Object> readiness(SledRuntime.View v) {
        GossipNode.Stats stats = node.stats();
        int expected = node.expectedPeers();
        int held = node.replica().size();
        List<String> reasons = new ArrayList<>();
        if (!v.trusted()) {
            reasons.add("the boundary store is not trusted: " + locker.changed().orElse(locker.load().reason()));
        }
        if (v.network() == null || v.network().isBootstrapping()) {
            reasons.add("not in a universe yet");
        }
        if (expected > 0 && stats.connectedPeers() == 0) {
            reasons.add("no peer connected of " + expected);
        }
        if (held >= Replica.MAX_MESSAGES) {
            reasons.add("the gossip set is full (" + held + " messages)");
        }
        runtime.failure().ifPresent(f -> reasons.add("the sled stopped admitting: " + f));
        // A full output disk is not a failure: /health stays ok (a restart frees nothing), /ready
        // says why jobs are refused until space returns (issue 35).
        runtime.shortOfSpace().ifPresent(reasons::add);
        boolean reserved = runtime.disk() != DiskReserve.NONE;
        return readinessBody(v, reasons, stats.connectedPeers(), expected, held,
                reserved ? runtime.disk().usable() : null, reserved ? runtime.disk().reserve() : null);
    }

    /**
     * The body of a {@code /ready} the loop answered: ready when no reason says otherwise, and
     * what it was judged by; the disk's free bytes and reserve when the sled keeps one (else null).
     */
    static Map<String, Object> readinessBody(SledRuntime.View v, List<String> reasons, int peersConnected,
            int peersExpected, int held, Long diskFree, Long diskReserve) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ready", reasons.isEmpty());
        m.put("reasons", reasons);
        m.put("store_trusted", v.trusted());
        m.put("ordering", v.ordering().wireName());
        m.put("universe", v.network() == null ? null : v.network().toString());
        m.put("peers_connected", peersConnected);
        m.put("peers_expected", peersExpected);
        m.put("floor", v.ordering() == Ordering.SIGNED
                ? v.record().map(r -> (Object) ((SignedRecord) r).floor()).orElse(null)
                : v.floor().map(Object::toString).orElse(null));
        m.put("pending_launches", v.pendingLaunches());
        m.put("running", v.running().size());
        m.put("set_messages", held);
        m.put("set_fill", (double) held / Replica.MAX_MESSAGES);
        if (diskFree != null) {
            m.put("disk_free_bytes", diskFree);
            m.put("disk_reserve_bytes", diskReserve);
        }
        return m;
    }

    /** {@code GET /version}: which sled answers, its build, universe, ordering, rack and containment. */
    Map<String, Object> version() {
        return versionBody(cfg.me(), cfg.software(), node.network().toString(), api.ordering(), api.rackId(),
                launcher.containment(), ProcessLauncher.sessions());
    }

    /** The body of {@code /version} for sled {@code me} (its build is this process's). */
    static Map<String, Object> versionBody(Sled me, String software, String network, Ordering ordering, String rackId,
            String containment, String jobSessions) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("baseboard", me.baseboard());
        m.put("cubby", me.cubby());
        m.put("software", software);
        m.put("version", Version.VERSION);
        m.put("commit", Version.COMMIT);
        m.put("network", network);
        m.put("ordering", ordering.wireName());
        // Whose rack this is (issue 34): clients file the grants and chains they keep under it.
        m.put("rack_id", rackId);
        // How this sled contains what a job starts (issue 22): "cgroup2 <dir>" or "marker".
        m.put("containment", containment);
        // How a job's first process gets its own session (D-038).
        m.put("job_sessions", jobSessions);
        return m;
    }

    /** {@code GET /versions}: every sled's announcement as this sled knows it. */
    Object versions(SledRuntime.View v) {
        List<Object> out = new ArrayList<>();
        if (v.fold() != null) {
            v.fold().announcements().forEach((board, a) -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("baseboard", board);
                m.put("cubby", a.announcement().cubby());
                m.put("software", a.announcement().software());
                if (a.announcement().api() != null) {
                    m.put("api", a.announcement().api());
                }
                out.add(m);
            });
        }
        return Map.of("sleds", out);
    }
}
