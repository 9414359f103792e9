package sush.ops;

import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import sush.ops.auth.Authority;
import sush.ops.cli.Client;
import sush.ops.cli.RackCommand;
import sush.ops.daemon.Daemon;
import sush.ops.daemon.RackFile;
import sush.projections.job.SignerKey;

/** Test fixture: a rack written under a directory, its daemons in this JVM. */
final class LocalRack implements AutoCloseable {
    /** The HTTP client of {@link #awaitGossip}'s probes. */
    private static final HttpClient PROBES = HttpClient.newHttpClient();
    final Path dir;
    final RackFile rack;
    final SignerKey key;
    final List<Daemon> daemons = new ArrayList<>();

    /** A causal rack (at-most-once.md). */
    LocalRack(Path dir, int sleds) throws Exception {
        this(dir, sleds, sush.projections.fold.Ordering.CAUSAL);
    }

    /** A rack of {@code ordering}, its slots provisioned for it (signed: floor epoch 0). */
    LocalRack(Path dir, int sleds, sush.projections.fold.Ordering ordering) throws Exception {
        this.dir = dir;
        this.rack = RackCommand.create(dir, sleds, freePorts(sleds), ordering);
        this.key = SignerKey.fromPem(Files.readString(dir.resolve("signer.key")));
        for (RackFile.SledEntry s : rack.sleds()) {
            daemons.add(start(s));
        }
    }

    /** Starts sled {@code s}'s daemon; the next {@link #client} of it connects afresh. */
    Daemon start(RackFile.SledEntry s) throws Daemon.DaemonException {
        clients.remove(rack.sleds().indexOf(s));
        return Daemon.start(rack.settings(s, Optional.empty()));
    }

    /**
     * A whole-rack cold boot: every daemon closed, then every one started again. Gossip is kept
     * nowhere, so the sleds form a new universe knowing nothing but their boundary records.
     */
    void coldBoot() throws Daemon.DaemonException {
        daemons.forEach(Daemon::close);
        for (int i = 0; i < daemons.size(); i++) {
            daemons.set(i, start(rack.sleds().get(i)));
        }
    }

    private final java.util.Map<Integer, Client> clients = new java.util.concurrent.ConcurrentHashMap<>();

    /** A client of sled {@code i}, logged in with the rack's operator key on its first request. */
    Client client(int i) {
        return clients.computeIfAbsent(i, k -> clientOf(dir, "http://" + rack.sleds().get(k).api()));
    }

    /** A client with the operator key of the rack written in {@code dir}. */
    static Client clientOf(Path dir, String url) {
        return RackCommand.operatorClient(dir, url);
    }

    String url(int i) {
        return "http://" + rack.sleds().get(i).api();
    }

    /** Waits until every sled answers in one universe with every announcement (30 s at most). */
    void converge() throws Exception {
        await("the rack did not converge").atMost(Duration.ofSeconds(30)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(100)).until(this::converged);
    }

    /** Whether every sled answers in one universe knowing every announcement (one that does not answer is "down"). */
    private boolean converged() {
        Set<String> nets = new HashSet<>();
        int seen = Integer.MAX_VALUE;
        for (int k = 0; k < rack.sleds().size(); k++) {
            try {
                nets.add(client(k).get("/version").get("network").asString());
                seen = Math.min(seen, client(k).get("/versions").get("sleds").size());
            } catch (Client.Failure f) {
                nets.add("down");
            }
        }
        return nets.size() == 1 && seen >= rack.sleds().size();
    }

    /**
     * Waits until sled {@code to} folded everything sled {@code from} gossiped up to now: a fresh
     * login at {@code from} gossips its identity, which {@code to} honours once it folds it, and a
     * sled folds its deliveries in causal order. A test showing that nothing was gossiped waits for
     * this instead of a fixed sleep.
     */
    void awaitGossip(int from, int to) throws Client.Failure {
        awaitGossip(dir, url(from), url(to));
    }

    /** {@link #awaitGossip(int, int)} in the rack written in {@code dir}, from and to the sleds' APIs given. */
    static void awaitGossip(Path dir, String from, String to) throws Client.Failure {
        Client fresh = clientOf(dir, from);
        fresh.login();
        String token = fresh.credentials().readToken(System.currentTimeMillis() + 60_000).orElseThrow();
        HttpRequest probe = HttpRequest.newBuilder(URI.create(to + "/version"))
                .header("Authorization", Authority.READ_SCHEME + token).build();
        await("a login at " + from + " folded at " + to).atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> PROBES.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
    }

    static int freePorts(int sleds) throws java.io.IOException {
        return RackCommand.freePorts(sleds);
    }

    @Override
    public void close() {
        daemons.forEach(Daemon::close);
    }
}
