package sush.ops.cli;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import picocli.CommandLine.Command;
import sush.gossip.Entropy;
import sush.gossip.net.RackCa;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.RecordFormat;
import sush.locker.record.SignedRecord;
import sush.locker.store.DirectorySlot;
import sush.locker.store.Locker;
import sush.ops.auth.Credentials;
import sush.ops.auth.OperatorSigner;
import sush.ops.daemon.RackFile;
import sush.ops.wire.SledVersion;
import sush.projections.fold.Ordering;
import sush.projections.job.SignatureAlgorithm;

/**
 * {@code sush rack init|up|down|status|restart|peers|issue|revoke}: a local rack of daemons on
 * loopback, and the rack's certificate authority.
 */
@Command(name = "rack", description = "A local rack of daemons on loopback, and the rack's certificate authority.",
        subcommands = {RackSubcommands.Init.class, RackSubcommands.Up.class, RackSubcommands.Down.class,
            RackSubcommands.Status.class, RackSubcommands.Restart.class, RackSubcommands.Peers.class,
            RackSubcommands.Issue.class, RackSubcommands.Revoke.class})
public final class RackCommand implements Callable<Integer> {
    /** The JVM flags Chronicle Queue needs on every JVM that touches the journal (dependencies.md). */
    public static final List<String> JVM_FLAGS = List.of("--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED", "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
            "--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "-Dchronicle.analytics.disable=true");

    /**
     * The environment variable naming more JVM options for the daemons that {@code rack up},
     * {@code rack restart} and the demo start (whitespace-separated, after {@link #JVM_FLAGS}):
     * a local rack's heap or JIT, e.g. {@code -XX:TieredStopAtLevel=1} for racks that live seconds.
     */
    public static final String DAEMON_JAVA_OPTS = "SUSH_DAEMON_JAVA_OPTS";

    /** Where this command runs: its usage is printed on the invocation's standard output. */
    private final Invocation invocation;

    RackCommand(Invocation invocation) {
        this.invocation = invocation;
    }

    @Override
    public Integer call() {
        invocation.usage(this);
        return 0;
    }

    /** The local rack's operator key (OpenSSH, 0600) in the rack directory; its public half is {@code operator.key.pub}. */
    public static final String OPERATOR_KEY = "operator.key";

    /** A client of {@code url} that logs in with the operator key of the rack written in {@code dir}. */
    public static Client operatorClient(Path dir, String url) {
        return new Client(url, new Credentials(() -> OperatorSigner.fromFile(dir.resolve(OPERATOR_KEY)),
                Optional.empty()));
    }

    /**
     * A base port such that base+i and base+100+i (i < sleds) are free on loopback now, and all of
     * them below the kernel's ephemeral range where it leaves room: a port that is free now but
     * in that range may be handed to another process's outgoing connection before the daemon
     * binds it.
     */
    public static int freePorts(int sleds) throws IOException {
        int[] span = baseSpan(sleds, ephemeralLow());
        for (int attempt = 0; attempt < 100; attempt++) {
            int base = span[0] + ThreadLocalRandom.current().nextInt(span[1] - span[0]);
            if (portsFree(base, sleds)) {
                return base;
            }
        }
        throw new IOException("no free loopback ports for a rack of " + sleds);
    }

    /** Lowest base tried by {@link #freePorts}: above the well-known and registered services most hosts run. */
    static final int LOWEST_BASE = 10_000;

    /**
     * The bases {@link #freePorts} draws from, {@code [from, to)}: every port a rack of {@code
     * sleds} takes (base+i, base+100+i) below {@code ephemeralLow}; where that leaves no room (an
     * unusually wide ephemeral range), 20000-40000 as before.
     */
    static int[] baseSpan(int sleds, int ephemeralLow) {
        int to = ephemeralLow - 100 - sleds;
        return to - LOWEST_BASE >= 1_000 ? new int[] {LOWEST_BASE, to} : new int[] {20_000, 40_000};
    }

    /**
     * The first port of the kernel's ephemeral range (Linux), or its default where it cannot be
     * read. Read as lines: procfs reports a size of 0, and {@code Files.readString} of it returned
     * only its first byte here ("3"), which sent every rack to the fallback span, inside the
     * ephemeral range, where a daemon's port was now and then taken before it bound it.
     */
    static int ephemeralLow() {
        try {
            String range = String.join(" ", Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")));
            return Integer.parseInt(range.trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }

    /** Whether base+i and base+100+i (i < sleds) are free on loopback now. */
    static boolean portsFree(int base, int sleds) {
        for (int i = 0; i < sleds; i++) {
            for (int p : new int[] {base + i, base + 100 + i}) {
                try (ServerSocket s = new ServerSocket(p, 1,
                        InetAddress.getLoopbackAddress())) {
                    s.setReuseAddress(true);
                } catch (IOException e) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The usual base port of a local rack (APIs from 7200). */
    static final int USUAL_BASE = 7100;

    /** The usual base port when its ports are free, else free ones. */
    static int basePort(int sleds) throws IOException {
        return portsFree(USUAL_BASE, sleds) ? USUAL_BASE : freePorts(sleds);
    }

    /**
     * Writes a rack of {@code n} sleds under {@code dir}: keys, slots provisioned for the rack's
     * {@code ordering} (signed: floor epoch 0, a factory-new rack; ordered-sessions.md section 4),
     * rack.json.
     */
    public static RackFile create(Path dir, int n, int basePort, Ordering ordering) throws Exception {
        Files.createDirectories(dir);
        if (!Files.exists(dir.resolve("signer.key"))) {
            KeygenCommand.write(dir, SignatureAlgorithm.ED25519);
        }
        // The rack CA stays in the rack directory, beside the sleds and outside every one of them.
        SecureRandom random = new SecureRandom();
        RackCa ca = Files.exists(dir.resolve(RackCa.CA_CERT)) ? RackCa.load(dir, random)
                : RackCa.create(dir, dir.toAbsolutePath().getFileName().toString(), random);
        Map<String, Path> tlsDirs = new LinkedHashMap<>();
        List<RackFile.SledEntry> sleds = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Path home = dir.resolve(String.format("sled%02d", i));
            Path a = Files.createDirectories(home.resolve("m2-a"));
            Path b = Files.createDirectories(home.resolve("m2-b"));
            String board = String.format("913-0000019:LOCAL%04d", i);
            if (!Files.exists(a.resolve("boundary"))) {
                List<DirectorySlot> slots = List.of(new DirectorySlot(a), new DirectorySlot(b));
                if (ordering == Ordering.SIGNED) {
                    Locker.provision(RecordFormat.SIGNED, slots, Entropy.secure(), SignedRecord.provisioned(board, 0));
                } else {
                    Locker.provision(RecordFormat.CAUSAL, slots, Entropy.secure(), BoundaryRecord.genesis(board));
                }
            }
            // A journal key per sled (0600), outside the output directory jobs write into: the
            // journal is sealed by default.
            Path journalKey = home.resolve(RackFile.JOURNAL_KEY);
            if (!Files.exists(journalKey)) {
                byte[] k = new byte[32];
                random.nextBytes(k);
                Files.createFile(journalKey, PosixFilePermissions.asFileAttribute(
                        PosixFilePermissions.fromString("rw-------")));
                Files.writeString(journalKey, HexFormat.of().formatHex(k) + "\n");
            }
            Path tls = home.resolve("tls");
            if (!Files.exists(tls.resolve(RackCa.SLED_CERT))) {
                ca.issue(board, tls);
            }
            tlsDirs.put(board, tls);
            sleds.add(new RackFile.SledEntry(board, i, "127.0.0.1:" + (basePort + i), "127.0.0.1:" + (basePort + 100 + i),
                    List.of(a, b), home.resolve("output"), Optional.empty()));
        }
        // The operator's SSH key (who may ask; security.md section 2), listed in the operators file.
        Path operatorKey = dir.resolve(OPERATOR_KEY);
        if (!Files.exists(operatorKey)) {
            OperatorSigner.generate(operatorKey, "operator@" + dir.toAbsolutePath().getFileName(), random);
        }
        Path operators = dir.resolve(RackFile.OPERATORS);
        if (!Files.exists(operators)) {
            Files.writeString(operators, "# operators of this rack (OpenSSH authorized_keys format)\n"
                    + Files.readString(dir.resolve(OPERATOR_KEY + ".pub")));
        }
        RackFile r = new RackFile(sleds, List.of(dir.resolve("signer.pub")), Optional.of(new RackFile.RackTls(
                dir.resolve(RackCa.CA_CERT), dir.resolve(RackCa.REVOKED), Map.copyOf(tlsDirs))), operators,
                ordering);
        r.write(dir.resolve("rack.json"));
        return r;
    }

    /** Environment variables that are the operator's, never a daemon's: the CLI's keys, its agent, its sled. */
    static boolean operatorsOwn(String name) {
        return name.startsWith("SUSH_") || name.equals("SSH_AUTH_SOCK") || name.equals("SSH_AGENT_PID");
    }

    /** Starts one sled's daemon as its own process; its pid goes to {@code sledNN/daemon.pid}. */
    static Process start(Path dir, RackFile.SledEntry s) throws IOException {
        return start(dir, s, List.of());
    }

    /** As above, the daemon's command line run by {@code prefix} (tests: {@code strace ...}). */
    static Process start(Path dir, RackFile.SledEntry s, List<String> prefix) throws IOException {
        return start(dir, s, prefix, List.of());
    }

    /** As above, with more daemon options ({@code suffix}, e.g. {@code --trace FILE}). */
    static Process start(Path dir, RackFile.SledEntry s, List<String> prefix, List<String> suffix) throws IOException {
        List<String> args = new ArrayList<>(List.of("--rack", dir.resolve("rack.json").toString(), "--sled",
                s.baseboard()));
        args.addAll(suffix);
        return startDaemon(s, prefix, args);
    }

    /** Starts {@code s}'s daemon with {@code args} ({@code sush daemon ARGS}), its log and pid in its home. */
    static Process startDaemon(RackFile.SledEntry s, List<String> prefix, List<String> args) throws IOException {
        Path home = s.output().getParent();
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(hangupRestored(DaemonCommand.hangupIgnoredAtStart()));
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(JVM_FLAGS);
        // Read from this process's environment, as the daemon's environment below is made from it.
        cmd.addAll(daemonJavaOpts(System.getenv(DAEMON_JAVA_OPTS)));
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "sush.ops.Main", "daemon"));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("daemon.log").toFile()));
        // A daemon gets no operator's secrets nor pointers to them (issue 22): its environment is
        // readable by every job it runs (/proc/$PPID/environ). Keys reach it by path, in rack.json.
        pb.environment().keySet().removeIf(RackCommand::operatorsOwn);
        Process p = pb.start();
        Files.writeString(home.resolve("daemon.pid"), Long.toString(p.pid()));
        return p;
    }

    /** The options {@link #DAEMON_JAVA_OPTS} names ({@code value}: its value, or null when unset). */
    public static List<String> daemonJavaOpts(String value) {
        return value == null || value.isBlank() ? List.of() : List.of(value.strip().split("\\s+"));
    }

    /**
     * What puts a daemon's SIGHUP back to its default when this process ignores it ({@code
     * ignored}): under nohup, SIG_IGN survives the exec, the daemon's JVM keeps it ignored, and
     * {@code sush rack peers} (kill -HUP) would never reload it. GNU env's {@code
     * --default-signal} (coreutils 8.32 and later) does it; where env lacks it, nothing, and the
     * daemon says in its log that SIGHUP is ignored.
     */
    static List<String> hangupRestored(boolean ignored) {
        return ignored && EnvDefaultSignal.AVAILABLE ? List.of("env", "--default-signal=HUP") : List.of();
    }

    /** Whether this machine's env takes {@code --default-signal}, asked once. */
    private static final class EnvDefaultSignal {
        static final boolean AVAILABLE = probe();

        private static boolean probe() {
            try {
                Process p = new ProcessBuilder("env", "--default-signal=HUP", "true")
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    return false;
                }
                return p.exitValue() == 0;
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    static boolean awaitApi(String api, Duration within) {
        HttpClient c = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                // The one request that needs no identity: the API answers it once it serves.
                if (c.send(HttpRequest.newBuilder(URI.create("http://" + api + "/login/challenge"))
                        .POST(HttpRequest.BodyPublishers.noBody()).build(),
                        HttpResponse.BodyHandlers.ofString()).statusCode() == 200) {
                    return true;
                }
            } catch (IOException e) {
                Client.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    /** SIGHUP to the sled's daemon, if it runs: it re-reads its peers, revoked serials and operators. */
    static void hangup(RackFile.SledEntry s) throws IOException, InterruptedException {
        Optional<ProcessHandle> p = running(s);
        if (p.isPresent()) {
            new ProcessBuilder("kill", "-HUP", Long.toString(p.get().pid())).inheritIO().start().waitFor();
        }
    }

    /**
     * The sled's daemon, if its pid file names a live process that is that daemon (its command
     * line runs {@code sush.ops.Main daemon} for this baseboard): a reused or planted pid is never
     * taken for it, so never signalled.
     */
    static Optional<ProcessHandle> running(RackFile.SledEntry s) {
        try {
            long pid = Long.parseLong(Files.readString(s.output().getParent().resolve("daemon.pid")).trim());
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).filter(h -> isDaemonOf(h, s.baseboard()));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    static boolean isDaemonOf(ProcessHandle h, String baseboard) {
        List<String> args = arguments(h);
        int main = args.indexOf("sush.ops.Main");
        int sled = args.indexOf("--sled");
        return main >= 0 && main + 1 < args.size() && args.get(main + 1).equals("daemon") && sled >= 0
                && sled + 1 < args.size() && args.get(sled + 1).equals(baseboard);
    }

    /**
     * A process's command line: /proc on Linux (whole, however long the class path), else what
     * the JVM's process info gives.
     */
    static List<String> arguments(ProcessHandle h) {
        try {
            byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(h.pid()), "cmdline"));
            return List.of(new String(raw, StandardCharsets.UTF_8).split("\0"));
        } catch (IOException | RuntimeException e) {
            return h.info().arguments().map(List::of).orElse(List.of());
        }
    }

    /**
     * Waits for the sled's API, then checks that the sled answering is this one (its baseboard,
     * asked with the rack's operator key): another process on the port is not the sled. Null when
     * it is, else why not.
     */
    static String awaitSled(Path dir, RackFile.SledEntry s, Duration within) {
        long until = System.nanoTime() + within.toNanos();
        if (!awaitApi(s.api(), within)) {
            return "not answering; see " + s.output().getParent().resolve("daemon.log");
        }
        Client c = operatorClient(dir, "http://" + s.api());
        while (true) {
            try {
                String board = Said.text(c.get("/version", SledVersion.class).baseboard());
                return board.equals(s.baseboard()) ? null : "another sled answers on " + s.api() + ": " + board;
            } catch (Client.Failure f) {
                // A sled just started answers 503 not-ready to the login (a login gossips) until it
                // has joined a universe: it is coming up, not someone else, within the wait.
                if (!"not-ready".equals(f.code()) || System.nanoTime() > until) {
                    return ("not-ready".equals(f.code()) ? "not ready within " + within.toSeconds() + " s on "
                            : "something else answers on ") + s.api() + " (" + f.getMessage() + ")";
                }
            }
            try {
                Thread.sleep(NOT_READY_RETRY.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "interrupted while waiting for " + s.api();
            }
        }
    }

    /** How often a restarted sled that answers not-ready is asked again (within the wait). */
    static final Duration NOT_READY_RETRY = Duration.ofMillis(200);

    static void stop(RackFile.SledEntry s, boolean hard) {
        running(s).ifPresent(h -> {
            if (hard) {
                h.destroyForcibly();
            } else {
                h.destroy();
            }
            h.onExit().orTimeout(20, TimeUnit.SECONDS).exceptionally(e -> h).join();
        });
    }
}
