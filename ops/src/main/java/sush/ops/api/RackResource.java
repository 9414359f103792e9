package sush.ops.api;

import static sush.ops.api.Replies.error;
import static sush.ops.api.Replies.json;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

import javax.net.ssl.SSLException;

import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import reactor.netty.resources.ConnectionProvider;
import sush.gossip.net.GossipTls;
import sush.ops.auth.Authority;
import sush.ops.wire.Json;
import sush.ops.wire.Rack;
import sush.pipeline.sled.SledConfig;
import sush.pipeline.sled.SledRuntime;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.NullNode;

/**
 * The whole rack in one answer (D-035): {@code GET /rack} asks every announced sled for its own
 * entry at once, with the caller's read token, and draws the ones that do not answer in time
 * unreachable; and the probe of the API address this sled announces, asked as another sled's
 * relay would ask it.
 */
final class RackResource {
    /** The API's one logger name, whichever class logs. */
    private static final Logger LOG = LoggerFactory.getLogger(ApiServer.class);

    private final SledConfig cfg;
    private final SledRuntime runtime;
    private final Relays relays;
    private final Probes probes;
    private final StateResource state;
    /** How long {@code GET /rack} waits for another sled's state before drawing it unreachable. */
    private final Duration rackSledWait;

    RackResource(ApiContext api, Relays relays, Probes probes, StateResource state) {
        this.cfg = api.cfg();
        this.runtime = api.runtime();
        this.relays = relays;
        this.probes = probes;
        this.state = state;
        this.rackSledWait = api.limits().rackSledWait();
    }

    /**
     * {@code GET /rack} (D-035): every announced sled's state in one answer, this sled's own entry
     * ({@code GET /rack?sled=B}) from each, the others asked at once by this one with the caller's
     * read token (each checks it itself). A page makes one request where it made two per sled:
     * a browser opens six connections to a host, and 64 relayed requests queued behind them. A
     * sled that has not answered within {@link ApiLimits#rackSledWait()} is
     * {@code "reachable": false} with the reason; one that answered with an error is reachable
     * with that error. A signed request names one path and sled and cannot be passed on to
     * others: the whole rack needs a read token, and {@code ?sled=B} takes any login.
     */
    Publisher<Void> rack(HttpServerRequest q, HttpServerResponse s) {
        String header = q.requestHeaders().get("Authorization");
        if (header == null || !header.startsWith(Authority.READ_SCHEME)) {
            return error(s, 400, "read-token-needed", "GET /rack asks every sled with the caller's read token; a "
                    + "signed request names one path and sled (sush login --web makes a token; or ask /rack?sled=B)");
        }
        if (q.requestHeaders().contains(Relays.RELAYED_BY)) {
            return error(s, 508, "relay-loop", "GET /rack is never relayed");
        }
        return runtime.query(v -> {
            Rack.Entry mine = rackEntry(v);
            List<Rack.Entry> others = new ArrayList<>();
            if (v.fold() != null) {
                v.fold().announcements().forEach((board, a) -> {
                    if (!board.equals(cfg.me().baseboard())) {
                        others.add(new Rack.Entry(board, a.announcement().cubby(), a.announcement().software(),
                                a.announcement().api(), null, null, null, null));
                    }
                });
            }
            return Map.entry(mine, others);
        }).flatMap(got -> {
            List<Mono<Rack.Entry>> asks = new ArrayList<>();
            asks.add(Mono.just(got.getKey()));
            for (Rack.Entry m : got.getValue()) {
                asks.add(askSled(m, header));
            }
            return Flux.mergeSequential(asks).collectList();
        }).flatMap(list -> {
            List<Rack.Entry> sorted = new ArrayList<>(list);
            sorted.sort(Comparator.comparing(m -> String.valueOf(m.baseboard())));
            return json(s, 200, new Rack(cfg.me().baseboard(), sorted));
        }).onErrorResume(e -> error(s, 500, "internal", e.toString()));
    }

