package sush.ops.cli;

import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import sush.ops.wire.ChainPage;
import sush.ops.wire.Json;
import sush.ops.wire.SignedRequests;
import sush.ops.wire.SledVersion;
import sush.ops.wire.Versions;
import sush.projections.id.Chain;
import sush.projections.id.IdException;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.ClientChain;
import sush.projections.job.SignedJob;
import tools.jackson.databind.JsonNode;

/**
 * Where the CLI places a session's next job (ordered-sessions.md section 9): after the newest
 * position it can prove, its kept chain extended by the requests and burns the sleds hold after
 * its tip (another client of the session may have added some). It asks the sled it talks to and,
 * relayed through it, every other sled that sled knows, and takes the longest chain that extends
 * its own; two requests at one position are a fork, named, and nothing is placed. A sled's
 * {@code next_job} alone never places a job.
 */
final class Placement {
    /** Bound on the pages of links one sled is asked for. */
    static final int MAX_PAGES = 64;
    /** How long the other sleds are waited for (the asked sled is waited for as any request). */
    static final long OTHERS_WAIT_MS = 3_000;
    /** Bound on the sleds asked at once. */
    static final int MAX_PARALLEL = 8;

    private Placement() {
    }

    /** Session {@code session}'s kept chain, extended by what the rack holds after its tip and kept so. */
    static SessionStore.Kept extended(Client c, SessionStore store, SessionId session) throws Client.Failure {
        SessionStore.Kept kept = store.chain(session);
        JobId tip = kept.chain().tip();
        List<ClientChain.Held> held = new ArrayList<>();
        held.add(fetch(c, session, tip, null));
        String asked = Said.text(c.get("/version", SledVersion.class).baseboard());
        List<String> others = new ArrayList<>();
        List<Versions.Sled> sleds = c.get("/versions", Versions.class).sleds();
        for (Versions.Sled s : sleds == null ? List.<Versions.Sled>of() : sleds) {
            String board = Said.text(s.baseboard());
            if (!board.isEmpty() && !board.equals(asked)) {
                others.add(board);
            }
        }
        held.addAll(askAll(c, session, tip, others));
        kept.extend(held);
        return kept;
    }

    /** What the other sleds hold, asked at once; a sled that does not answer in time, or refuses, adds nothing. */
    private static List<ClientChain.Held> askAll(Client c, SessionId session, JobId tip, List<String> sleds) {
        if (sleds.isEmpty()) {
            return List.of();
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(MAX_PARALLEL, sleds.size()), r -> {
            Thread t = new Thread(r, "sush-chain-ask");
            t.setDaemon(true);
            return t;
        });
        try {
            List<CompletableFuture<ClientChain.Held>> asks = new ArrayList<>();
            for (String b : sleds) {
                asks.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return fetch(c, session, tip, b);
                    } catch (Client.Failure f) {
                        return null;
                    }
                }, pool));
            }
            List<ClientChain.Held> out = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(OTHERS_WAIT_MS);
            for (CompletableFuture<ClientChain.Held> a : asks) {
                try {
                    ClientChain.Held h = a.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    if (h != null) {
                        out.add(h);
                    }
                } catch (ExecutionException | TimeoutException e) {
                    // That sled adds nothing this time.
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * What one sled ({@code sled}, relayed; or the asked one when null) holds of the session's
     * chain from {@code after} on. A sled where the session is not active holds nothing of it.
     */
    static ClientChain.Held fetch(Client c, SessionId session, JobId after, String sled) throws Client.Failure {
        Map<JobId, SignedJob> requests = new HashMap<>();
        Set<JobId> burns = new HashSet<>();
        Map<JobId, JobId> jumps = new HashMap<>();
        JobId from = after;
        for (int page = 0; page < MAX_PAGES; page++) {
            String path = "/sessions/" + session.codephrase() + "/chain?after=" + from.codephrase()
                    + (sled == null ? "" : "&sled=" + URLEncoder.encode(sled,
                            StandardCharsets.UTF_8));
            HttpResponse<String> r = c.raw("GET", path, new byte[0], Map.of());
            if (r.statusCode() == 404) {
                break; // not active there: it holds nothing of this session's chain
            }
            if (r.statusCode() >= 400) {
                throw new Client.Failure(2, "http-" + r.statusCode(), "the sled refused to show the chain: " + r.body());
            }
            ChainPage doc = Client.read(Json.MAPPER.readTree(r.body()), ChainPage.class);
            JobId last = null;
            for (ChainPage.Link l : doc.links() == null ? List.<ChainPage.Link>of() : doc.links()) {
                JobId at = id(Said.text(l.position()));
                if (l.request() != null) {
                    SignedJob j = request(l.request());
                    requests.putIfAbsent(j.request().job(), j);
                    last = j.request().successor();
                } else {
                    burns.add(at);
                    last = Chain.afterBurn(at);
                }
            }
            if (last == null && doc.continuesAt() != null) {
                // Issue 39: the rack forgot the chain here; its live chain goes on there.
                JobId to = id(Said.text(doc.continuesAt()));
                if (jumps.putIfAbsent(from, to) != null) {
                    break;
                }
                from = to;
                continue;
            }
            if (!Said.flag(doc.more()) || last == null) {
                break;
            }
            from = last;
        }
        return new ClientChain.Held(requests, burns, jumps);
    }

    private static JobId id(String phrase) throws Client.Failure {
        try {
            return JobId.parse(phrase);
        } catch (IdException e) {
            throw new Client.Failure(2, "bad-answer", "the sled named a position that is not one: "
                    + Client.printable(phrase));
        }
    }

    private static SignedJob request(JsonNode n) throws Client.Failure {
        try {
            return SignedRequests.fromJson(n);
        } catch (SignedRequests.BadRequest e) {
            throw new Client.Failure(2, "bad-answer", "the sled showed a request that is not one: " + e.getMessage());
        }
    }
}
