package sush.ops.api;

import static sush.ops.api.ConnectionPolicy.served;
import static sush.ops.api.Replies.handle;
import static sush.ops.api.Replies.json;
import static sush.ops.api.Replies.query;
import static sush.ops.api.Replies.sledParameter;

import java.security.cert.X509Certificate;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import reactor.netty.http.server.HttpServerRoutes;
import sush.gossip.Entropy;
import sush.gossip.node.GossipNode;
import sush.locker.store.Locker;
import sush.ops.auth.Authority;
import sush.pipeline.exec.ProcessLauncher;
import sush.pipeline.sled.SledConfig;
import sush.pipeline.sled.SledEvent;
import sush.pipeline.sled.SledRuntime;

/**
 * The HTTP API of one sled (interfaces.md): JSON in and out, validation at the edge (body size,
 * shape, codephrases, signatures and keys), typed errors with 4xx codes; a refused request changes
 * nothing. Queries run on the sled's loop; requests become gossip messages. This class holds the
 * route table and binds it under the connection policy; each resource answers its own routes,
 * every request but the probes' and the login's passing the {@link Gate} first.
 */
public final class ApiServer {
    private final ApiContext api;
    private final ConnectionPolicy policy;
    private final Gate gate;
    private final Probes probes;
    private final Logins logins;
    private final StateResource state;
    private final Relays relays;
    private final OutputResource output;
    private final RackResource rack;
    private final Terminals terminals;
    private final SessionsResource sessions;
    private final JobsResource jobs;
    private final AuditResource audit;
    private final EventStream events;

    public ApiServer(SledConfig cfg, GossipNode node, SledRuntime runtime, Locker<?> locker, ProcessLauncher launcher,
            Entropy entropy, Authority authority) {
        this.api = new ApiContext(cfg, node, runtime, locker, launcher, entropy, authority, ApiLimits.defaults());
        this.policy = new ConnectionPolicy(api.limits());
        this.gate = new Gate(api);
        this.probes = new Probes(api);
        this.logins = new Logins(api, gate);
        this.state = new StateResource(api);
        this.relays = new Relays(api);
        this.output = new OutputResource(api, relays);
        this.rack = new RackResource(api, relays, probes, state);
        this.terminals = new Terminals(api);
        this.sessions = new SessionsResource(api);
        this.jobs = new JobsResource(api, sessions);
        this.audit = new AuditResource(api);
        this.events = new EventStream(api);
        // Never silently: a lost stream means no more events for clients (and no logins honoured
        // from other sleds: their operators log in here again, which is safe), and it is said.
        runtime.events().subscribe(events::number, e -> System.err.println("sush daemon: the API lost the sled's "
                + "event stream: " + e));
        runtime.events().filter(e -> e instanceof SledEvent.Entered).subscribe(e -> logins.regossipRevocations(),
                e -> System.err.println("sush daemon: revocations are no longer re-told to new universes: " + e));
        runtime.events().filter(e -> e instanceof SledEvent.Operator).subscribe(e -> logins.onOperatorMessage(
                ((SledEvent.Operator) e).message()), e -> System.err.println("sush daemon: logins and revocations of "
                        + "other sleds are no longer followed: " + e));
    }

    public DisposableServer bind(String host, int port) {
        return bind(HttpServer.create().host(host).port(port));
    }

    /** Serves on {@code server} (HTTPS when the caller made it secure). */
    public DisposableServer bind(HttpServer server) {
        return policy.apply(server).handle(Gate.originFormOnly(routes())).bindNow();
    }

