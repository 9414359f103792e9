package sush.ops.nemesis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

import sush.gossip.net.RackCa;
import sush.ops.cli.Client;
import sush.ops.cli.RackCommand;
import sush.ops.wire.SignedRequests;
import sush.projections.fixtures.Jobs;
import sush.projections.fold.Ordering;
import sush.projections.id.IdException;
import sush.projections.job.Grant;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerKey;
import tools.jackson.databind.JsonNode;

/**
 * The operator of the nemesis run (issue 38): from the root namespace, through the sleds' HTTPS
 * APIs, it starts sessions and jobs on random sleds (sequential and concurrent, targeted and
 * {@code *}, now and then two at once at the same position through two sleds), stops and skips
 * some, and starts new sessions, all chosen by the run's seed. Every job's command first appends
 * {@code (job, sled, pid, start)} to the ledger, outside every sled's folders, then sleeps a little:
 * the ledger is what ran, whatever the sleds say.
 */
final class Workload {
    private final Path dir;
    private final Sleds sleds;
    private final Ordering ordering;
    private final Random random;
    private final Path ledger;
    private final SignerKey signer;
    private final Client[] clients;
    private final SecureRandom nonces = new SecureRandom();
    private long epoch;
    /** Every request this operator signed, by its tag, with where it went and what the sled answered. */
    private final Map<String, Submitted> jobs = new ConcurrentHashMap<>();
    private final List<String> order = Collections.synchronizedList(new ArrayList<>());
    private final Map<String, Integer> actions = new ConcurrentHashMap<>();

