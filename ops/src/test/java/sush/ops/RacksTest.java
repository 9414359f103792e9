package sush.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import sush.ops.cli.Invocation;
import sush.ops.cli.RackCommand;

/**
 * Issue 41: racks by name. A racks file names a live 2-sled rack (its sleds' URLs, the first a
 * port nothing listens on), a rack whose one sled takes connections and never answers (as a
 * stopped process does), and a rack refused outright. {@code sush racks} says which is which,
 * the live one's session, and comes back within its bound although one rack never answers;
 * {@code --rack NAME} reaches the live rack past its dead first URL; an unknown name is an error.
 */
class RacksTest extends TwoSledRack {
    private record Ran(int exit, String out, String err, long millis) {
    }

    private Ran run(Path config, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        long t0 = System.nanoTime();
        int exit;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            exit = Main.run(new Invocation(Map.of("XDG_CONFIG_HOME", config.toString(), "XDG_CACHE_HOME",
                    dir.resolve("racks-cache").toString(), "SUSH_OPERATOR_KEY", dir.resolve(RackCommand.OPERATOR_KEY)
                            .toString()), dir, InputStream.nullInputStream(), o, e, false), args);
        }
        return new Ran(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8),
                (System.nanoTime() - t0) / 1_000_000);
    }

    @Test
    void racksByNameReachableDownAndSilent() throws Exception {
        int refused;
        try (ServerSocket s = new ServerSocket(0)) {
            refused = s.getLocalPort();
        }
        try (ServerSocket silent = new ServerSocket(0, 50)) {
            Path config = dir.resolve("config");
            Files.createDirectories(config.resolve("sush"));
            Files.writeString(config.resolve("sush").resolve("racks.json"), "{\"racks\": {"
                    + "\"lab\": {\"urls\": [\"http://127.0.0.1:" + refused + "\", \"" + rack.url(0) + "\", \""
                    + rack.url(1) + "\"]},"
                    + "\"stopped\": {\"urls\": [\"http://127.0.0.1:" + silent.getLocalPort() + "\"]},"
                    + "\"gone\": {\"urls\": [\"http://127.0.0.1:" + refused + "\"]}}}");
            // A session on the live rack, so that racks names it.
            Ran start = run(config, "--rack", "lab", "session", "start");
            assertEquals(0, start.exit(), start.out() + start.err());
            Ran racks = run(config, "racks");
            assertEquals(0, racks.exit(), racks.out() + racks.err());
            String lab = racks.out().lines().filter(l -> l.startsWith("lab ")).findFirst().orElseThrow();
            String session = rack.client(1).get("/sessions").get("session_id").asString();
            assertTrue(lab.contains("2 of 3") && lab.contains(session), racks.out());
            assertTrue(racks.out().lines().anyMatch(l -> l.startsWith("stopped ") && l.contains("DOWN")
                    && l.contains("no answer within")), racks.out());
            assertTrue(racks.out().lines().anyMatch(l -> l.startsWith("gone ") && l.contains("DOWN")), racks.out());
            // Bounded by its own 2.8 s although one rack never answers (an unbounded ask waits 10 s).
            System.out.println("sush racks with a silent rack and a refused one: " + racks.millis() + " ms\n" + racks.out());
            assertTrue(racks.millis() < 6_000, racks.millis() + " ms");
            // --rack reaches the live rack past its first URL, where nothing listens.
            Ran version = run(config, "--rack", "lab", "version");
            assertEquals(0, version.exit(), version.out() + version.err());
            Ran unknown = run(config, "--rack", "nosuch", "version");
            assertEquals(2, unknown.exit(), unknown.out() + unknown.err());
            assertTrue(unknown.err().contains("no rack nosuch"), unknown.err());
        }
    }
}
