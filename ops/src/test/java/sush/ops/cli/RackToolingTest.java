package sush.ops.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import sush.ops.Main;
import sush.ops.daemon.RackFile;

/** The local rack tooling against what is not its own (issue 22): planted pids, taken ports. */
class RackToolingTest {
    @TempDir
    Path dir;

    private static int run(String... args) {
        PrintStream out = System.out;
        try {
            System.setOut(new PrintStream(new ByteArrayOutputStream(), true));
            return Main.run(args);
        } finally {
            System.setOut(out);
        }
    }

    @Test
    void theDaemonsJavaOptionsAreSplitOnWhitespace() {
        assertEquals(List.of(), RackCommand.daemonJavaOpts(null));
        assertEquals(List.of(), RackCommand.daemonJavaOpts("  "));
        assertEquals(List.of("-Xmx256m", "-XX:+UseSerialGC"), RackCommand.daemonJavaOpts(" -Xmx256m \t -XX:+UseSerialGC\n"));
    }

    @Test
    void aPidFileNamingAnotherProcessIsNeverSignalled() throws Exception {
        RackFile r = RackCommand.create(dir, 1, RackCommand.freePorts(1), sush.projections.fold.Ordering.CAUSAL);
        Process sleep = new ProcessBuilder("sleep", "60").start();
        try {
            Files.writeString(r.sleds().get(0).output().getParent().resolve("daemon.pid"), Long.toString(sleep.pid()));
            assertTrue(RackCommand.running(r.sleds().get(0)).isEmpty(), "a sleep is not the sled's daemon");
            assertEquals(0, run("rack", "down", "--dir", dir.toString()));
            assertEquals(0, run("rack", "status", "--dir", dir.toString()));
            Thread.sleep(200);
            assertTrue(sleep.isAlive(), "rack down left the planted process alone");
        } finally {
            sleep.destroyForcibly();
        }
    }

    @Test
    void freePortsAreBelowTheEphemeralRangeWhereItLeavesRoom() throws Exception {
        // Linux's default range starts at 32768: every port of a 32-sled rack stays below it.
        int[] span = RackCommand.baseSpan(32, 32_768);
        assertEquals(RackCommand.LOWEST_BASE, span[0]);
        assertTrue(span[1] - 1 + 100 + 31 < 32_768, "the highest port of the highest base is below the range");
        // A range starting low leaves no room: the old span.
        assertEquals(20_000, RackCommand.baseSpan(4, 10_500)[0]);
        // On this machine, a rack of 4 drawn from it. The range as the kernel states it (read as a
        // stream: Files.readString of this procfs file once gave "3", and every rack the old span).
        int low = RackCommand.ephemeralLow();
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        if (Files.isReadable(range)) {
            try (InputStream in = Files.newInputStream(range)) {
                String stated = new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim().split("\\s+")[0];
                assertEquals(Integer.parseInt(stated), low, "the first port of the kernel's ephemeral range");
            }
        }
        int base = RackCommand.freePorts(4);
        int[] here = RackCommand.baseSpan(4, low);
        assertTrue(base >= here[0] && base < here[1], base + " drawn from " + here[0] + ".." + here[1]);
        if (here[0] == RackCommand.LOWEST_BASE) {
            assertTrue(base + 100 + 3 < low, "every port below the ephemeral range (" + low + ")");
        }
    }

    @Test
    void rackUpTakesFreePortsWhenTheUsualOnesAreTaken() throws Exception {
        // Hold the usual API port of sled 0 (or, if something holds it already, rely on that).
        ServerSocket held = null;
        if (RackCommand.portsFree(RackCommand.USUAL_BASE, 1)) {
            held = new ServerSocket(RackCommand.USUAL_BASE + 100, 1, InetAddress.getLoopbackAddress());
        }
        Path rack = dir.resolve("rack");
        try {
            ByteArrayOutputStream said = new ByteArrayOutputStream();
            assertEquals(0, Main.run(new Invocation(System.getenv(), Path.of(""), InputStream.nullInputStream(),
                    new PrintStream(said, true, StandardCharsets.UTF_8), System.err, false), "rack", "up", "--sleds",
                    "1", "--dir", rack.toString()), "up on free ports");
            RackFile r = RackFile.read(rack.resolve("rack.json"));
            assertNotEquals("127.0.0.1:" + (RackCommand.USUAL_BASE + 100), r.sleds().get(0).api());
            assertTrue(RackCommand.running(r.sleds().get(0)).isPresent(), "its daemon runs and is recognised");
            assertEquals(null, RackCommand.awaitSled(rack, r.sleds().get(0), java.time.Duration.ofSeconds(5)),
                    "the sled answering is this one");
            theExportLineItPrintsIsAllTheNextCommandNeeds(rack, r, said.toString(StandardCharsets.UTF_8));
        } finally {
            run("rack", "down", "--dir", rack.toString());
            if (held != null) {
                held.close();
            }
        }
    }

