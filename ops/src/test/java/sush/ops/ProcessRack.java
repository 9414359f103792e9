package sush.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import sush.ops.cli.Client;
import sush.ops.cli.RackCommand;
import sush.ops.daemon.RackFile;
import sush.ops.wire.Json;

/**
 * Test fixture: a rack whose daemons run as separate JVMs (kill -9 is real), torn down after each
 * test. A test that fails prints the tail of every sled's daemon log (what a daemon that never
 * served, or stopped, said), since its folder goes with the test.
 */
abstract class ProcessRack {
    /** Lines of each daemon's log printed when a test fails. */
    private static final int LOG_TAIL = 40;

    @RegisterExtension
    final AfterTestExecutionCallback logsOnFailure = context -> {
        if (context.getExecutionException().isPresent() && this.rack != null) {
            for (RackFile.SledEntry s : this.rack.sleds()) {
                Path log = s.output().getParent().resolve("daemon.log");
                try {
                    List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of("(no daemon.log)");
                    System.out.println("---- " + s.baseboard() + " " + log + " (last " + LOG_TAIL + " lines)");
                    lines.subList(Math.max(0, lines.size() - LOG_TAIL), lines.size()).forEach(System.out::println);
                } catch (IOException | RuntimeException e) {
                    System.out.println("---- " + s.baseboard() + ": " + log + " unreadable: " + e);
                }
            }
        }
    };

    @TempDir
    Path dir;
    RackFile rack;
    final List<Process> processes = new ArrayList<>();
    private final Map<Integer, Client> clients = new java.util.HashMap<>();

    @AfterEach
    void down() {
        processes.forEach(p -> p.descendants().forEach(ProcessHandle::destroyForcibly));
        processes.forEach(Process::destroyForcibly);
    }

    /** Sled {@code i}'s client, logged in with the rack's operator key on first use. */
    Client client(int i) {
        return clients.computeIfAbsent(i, k -> RackCommand.operatorClient(dir, "http://" + rack.sleds().get(k).api()));
    }

    /** Every sled's status of {@code job} as sled {@code via} sees it; empty while it knows none. */
    Map<String, String> statuses(int via, String job) {
        Map<String, String> out = new TreeMap<>();
        try {
            client(via).get("/jobs/" + job + "/status").get("statuses").properties()
                    .forEach(e -> out.put(e.getKey(), e.getValue().path("status").asString()));
        } catch (Client.Failure f) {
            // not known yet
        }
        return out;
    }

    /** Whether all {@code sleds} answer in one universe, each knowing every sled's announcement. */
    boolean oneUniverse(int sleds) {
        java.util.Set<String> n = new java.util.HashSet<>();
        for (int i = 0; i < sleds; i++) {
            try {
                n.add(client(i).get("/version").get("network").asString());
                if (client(i).get("/versions").get("sleds").size() < sleds) {
                    return false;
                }
            } catch (Client.Failure f) {
                return false;
            }
        }
        return n.size() == 1;
    }

    /** Waits until sled {@code to} folded what sled {@code from} gossiped: {@link LocalRack#awaitGossip(int, int)}. */
    void awaitGossip(int from, int to) throws Client.Failure {
        LocalRack.awaitGossip(dir, "http://" + rack.sleds().get(from).api(), "http://" + rack.sleds().get(to).api());
    }

    /** Waits until {@code done} holds, polling every 50 ms for 30 s at most; the failure names {@code what}. */
    static void await(String what, BooleanSupplier done) throws InterruptedException {
        Awaitility.await(what).atMost(Duration.ofSeconds(30)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(50)).until(done::getAsBoolean);
    }

    /** The CLI in this JVM against sled {@code i}, as the rack's operator with its signer key (after the first two words). */
    CliRun cli(int i, String... args) {
        List<String> line = new ArrayList<>(List.of(args));
        line.addAll(2, List.of("--url", "http://" + rack.sleds().get(i).api(), "--operator-key",
                dir.resolve("operator.key").toString(), "--key", dir.resolve("signer.key").toString()));
        return CliRun.of(line.toArray(String[]::new));
    }

    /** {@code sush job start --target target -- command} through sled {@code via}; the job's id. */
    String start(int via, String target, String command) throws Exception {
        CliRun r = cli(via, "job", "start", "--json", "--target", target, "--", command);
        assertEquals(0, r.exit(), r.out() + r.err());
        return Json.MAPPER.readTree(r.lastLine()).get("job_id").asString();
    }
}