    /** Every route of the API and the resource that answers it. */
    private HttpServerRoutes routes() {
        return HttpServerRoutes.newRoutes()
                // Probes for supervisors and monitors: no login, nothing private in them.
                .get("/health", (q, s) -> served(q, () -> probes.health(s)))
                .get("/ready", (q, s) -> served(q, () -> probes.ready(s)))
                .get("/metrics", (q, s) -> served(q, () -> probes.metrics(s)))
                .post("/login/challenge", (q, s) -> served(q, () -> logins.challenge(q, s)))
                .post("/login", (q, s) -> served(q, () -> logins.login(q, s)))
                .get("/", (q, s) -> PageResource.page(s, "index.html"))
                .get("/web/{file}", (q, s) -> PageResource.page(s, q.param("file")))
                .get("/version", (q, s) -> gate.guard(q, s, (b, who) -> here(q, s, () -> json(s, 200,
                        probes.version()))))
                .get("/versions", (q, s) -> gate.guard(q, s, (b, who) -> query(api.runtime(), s, probes::versions)))
                .get("/rack", (q, s) -> gate.guard(q, s, (b, who) -> here(q, s, () -> sledParameter(q).isPresent()
                        ? query(api.runtime(), s, rack::rackEntry) : rack.rack(q, s))))
                .get("/sessions", (q, s) -> gate.guard(q, s, (b, who) -> state.activeSession(s)))
                .post("/sessions/start", (q, s) -> gate.guard(q, s, (b, who) -> handle(s, () -> sessions.start(b,
                        who))))
                .post("/sessions/grant", (q, s) -> gate.guard(q, s, (b, who) -> handle(s, () -> sessions.grant(b,
                        who))))
                .post("/sessions/{sid}/stop", (q, s) -> gate.guard(q, s, (b, who) -> handle(s, () -> sessions.stop(q,
                        who))))
                .get("/sessions/{sid}/chain", (q, s) -> gate.guard(q, s, (b, who) -> here(q, s, () -> handle(s,
                        () -> state.chain(q)))))
                .post("/sessions/{sid}/skip/{jid}", (q, s) -> gate.guard(q, s, (b, who) -> handle(s, () -> jobs.skip(q,
                        who))))
                .post("/sessions/{sid}/access/{kid}", (q, s) -> gate.guard(q, s, (b, who) -> handle(s,
                        () -> sessions.access(q, who))))
                .post("/jobs/{jid}/start", (q, s) -> gate.guard(q, s, (b, who) -> handle(s, () -> jobs.start(q, b))))
                .post("/jobs/{jid}/stop", (q, s) -> gate.guard(q, s, (b, who) -> handle(s, () -> jobs.stop(q, who))))
                .post("/jobs/{jid}/skip-sled/{cubby}", (q, s) -> gate.guard(q, s, (b, who) -> handle(s,
                        () -> jobs.skipSled(q, who))))
                .get("/jobs/{jid}/status", (q, s) -> gate.guard(q, s, (b, who) -> handle(s, () -> state.status(q))))
                .get("/jobs/{jid}/output/{stream}", (q, s) -> gate.guard(q, s, (b, who) -> output.output(q, s, who)))
                .get("/jobs/{jid}/attach", (q, s) -> gate.guard(q, s, (b, who) -> terminals.attach(q, s, who)))
                .get("/jobs/{jid}/stream", (q, s) -> gate.guard(q, s, (b, who) -> terminals.stream(q, s, who)))
                .get("/jobs", (q, s) -> gate.guard(q, s, (b, who) -> state.history(q, s)))
                .get("/jobs/{jid}/receipts", (q, s) -> gate.guard(q, s, (b, who) -> handle(s, () -> audit.ofJob(q))))
                .get("/sessions/{sid}/receipts", (q, s) -> gate.guard(q, s, (b, who) -> here(q, s, () -> handle(s,
                        () -> audit.ofSession(q)))))
                .get("/certificate", (q, s) -> gate.guard(q, s, (b, who) -> here(q, s, () -> handle(s,
                        audit::certificate))))
                .get("/plan", (q, s) -> gate.guard(q, s, (b, who) -> here(q, s, () -> handle(s, () -> jobs.plan(q)))))
                .get("/boundary", (q, s) -> gate.guard(q, s, (b, who) -> here(q, s, () -> query(api.runtime(), s,
                        state::boundary))))
                .get("/iam", (q, s) -> gate.guard(q, s, (b, who) -> json(s, 200, logins.iam())))
                .get("/trust", (q, s) -> gate.guard(q, s, (b, who) -> json(s, 200, logins.trust())))
                .post("/trust", (q, s) -> gate.guard(q, s, (b, who) -> handle(s, () -> logins.changeTrust(b, who))))
                .post("/iam/revoke/{kid}", (q, s) -> gate.guard(q, s, (b, who) -> handle(s, () -> logins.revoke(q,
                        who))))
                .post("/iam/unrevoke/{kid}", (q, s) -> gate.guard(q, s, (b, who) -> handle(s, () -> logins.unrevoke(q,
                        who))))
                .get("/events", (q, s) -> gate.guard(q, s, (b, who) -> events.events(q, s)));
    }

    /** Relays the request to the sled its {@code sled} parameter names when that is another; else {@code local}. */
    private Publisher<Void> here(HttpServerRequest q, HttpServerResponse s, Supplier<Publisher<Void>> local) {
        Optional<String> elsewhere = relays.elsewhere(q);
        return elsewhere.isPresent() ? relays.relay(q, s, elsewhere.get()) : local.get();
    }

    /** Connections closed for the bound or the request deadline, since start. */
    public long refusedConnections() {
        return policy.refusedConnections();
    }

    /**
     * Closes every client connection, idle keep-alive ones included: a stopped server must not
     * go on answering on them (an in-process restart would otherwise reach the old sled).
     */
    public void closeConnections() {
        policy.closeAll();
        relays.closePool();
    }

    /** Serves {@code /metrics} from {@code scrape} (the Prometheus text of the daemon's metrics). */
    public void metrics(Supplier<String> scrape) {
        probes.metrics(scrape);
    }

    /**
     * The rack CA that another sled's HTTPS API must chain to when this sled relays an output
     * request to it (its certificate must name that sled); without it, relays to an https:// API
     * are refused.
     */
    public void relayTrust(X509Certificate ca) {
        api.relayTrust(ca);
    }

    /** This sled's certificate, served at {@code /certificate} (issue 40: receipts are checked by it). */
    public void certificate(X509Certificate sled) {
        api.certificate(sled);
    }

    /** The jobs (codephrases) whose output a client is reading now. */
    public Set<String> outputsBeingRead() {
        return output.outputsBeingRead();
    }

    /** Tells the API which outputs the sled's output budget deleted (their downloads answer 410). */
    public void deletedOutputs(Predicate<String> deleted) {
        output.deletedOutputs(deleted);
    }

    /**
     * Asks {@code GET /health} at {@code url}, the API address this sled announces, as another
     * sled's relay would ask it; true when it answered 200 (a warning in the log otherwise).
     */
    public Mono<Boolean> probeAnnounced(String url) {
        return rack.probeAnnounced(url);
    }
}