    /**
     * Another sled's entry of {@code GET /rack}, as announced ({@code m}, not yet asked), completed
     * with what it answers itself.
     */
    private Mono<Rack.Entry> askSled(Rack.Entry m, String header) {
        if (m.api() == null) {
            return Mono.just(asked(m, false, null, null, "announced no API address"));
        }
        return relays.ask(m.baseboard(), m.api(), "/rack", header).timeout(rackSledWait).map(answer -> {
            if ((int) answer[0] == 200 && answer[1] instanceof JsonNode) {
                // Its own word on its state; its announcement (gossiped) stays as we know it.
                JsonNode own = (JsonNode) answer[1];
                return asked(m, true, said(own, "version"), said(own, "boundary"), null);
            }
            return asked(m, true, null, null, answer[0] + " " + answer[1]);
        }).onErrorResume(e -> Mono.just(asked(m, false, null, null, e instanceof TimeoutException ? "no answer within "
                + rackSledWait.toMillis() + " ms" : String.valueOf(e.getMessage()))));
    }

    /** Announced entry {@code m} once asked: whether it answered, its own version and boundary, or the error. */
    private static Rack.Entry asked(Rack.Entry m, boolean reachable, JsonNode version, JsonNode boundary,
            String error) {
        return new Rack.Entry(m.baseboard(), m.cubby(), m.software(), m.api(), reachable, version, boundary, error);
    }

    /** Field {@code name} of another sled's own entry, as it said it (a JSON null when it left it out). */
    private static JsonNode said(JsonNode own, String name) {
        JsonNode n = own.get(name);
        return n == null ? NullNode.getInstance() : n;
    }

    /** This sled's entry of {@code GET /rack}: as announced, and its {@code /version} and {@code /boundary}. */
    Rack.Entry rackEntry(SledRuntime.View v) {
        return new Rack.Entry(cfg.me().baseboard(), cfg.me().cubby(), cfg.software(), v.fold() == null ? null
                : Optional.ofNullable(v.fold().announcements().get(cfg.me().baseboard())).map(a -> a.announcement()
                        .api()).orElse(null), true, Json.MAPPER.valueToTree(probes.version()),
                Json.MAPPER.valueToTree(state.boundary(v)), null);
    }

    /**
     * Asks {@code GET /health} at {@code url}, the API address this sled announces, through the
     * client another sled's relay would use (over HTTPS, checking that the certificate names this
     * sled). An address that does not answer is a warning in the log: other sleds cannot relay
     * to this one, and the rack page draws it DOWN. It also loads the relay's client before the
     * first page asks the rack (the first {@code GET /rack} of a fresh daemon took about half a
     * second more without it). True when it answered 200.
     */
    Mono<Boolean> probeAnnounced(String url) {
        HttpClient c;
        try {
            // One question on a connection of its own, closed after it (kept idle, it would count
            // against this sled's connection bound as the oldest idle one).
            c = relays.relayClient(cfg.me().baseboard(), url, ConnectionProvider.newConnection());
        } catch (SSLException | GossipTls.TlsException | IllegalStateException e) {
            LOG.warn("the API address this sled announces, {}, cannot be asked: {}", url, e.getMessage());
            return Mono.just(false);
        }
        return c.get().uri(url + "/health").responseSingle((r, body) -> body.asString().defaultIfEmpty("")
                .map(text -> r.status().code())).timeout(rackSledWait).map(code -> {
                    if (code != 200) {
                        LOG.warn("the API address this sled announces, {}, answered /health with {}", url, code);
                    }
                    return code == 200;
                }).onErrorResume(e -> {
                    LOG.warn("the API address this sled announces, {}, does not answer here ({}): other sleds cannot "
                            + "relay to it and the rack page draws this sled DOWN", url, e.toString());
                    return Mono.just(false);
                });
    }
}