    /** No session became active at the sled asked (a start lost with an old universe, a sled in trouble). */
    static final class NoSession extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NoSession(String message) {
            super(message);
        }
    }

    /** One signed request: its job id (position), its successor (which names it in a conflict), session, target, the sled asked, and that sled's answer. */
    record Submitted(String tag, String id, String successor, String session, String target, int via,
            String answer) {
    }

    Workload(Path dir, Sleds sleds, Ordering ordering, Random random, Path ledger) throws Exception {
        this.dir = dir;
        this.sleds = sleds;
        this.ordering = ordering;
        this.random = random;
        this.ledger = ledger;
        this.signer = SignerKey.fromPem(Files.readString(dir.resolve("signer.key")));
        this.clients = new Client[sleds.size()];
    }

    /**
     * The command every job runs: one ledger line, then a short sleep. The line ends with the
     * request's own tag: two requests signed for one position share the job id, and the tag tells
     * which of them ran.
     */
    String command(String tag, int sleepTenths) {
        return "echo \"$SUSH_JOB_ID $(printf %s \"$SUSH_JOB_OUTPUT_DIR\" | grep -o 'sled[0-9][0-9]' | head -n 1) $$ "
                + "$(date +%s%N) " + tag + "\" >> " + ledger + "; sleep 0." + sleepTenths;
    }

    private String tag() {
        return String.format("r%08x", random.nextInt());
    }

    Client client(int i) throws Client.Failure {
        if (clients[i] == null) {
            String url = "https://" + sleds.entry(i).api();
            Client c = new Client(url, RackCommand.operatorClient(dir, url).credentials(),
                    Client.trusting(dir.resolve(RackCa.CA_CERT)));
            c.login();
            clients[i] = c;
        }
        return clients[i];
    }

    /** Forgets sled {@code i}'s login (it restarted: its tokens are gone). */
    void forget(int i) {
        clients[i] = null;
    }

    Map<String, Submitted> jobs() {
        return jobs;
    }

    List<String> order() {
        return order;
    }

    Map<String, Integer> actions() {
        return actions;
    }

    private int anySled() {
        return random.nextInt(sleds.size());
    }

    private String target() {
        return random.nextInt(5) < 2 ? "*" : sleds.entry(anySled()).baseboard();
    }

    /** One step of the operator, chosen by the seed; failures of the sleds asked are what a rack in trouble says. */
    void step() throws InterruptedException {
        int roll = random.nextInt(100);
        int via = anySled();
        String action = roll < 60 ? "start" : roll < 70 ? "race" : roll < 82 ? "stop" : roll < 90 ? "skip"
                : "session";
        actions.merge(action, 1, Integer::sum);
        try {
            switch (action) {
                case "start" -> start(via, target(), random.nextInt(5) == 0);
                case "race" -> race(via, (via + 1 + random.nextInt(sleds.size() - 1)) % sleds.size());
                case "stop" -> stop(via);
                case "skip" -> skip(via);
                default -> newSession(via);
            }
        } catch (NoSession e) {
            actions.merge(action + " failed (no-session)", 1, Integer::sum);
        } catch (Client.Failure f) {
            actions.merge(action + " failed (" + f.code() + ")", 1, Integer::sum);
            // A sled that restarted forgot its logins: the next step logs in again.
            forget(via);
        } catch (IdException e) {
            throw new IllegalStateException("a sled answered an id that does not parse: " + e.getMessage(), e);
        }
    }

    /** The active session at sled {@code via} and its next position, starting one when there is none. */
    private JsonNode session(int via) throws Client.Failure, InterruptedException {
        Client c = client(via);
        JsonNode s = active(c);
        if (s == null) {
            newSession(via);
            s = active(c);
            if (s == null) {
                throw new NoSession("no session became active at sled " + via);
            }
        }
        return s;
    }

    private static JsonNode active(Client c) {
        try {
            JsonNode s = c.get("/sessions");
            return s.path("session_id").isString() ? s : null;
        } catch (Client.Failure f) {
            return null;
        }
    }

    /** A new session through sled {@code via}: a signer's grant (signed ordering) or the operator's start (causal). */
    void newSession(int via) throws Client.Failure, InterruptedException {
        Client c = client(via);
        String id;
        if (ordering == Ordering.SIGNED) {
            epoch = Math.max(epoch + 1, System.currentTimeMillis());
            byte[] nonce = new byte[Grant.NONCE_BYTES];
            nonces.nextBytes(nonce);
            String operator = c.credentials().identity().orElseThrow().key().codephrase();
            id = c.post("/sessions/grant", SignedRequests.grantToJson(signer.sign(new Grant(epoch, signer.id(),
                    operator, nonce)))).get("session_id").asString();
        } else {
            id = c.post("/sessions/start", Map.of()).get("session_id").asString();
        }
        for (int i = 0; i < 50; i++) {
            JsonNode s = active(c);
            if (s != null && id.equals(s.get("session_id").asString())) {
                return;
            }
            Thread.sleep(50);
        }
    }

    /** One job at {@code via}'s next position; returns once that sled folded it (or after 2 s). */
    void start(int via, String target, boolean concurrent) throws Client.Failure, IdException, InterruptedException {
        JsonNode s = session(via);
        String tag = tag();
        SignedJob job = Jobs.at(signer, s.get("session_id").asString(), s.get("next_job").asString(),
                command(tag, 1 + random.nextInt(9)), target, concurrent);
        String id = submit(via, job, tag, target);
        for (int i = 0; i < 40; i++) {
            JsonNode now = active(client(via));
            if (now == null || !id.equals(now.path("next_job").asString(""))) {
                return;
            }
            Thread.sleep(50);
        }
    }

    private String submit(int via, SignedJob job, String tag, String target) throws Client.Failure {
        String id = job.request().job().codephrase();
        String session = job.request().session().codephrase();
        String successor = job.request().successor().codephrase();
        order.add(id);
        jobs.put(tag, new Submitted(tag, id, successor, session, target, via, "sent"));
        try {
            client(via).post("/jobs/" + id + "/start", SignedRequests.toJson(job));
            jobs.put(tag, new Submitted(tag, id, successor, session, target, via, "ok"));
        } catch (Client.Failure f) {
            jobs.put(tag, new Submitted(tag, id, successor, session, target, via, f.code()));
            throw f;
        }
        return id;
    }

    /** Two different jobs signed for the same position, sent at once through sleds {@code a} and {@code b}. */
    void race(int a, int b) throws Client.Failure, IdException, InterruptedException {
        JsonNode s = session(a);
        String session = s.get("session_id").asString();
        String next = s.get("next_job").asString();
        client(b);
        String second = target();
        String[] tags = {tag(), tag()};
        SignedJob[] two = {Jobs.at(signer, session, next, command(tags[0], 2), "*", false),
            Jobs.at(signer, session, next, command(tags[1], 3), second, false)};
        CountDownLatch go = new CountDownLatch(1);
        Thread other = new Thread(() -> {
            try {
                go.await();
                submit(b, two[1], tags[1], second);
            } catch (Client.Failure | InterruptedException e) {
                // The answer is recorded with the job.
            }
        }, "nemesis-race");
        other.start();
        go.countDown();
        try {
            submit(a, two[0], tags[0], "*");
        } finally {
            other.join(60_000);
        }
    }

    /** Stops one of the ten jobs signed last, through sled {@code via}. */
    void stop(int via) throws Client.Failure {
        String id;
        synchronized (order) {
            if (order.isEmpty()) {
                return;
            }
            id = order.get(Math.max(0, order.size() - 1 - random.nextInt(Math.min(10, order.size()))));
        }
        client(via).post("/jobs/" + id + "/stop", Map.of());
    }

    /** Burns the next position of the active session at sled {@code via} (a hole the chain steps over). */
    void skip(int via) throws Client.Failure, InterruptedException {
        JsonNode s = session(via);
        client(via).post("/sessions/" + s.get("session_id").asString() + "/skip/" + s.get("next_job").asString(),
                Map.of());
    }
}
