package sush.ops.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import sush.ops.wire.ActiveSession;
import sush.ops.wire.Answers;
import sush.ops.wire.Boundary;
import sush.ops.wire.SignedRequests;
import sush.ops.wire.SledStatus;
import sush.ops.wire.SledVersion;
import sush.ops.wire.StatusReport;
import sush.ops.wire.Versions;
import sush.ops.daemon.Daemon;
import sush.ops.daemon.RackFile;
import sush.ops.signer.EpochFile;
import sush.projections.fold.Ordering;
import sush.projections.id.SessionId;
import sush.projections.job.JobLimits;
import sush.projections.job.JobMode;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerKey;
import sush.projections.targets.Sled;
import sush.projections.targets.Target;
import sush.projections.targets.TargetException;

/**
 * {@code sush demo}: a 4-sled rack of the signed ordering on loopback in temporary directories; a
 * session granted by the signer; signed jobs on every sled, on two cubbies and on one baseboard; a
 * sled restarted; a whole-rack cold boot continued by {@code session resume}; proof from a ledger
 * file that nothing ran twice; every sled's boundary; then a clean shutdown.
 */
@Command(name = "demo", description = "A 4-sled signed rack on loopback: jobs, a restart, a whole-rack cold boot "
        + "resumed, and proof nothing ran twice.")
public final class DemoCommand implements Callable<Integer> {
    /** Executions the story makes: 4 + 2 + 1 + 4 before the cold boot, 4 after it. */
    static final int EXECUTIONS = 4 + 2 + 1 + 4 + 4;

    @Option(names = "--dir", description = "where to put the rack (default: a new temporary directory)")
    Path dir;
    @Option(names = "--keep", description = "keep the rack's directories afterwards")
    boolean keep;
    @Option(names = "--web", description = "after the story, leave the rack up and print the rack page's address "
            + "(with a read token) until Ctrl-C")
    boolean web;

    private final List<Daemon> daemons = new ArrayList<>();
    private RackFile rack;
    private SignerKey key;
    /** Where the demo runs: the story is told on its standard output, {@code --dir} is relative to it. */
    private final Invocation invocation;

    DemoCommand(Invocation invocation) {
        this.invocation = invocation;
    }

