package sush.ops.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import sush.ops.SignedRequests;
import sush.ops.daemon.Daemon;
import sush.ops.daemon.RackFile;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.JobRequest;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerKey;
import tools.jackson.databind.JsonNode;

/**
 * {@code sush demo}: a 4-sled rack on loopback in temporary directories; a session; signed jobs on
 * every sled, on two cubbies and on one baseboard; a sled restarted; proof from a ledger file
 * that nothing ran twice; every sled's boundary; then a clean shutdown.
 */
@Command(name = "demo", description = "A 4-sled rack on loopback: jobs, a restart, and proof nothing ran twice.")
public final class DemoCommand implements Callable<Integer> {
    @Option(names = "--dir", description = "where to put the rack (default: a new temporary directory)")
    Path dir;
    @Option(names = "--keep", description = "keep the rack's directories afterwards")
    boolean keep;

    private final List<Daemon> daemons = new ArrayList<>();
    private RackFile rack;
    private SignerKey key;

    @Override
    public Integer call() throws Exception {
        Path home = dir != null ? dir : Files.createTempDirectory("sush-demo-");
        Path ledger = home.resolve("ledger.txt");
        say("sush demo: four sleds on loopback under " + home);
        say("Each sled runs a daemon: gossip over mutual TLS, a boundary record on two 'M.2' directories, an HTTP API.");
        rack = RackCommand.create(home, 4, RackCommand.freePorts(4), sush.projections.fold.Ordering.CAUSAL);
        rackDir = home;
        key = SignerKey.fromPem(Files.readString(home.resolve("signer.key")));
        try {
            for (RackFile.SledEntry s : rack.sleds()) {
                daemons.add(start(s));
            }
            awaitOneUniverse();
            Client c = client(0);
            tools.jackson.databind.JsonNode who = c.login();
            say("Gossip is mutual TLS with the rack CA's certificates; the operator logs in with an SSH key:");
            say("   logged in as " + who.get("key_id").asString() + " (" + home.resolve(RackCommand.OPERATOR_KEY)
                    + ") at " + who.get("acceptor").asString());
            String session = c.post("/sessions/start", Map.of()).get("session_id").asString();
            say("\n1. A session, accepted by " + rack.sleds().get(0).baseboard() + ": " + session);
            awaitActive(session);
            String cmd = "echo \"$SUSH_JOB_ID $(basename $(dirname $(dirname $(dirname $SUSH_JOB_OUTPUT_DIR))))\" >> "
                    + ledger + "; uname -s";
            say("\n2. Signed jobs; each appends a line to " + ledger + " (outside every sled's directories).");
            List<String> jobs = new ArrayList<>();
            jobs.add(run(c, cmd, "*", "every sled"));
            jobs.add(run(c, cmd, "1,2", "cubbies 1 and 2"));
            jobs.add(run(c, cmd, rack.sleds().get(3).baseboard(), "one baseboard"));
            say("\n3. Restarting " + rack.sleds().get(2).baseboard() + " (its memory is gone; its boundary record stays).");
            daemons.get(2).close();
            daemons.set(2, start(rack.sleds().get(2)));
            clients.remove(2); // a new daemon: a new connection and a login where it lost the old one
            awaitOneUniverse();
            awaitActive(session);
            say("   It rejoined the rack; the first job is sent again, as a client retrying would:");
            resend(c, jobs.get(0));
            jobs.add(run(c, cmd, "*", "every sled, after the restart"));
            show(c, jobs.get(0), "   the re-sent first job, on every sled:");
            say("\n4. The ledger: one line per (job, sled) that ran.");
            List<String> lines = Files.readAllLines(ledger);
            Set<String> unique = new HashSet<>(lines);
            lines.forEach(l -> say("   " + l));
            boolean once = unique.size() == lines.size();
            say(once ? "   " + lines.size() + " executions, none twice." : "   SOME JOB RAN TWICE");
            say("\n5. Every sled's boundary record:");
            for (int i = 0; i < daemons.size(); i++) {
                say(indent(BoundaryCommand.render(client(i).get("/boundary"))));
            }
            say("\nShutting down.");
            return once && lines.size() == 4 + 2 + 1 + 4 ? 0 : 1;
        } finally {
            for (Daemon d : daemons) {
                d.close();
            }
            if (!keep && dir == null) {
                try (var walk = Files.walk(home)) {
                    walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }

    private Daemon start(RackFile.SledEntry s) throws Daemon.DaemonException {
        return Daemon.start(rack.settings(s, Optional.empty()));
    }

    private final java.util.Map<Integer, Client> clients = new java.util.HashMap<>();

    /** Sled {@code i}'s client, logged in with the demo rack's operator key on first use. */
    private Path rackDir;

    private Client client(int i) {
        return clients.computeIfAbsent(i, k -> RackCommand.operatorClient(rackDir, "http://" + rack.sleds().get(k).api()));
    }

    /** Signs and submits the next job, then waits for every targeted sled to end it. */
    private String run(Client c, String cmd, String target, String what) throws Exception {
        JsonNode s = c.get("/sessions");
        JobRequest r = new JobRequest(SessionId.parse(s.get("session_id").asString()),
                JobId.parse(s.get("next_job").asString()), cmd, target, false);
        SignedJob job = key.sign(r);
        String id = r.job().codephrase();
        c.post("/jobs/" + id + "/start", SignedRequests.toJson(job));
        signed.put(id, job);
        int expected = (int) rack.sleds().stream().filter(x -> targets(target, x)).count();
        for (int i = 0; i < 400 && terminal(c, id) < expected; i++) {
            Client.sleep(50);
        }
        show(c, id, "   job " + id + " on " + what + " (target " + target + "):");
        return id;
    }

    private final Map<String, SignedJob> signed = new java.util.HashMap<>();

    private void resend(Client c, String id) throws Exception {
        c.post("/jobs/" + id + "/start", SignedRequests.toJson(signed.get(id)));
        Client.sleep(1500);
    }

    private static boolean targets(String target, RackFile.SledEntry s) {
        try {
            return sush.projections.targets.Target.parse(target).runsOn(new sush.projections.targets.Sled(s.baseboard(),
                    s.cubby()));
        } catch (sush.projections.targets.TargetException e) {
            return false;
        }
    }

    private static int terminal(Client c, String id) {
        try {
            int n = 0;
            for (JsonNode st : c.get("/jobs/" + id + "/status").get("statuses")) {
                n += JobCommand.TERMINAL.contains(st.path("status").asString()) ? 1 : 0;
            }
            return n;
        } catch (Client.Failure f) {
            return 0;
        }
    }

    private static void show(Client c, String id, String title) throws Client.Failure {
        say(title);
        say(indent(JobCommand.render(c.get("/jobs/" + id + "/status").get("statuses"), false)));
    }

    private void awaitOneUniverse() throws Client.Failure {
        for (int i = 0; i < 300; i++) {
            Set<String> networks = new HashSet<>();
            int announced = Integer.MAX_VALUE;
            for (int k = 0; k < daemons.size(); k++) {
                try {
                    networks.add(client(k).get("/version").get("network").asString());
                    announced = Math.min(announced, client(k).get("/versions").get("sleds").size());
                } catch (Client.Failure f) {
                    networks.add("down");
                }
            }
            if (networks.size() == 1 && announced >= daemons.size()) {
                say("   the four sleds share one universe, " + networks.iterator().next());
                return;
            }
            Client.sleep(100);
        }
        throw new Client.Failure(1, "no-universe", "the sleds did not converge on one universe");
    }

    private void awaitActive(String session) throws Client.Failure {
        for (int i = 0; i < 200; i++) {
            int active = 0;
            for (int k = 0; k < daemons.size(); k++) {
                active += session.equals(SessionCommand.active(client(k))) ? 1 : 0;
            }
            if (active == daemons.size()) {
                return;
            }
            Client.sleep(50);
        }
    }

    private static String indent(String s) {
        return "   " + s.replace("\n", "\n   ");
    }

    private static void say(String s) {
        System.out.println(s);
    }
}