    /**
     * Issue 41: the {@code export} line {@code rack up} printed, pasted into bash, sets the signer
     * key, the operator key and the sled's URL, absolute; with exactly those three variables, from
     * another directory and with no SSH agent, {@code session start} logs in and starts a session,
     * where without the operator key it fails with no-operator-key.
     */
    private void theExportLineItPrintsIsAllTheNextCommandNeeds(Path rack, RackFile r, String said) throws Exception {
        String line = said.lines().filter(l -> l.startsWith("export ")).findFirst().orElseThrow(
                () -> new AssertionError("no export line in: " + said));
        Process bash = new ProcessBuilder("bash", "-c", line + "; printf '%s\\n' \"$SUSH_SIGNER_KEY\" "
                + "\"$SUSH_OPERATOR_KEY\" \"$SUSH_URL\"").redirectErrorStream(true).start();
        String[] set = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8).split("\n");
        assertEquals(0, bash.waitFor(), line);
        Path abs = rack.toAbsolutePath().normalize();
        assertEquals(List.of(abs.resolve("signer.key").toString(), abs.resolve(RackCommand.OPERATOR_KEY).toString(),
                "http://" + r.sleds().get(0).api()), List.of(set), "what bash set from: " + line);
        Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
        Map<String, String> env = Map.of("SUSH_SIGNER_KEY", set[0], "SUSH_OPERATOR_KEY", set[1], "SUSH_URL", set[2]);
        Map<String, String> withoutOperatorKey = Map.of("SUSH_SIGNER_KEY", set[0], "SUSH_URL", set[2]);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(2, cli(withoutOperatorKey, elsewhere, err, "session", "start"), "without the operator key");
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("(no-operator-key)"), err.toString());
        err.reset();
        assertEquals(0, cli(env, elsewhere, err, "session", "start", "--wait"), err.toString(StandardCharsets.UTF_8));
        assertFalse(err.toString(StandardCharsets.UTF_8).contains("no-operator-key"), err.toString());
    }

    /** Runs the CLI in this JVM with exactly the environment {@code env}, in {@code cwd}; its exit code. */
    private static int cli(Map<String, String> env, Path cwd, ByteArrayOutputStream err, String... args) {
        return Main.run(new Invocation(env, cwd, InputStream.nullInputStream(), new PrintStream(
                new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), new PrintStream(err, true,
                        StandardCharsets.UTF_8), false), args);
    }

    /**
     * A sled just started answers 503 not-ready to a login until it has joined a universe: `rack
     * restart` waits for it, asking again, and does not take it for another process on the port
     * (a CI run's RackPageTest: "did not come back: something else answers ... not-ready").
     */
    @Test
    void aSledAnsweringNotReadyIsWaitedForNotTakenForAnother() throws Exception {
        Path rack = Files.createDirectories(dir.resolve("notready"));
        RackFile r = RackCommand.create(rack, 1, RackCommand.freePorts(1), sush.projections.fold.Ordering.CAUSAL);
        String[] hp = r.sleds().get(0).api().split(":");
        com.sun.net.httpserver.HttpServer fake = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress(hp[0], Integer.parseInt(hp[1])), 0);
        java.util.concurrent.atomic.AtomicInteger logins = new java.util.concurrent.atomic.AtomicInteger();
        fake.createContext("/login/challenge", ex -> answer(ex, 200, "{\"nonce\":\""
                + java.util.Base64.getEncoder().encodeToString(new byte[32]) + "\"}"));
        fake.createContext("/login", ex -> {
            logins.incrementAndGet();
            answer(ex, 503, "{\"error\":\"not-ready\",\"message\":\"this sled cannot gossip right now: "
                    + "NO_IDENTITY: bootstrapping; cannot send yet\"}");
        });
        fake.start();
        try {
            String why = RackCommand.awaitSled(rack, r.sleds().get(0), java.time.Duration.ofSeconds(2));
            assertTrue(why != null && why.startsWith("not ready within 2 s"), why);
            assertTrue(logins.get() > 1, "asked again: " + logins);
        } finally {
            fake.stop(0);
        }
    }

    private static void answer(com.sun.net.httpserver.HttpExchange ex, int status, String json) throws IOException {
        byte[] b = json.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        ex.getRequestBody().readAllBytes();
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, b.length);
        try (java.io.OutputStream o = ex.getResponseBody()) {
            o.write(b);
        }
    }

    @Test
    void aDaemonInheritsNoneOfTheOperatorsKeysOrAgent() throws Exception {
        Path rack = dir.resolve("envrack");
        java.util.List<String> cmd = new java.util.ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(RackCommand.JVM_FLAGS);
        cmd.addAll(java.util.List.of("-cp", System.getProperty("java.class.path"), "sush.ops.Main", "rack", "up",
                "--sleds", "1", "--dir", rack.toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("SUSH_SIGNER_KEY", "/somewhere/signer.key");
        pb.environment().put("SUSH_OPERATOR_KEY", "/somewhere/operator.key");
        pb.environment().put("SSH_AUTH_SOCK", "/tmp/agent.sock");
        pb.environment().put("KEEP_ME", "yes");
        Process up = pb.start();
        String said = new String(up.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        try {
            assertEquals(0, up.waitFor(), said);
            RackFile r = RackFile.read(rack.resolve("rack.json"));
            ProcessHandle daemon = RackCommand.running(r.sleds().get(0)).orElseThrow();
            String environ = new String(Files.readAllBytes(Path.of("/proc", Long.toString(daemon.pid()), "environ")),
                    java.nio.charset.StandardCharsets.UTF_8);
            java.util.List<String> vars = java.util.List.of(environ.split("\0"));
            assertTrue(vars.contains("KEEP_ME=yes"), "the rest of the environment passes");
            assertTrue(vars.stream().noneMatch(v -> v.startsWith("SUSH_") || v.startsWith("SSH_AUTH_SOCK=")),
                    vars.toString());
        } finally {
            run("rack", "down", "--dir", rack.toString());
        }
    }
}