    @Override
    public Integer call() throws Exception {
        Path home = dir != null ? invocation.path(dir) : Files.createTempDirectory("sush-demo-");
        Path ledger = home.resolve("ledger.txt");
        say("sush demo: four sleds on loopback under " + home);
        say("Each sled runs a daemon: gossip over mutual TLS, a boundary record on two 'M.2' directories, an HTTP API.");
        rack = RackCommand.create(home, 4, RackCommand.freePorts(4), Ordering.SIGNED);
        rackDir = home;
        key = SignerKey.fromPem(Files.readString(home.resolve("signer.key")));
        try {
            for (RackFile.SledEntry s : rack.sleds()) {
                daemons.add(start(s));
            }
            awaitOneUniverse();
            Client c = client(0);
            Answers.LoggedIn who = Client.read(c.login(), Answers.LoggedIn.class);
            say("Gossip is mutual TLS with the rack CA's certificates; the operator logs in with an SSH key:");
            say("   logged in as " + Said.text(who.keyId()) + " (" + home.resolve(RackCommand.OPERATOR_KEY)
                    + ") at " + Said.text(who.acceptor()));
            store = new SessionStore(home.resolve("client"));
            String session = grant(c, store);
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
            Client.sleep(1500);
            jobs.add(run(c, cmd, "*", "every sled, after the restart"));
            show(c, jobs.get(0), "   the re-sent first job, on every sled:");
            coldBoot(store, session, jobs, cmd);
            boolean once = ledger(ledger);
            say("\n6. Every sled's boundary record:");
            for (int i = 0; i < daemons.size(); i++) {
                say(indent(BoundaryCommand.render(client(i).get("/boundary", Boundary.class))));
            }
            if (web) {
                String token = client(0).credentials().readToken(System.currentTimeMillis() + 8 * 3_600_000L)
                        .orElseThrow();
                say("\n7. The rack page (read only; it follows the rack live):\n   " + client(0).url() + "/#token="
                        + token + "\n   The rack stays up for it; Ctrl-C stops it.");
                CountDownLatch stop = new CountDownLatch(1);
                Thread hook = new Thread(() -> {
                    daemons.forEach(Daemon::close);
                    stop.countDown();
                }, "sush-demo-stop");
                Runtime.getRuntime().addShutdownHook(hook);
                stop.await();
            }
            say("\nShutting down.");
            return once ? 0 : 1;
        } finally {
            for (Daemon d : daemons) {
                d.close();
            }
            if (!keep && dir == null) {
                try (var walk = Files.walk(home)) {
                    walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }

    /** Step 1: the signer grants a session (a fresh epoch), the grant is kept and submitted. */
    private String grant(Client c, SessionStore grants) throws Client.Failure {
        Global g = new Global(invocation);
        g.key = rackDir.resolve("signer.key");
        SessionCommand.Begun started = SessionCommand.begin(g, c, grants);
        String session = started.sessionId();
        say("\n1. A session, granted by the signer key " + started.signer() + " at epoch " + started.epoch()
                + "\n   (its epoch file " + rackDir.resolve("signer.key" + EpochFile.SUFFIX)
                + "), kept in " + started.grantFile() + ":\n   " + session);
        awaitActive(session);
        return session;
    }

    /**
     * Step 4: every daemon stops at once and starts again. Gossip is kept nowhere, so no sled
     * remembers the session; {@code sush session resume} re-submits the kept grant, each sled
     * resumes the session at the successor of the last job it committed, every earlier job is
     * re-sent, and one new job runs.
     */
    private void coldBoot(SessionStore grants, String session, List<String> jobs, String cmd) throws Exception {
        say("\n4. A whole-rack cold boot: every daemon stops, then starts again.");
        for (Daemon d : daemons) {
            d.close();
        }
        for (int i = 0; i < daemons.size(); i++) {
            daemons.set(i, start(rack.sleds().get(i)));
        }
        clients.clear();
        awaitOneUniverse();
        Client c = client(0);
        say("   active session on " + rack.sleds().get(0).baseboard() + ": "
                + Optional.ofNullable(SessionCommand.active(c)).orElse("none (no sled kept any gossip)"));
        SessionCommand.Begun resumed = SessionCommand.resume(c, grants, grants.newestGrant());
        say("   sush session resume: the kept grant, then the session's chain (" + resumed.requests()
                + " requests) sent again, session " + resumed.sessionId());
        awaitActive(session);
        say("   Each sled resumed at the successor of the last job it committed; the re-sent chain links them all "
                + "to where the session goes on. One new job:");
        String next = run(c, cmd, "*", "every sled, after the cold boot");
        for (String id : jobs) {
            String title = "   the re-sent " + id + " (target " + signed.get(id).request().target() + "):";
            try {
                show(c, id, title);
            } catch (Client.Failure f) {
                say(title + "\n      no sled reports a status (" + f.code() + "): it waits behind the resumed head; "
                        + "the ledger shows it did not run again");
            }
        }
        jobs.add(next);
    }

    /** Step 5: one ledger line per (job, sled) that ran; true when none is there twice and all are. */
    private boolean ledger(Path ledger) throws IOException {
        say("\n5. The ledger: one line per (job, sled) that ran.");
        List<String> lines = Files.readAllLines(ledger);
        Set<String> unique = new HashSet<>(lines);
        lines.forEach(l -> say("   " + l));
        boolean once = unique.size() == lines.size();
        say(once ? "   " + lines.size() + " executions, none twice." : "   SOME JOB RAN TWICE");
        if (lines.size() != EXECUTIONS) {
            say("   EXPECTED " + EXECUTIONS + " EXECUTIONS");
        }
        return once && lines.size() == EXECUTIONS;
    }

    private Daemon start(RackFile.SledEntry s) throws Daemon.DaemonException {
        return Daemon.start(rack.settings(s, Optional.empty()));
    }

    private final Map<Integer, Client> clients = new HashMap<>();

    /** Sled {@code i}'s client, logged in with the demo rack's operator key on first use. */
    private Path rackDir;

    private Client client(int i) {
        return clients.computeIfAbsent(i, k -> RackCommand.operatorClient(rackDir, "http://" + rack.sleds().get(k).api()));
    }

    /** Signs and submits the next job, then waits for every targeted sled to end it. */
    /** The demo's client state (its kept grant and chain), in the demo's own directory. */
    private SessionStore store;

    /** A job placed and submitted as `sush job start` does it: at the kept chain's tip, kept before it leaves. */
    private String run(Client c, String cmd, String target, String what) throws Exception {
        ActiveSession s = c.get("/sessions", ActiveSession.class);
        JobRequests.Placed p = JobRequests.place(c, store, SessionId.parse(s.sessionId()), key, cmd,
                target, false, JobLimits.NONE, JobMode.RECORDED);
        SignedJob job = p.job();
        String id = job.request().job().codephrase();
        JobRequests.submit(c, p);
        signed.put(id, job);
        awaitEnded(c, id);
        show(c, id, "   job " + id + " on " + what + " (target " + target + "):");
        return id;
    }

    /** Waits (bounded) until every sled job {@code id} targets reports an ending. */
    private void awaitEnded(Client c, String id) {
        String target = signed.get(id).request().target();
        int expected = (int) rack.sleds().stream().filter(x -> targets(target, x)).count();
        for (int i = 0; i < 400 && terminal(c, id) < expected; i++) {
            Client.sleep(50);
        }
    }

    private final Map<String, SignedJob> signed = new HashMap<>();

    private void resend(Client c, String id) throws Client.Failure {
        c.post("/jobs/" + id + "/start", SignedRequests.toJson(signed.get(id)));
    }

    private static boolean targets(String target, RackFile.SledEntry s) {
        try {
            return Target.parse(target).runsOn(new Sled(s.baseboard(), s.cubby()));
        } catch (TargetException e) {
            return false;
        }
    }

    private static int terminal(Client c, String id) {
        try {
            int n = 0;
            for (SledStatus st : c.get("/jobs/" + id + "/status", StatusReport.class).statuses().values()) {
                n += JobCommand.TERMINAL.contains(Said.text(st.status())) ? 1 : 0;
            }
            return n;
        } catch (Client.Failure f) {
            return 0;
        }
    }

    private void show(Client c, String id, String title) throws Client.Failure {
        Map<String, SledStatus> statuses = c.get("/jobs/" + id + "/status", StatusReport.class).statuses();
        say(title);
        say(indent(JobStatuses.render(statuses, false)));
    }

    private void awaitOneUniverse() throws Client.Failure {
        awaitReady();
        for (int i = 0; i < 300; i++) {
            Set<String> networks = new HashSet<>();
            int announced = Integer.MAX_VALUE;
            for (int k = 0; k < daemons.size(); k++) {
                try {
                    networks.add(Said.text(client(k).get("/version", SledVersion.class).network()));
                    announced = Math.min(announced, client(k).get("/versions", Versions.class).sleds().size());
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

    /**
     * Waits (bounded: 30 s, then {@link #awaitOneUniverse()} judges) until every sled answers the
     * unsigned {@code /ready} with 200, all of them in one universe. A sled just started or
     * restarted is bootstrapping until it joins one, and answers a login (a login gossips) with a
     * 503 not-ready that it logs as a failed request: the demo logs in nowhere before then, so
     * that expected state of a restart is no warning in the middle of its story.
     */
    private void awaitReady() {
        for (int i = 0; i < 300; i++) {
            Set<String> universes = new HashSet<>();
            boolean ready = true;
            for (int k = 0; k < daemons.size(); k++) {
                try {
                    Client.Probe p = client(k).probe("/ready");
                    ready &= p.status() == 200 && p.readiness().universe() != null;
                    universes.add(String.valueOf(p.readiness().universe()));
                } catch (Client.Failure f) {
                    ready = false;
                }
            }
            if (ready && universes.size() == 1) {
                return;
            }
            Client.sleep(100);
        }
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

    private void say(String s) {
        invocation.out().println(s);
    }
}
