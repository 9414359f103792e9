package sush.ops.api;

import static sush.ops.api.Replies.error;
import static sush.ops.api.Replies.json;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import org.reactivestreams.Publisher;

import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerResponse;
import sush.gossip.node.GossipNode;
import sush.gossip.set.Replica;
import sush.locker.store.Locker;
import sush.ops.wire.Health;
import sush.ops.wire.Readiness;
import sush.ops.wire.SledVersion;
import sush.ops.wire.Version;
import sush.ops.wire.Versions;
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
                .flatMap(h -> json(s, "ok".equals(h.status()) ? 200 : 503, h))
                .onErrorResume(e -> json(s, 503, new Health("stalled", cfg.me().baseboard(), api.rackId(), null, null,
                        "the sled's loop did not answer within " + api.limits().healthDeadline().toMillis() + " ms")));
    }

    /** The body of a {@code /health} the loop answered: failed or ok, who answers, how long the loop took. */
    static Health healthBody(String sled, String rackId, double loopMs, Optional<String> failure) {
        // Who answers: what a client names in every signed request (issue 36).
        return new Health(failure.isPresent() ? "failed" : "ok", sled, rackId, loopMs, failure.orElse(null), null);
    }

    /**
     * {@code GET /ready}: whether the sled can run jobs now, and why not: its store trusted, in a
     * universe, at least one peer connected when it has peers, its gossip set not full, its loop
     * not failed, its output disk not short of space. 200 when ready, 503 with the reasons otherwise.
     */
    Publisher<Void> ready(HttpServerResponse s) {
        return runtime.query(this::readiness).timeout(api.limits().healthDeadline())
                .flatMap(r -> json(s, Boolean.TRUE.equals(r.ready()) ? 200 : 503, r))
                .onErrorResume(e -> json(s, 503, new Readiness.Stalled(false, List.of("the sled's loop did not "
                        + "answer within " + api.limits().healthDeadline().toMillis() + " ms"))));
    }

    private Readiness readiness(SledRuntime.View v) {
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
    static Readiness readinessBody(SledRuntime.View v, List<String> reasons, int peersConnected,
            int peersExpected, int held, Long diskFree, Long diskReserve) {
        return new Readiness(reasons.isEmpty(), reasons, v.trusted(), v.ordering().wireName(),
                v.network() == null ? null : v.network().toString(), peersConnected, peersExpected,
                StateResource.floor(v), v.pendingLaunches(), v.running().size(), held,
                (double) held / Replica.MAX_MESSAGES, diskFree, diskFree == null ? null : diskReserve);
    }

    /** {@code GET /version}: which sled answers, its build, universe, ordering, rack and containment. */
    SledVersion version() {
        return versionBody(cfg.me(), cfg.software(), node.network().toString(), api.ordering(), api.rackId(),
                launcher.containment(), ProcessLauncher.sessions());
    }

    /** The body of {@code /version} for sled {@code me} (its build is this process's). */
    static SledVersion versionBody(Sled me, String software, String network, Ordering ordering, String rackId,
            String containment, String jobSessions) {
        // rack_id: whose rack this is (issue 34): clients file the grants and chains they keep under it.
        // containment: how this sled contains what a job starts (issue 22): "cgroup2 <dir>" or "marker".
        // job_sessions: how a job's first process gets its own session (D-038).
        return new SledVersion(me.baseboard(), me.cubby(), software, Version.VERSION, Version.COMMIT, network,
                ordering.wireName(), rackId, containment, jobSessions);
    }

    /** {@code GET /versions}: every sled's announcement as this sled knows it. */
    Versions versions(SledRuntime.View v) {
        List<Versions.Sled> out = new ArrayList<>();
        if (v.fold() != null) {
            v.fold().announcements().forEach((board, a) -> out.add(new Versions.Sled(board, a.announcement().cubby(),
                    a.announcement().software(), a.announcement().api())));
        }
        return new Versions(out);
    }
}
