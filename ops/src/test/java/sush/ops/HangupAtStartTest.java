package sush.ops;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import sush.ops.cli.RackAccess;
import sush.ops.cli.RackCommand;
import sush.projections.fold.Ordering;

/**
 * SIGHUP re-reads the peers; the JVM's own answer to a hangup is to shut down. A hangup that
 * reaches a daemon while it starts (an operator's `sush rack peers`, or a test's reload, right
 * after a restart) must not end it: the handler is in place before anything is served, and a
 * hangup taken before the sled has started is applied once it has (a CI run lost a sled so).
 */
class HangupAtStartTest extends ProcessRack {
    @Test
    void aDaemonHungUpWhileItStartsLivesAndReloadsOnceStarted() throws Exception {
        // Under nohup the launcher restores SIGHUP for its daemons (env --default-signal); where
        // env cannot, the daemons inherit SIG_IGN, the JVM never takes the signal, and there is
        // nothing to reload here.
        Assumptions.assumeFalse(sush.ops.cli.DaemonCommandAccess.daemonsInheritIgnoredHangup(), "SIGHUP is ignored "
                + "in this test run (nohup?) and env cannot restore it: the daemons inherit that");
        rack = RackCommand.create(dir, 1, LocalRack.freePorts(1), Ordering.CAUSAL);
        RackFileSled sled = new RackFileSled(rack.sleds().get(0));
        Process daemon = RackAccess.start(dir, rack.sleds().get(0));
        processes.add(daemon);
        Path log = sled.log();
        // Once the daemon writes its first line the JVM's own signal handling is in place (a
        // hangup before that is the kernel's to deliver by default); from then on, hang up
        // every 20 ms until the API answers.
        long end = System.nanoTime() + 60_000_000_000L;
        Awaitility.await("the daemon's first line").atMost(Duration.ofSeconds(60)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(5))
                .until(() -> !daemon.isAlive() || (Files.exists(log) && Files.size(log) > 0));
        int hangups = 0;
        while (System.nanoTime() < end && daemon.isAlive() && !answers(rack.sleds().get(0).api())) {
            new ProcessBuilder("kill", "-HUP", Long.toString(daemon.pid())).start().waitFor();
            hangups++;
            Thread.sleep(20);
        }
        assertTrue(hangups > 0, "no hangup was sent while the daemon started");
        assertTrue(daemon.isAlive(), "the daemon ended after " + hangups + " hangups while it started:\n"
                + Files.readString(log));
        assertTrue(RackAccess.awaitApi(rack.sleds().get(0).api()), "the daemon answers");
        int sent = hangups;
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50))
                .untilAsserted(() -> assertTrue(logContains(log, "peers and revoked certificates reloaded"),
                        "the hangups taken while it started were applied (" + sent + " sent):\n"
                                + Files.readString(log)));
    }

    private static boolean answers(String api) {
        try {
            java.net.HttpURLConnection c = (java.net.HttpURLConnection) java.net.URI.create("http://" + api
                    + "/login/challenge").toURL().openConnection();
            c.setRequestMethod("POST");
            c.setConnectTimeout(200);
            c.setReadTimeout(1000);
            return c.getResponseCode() > 0;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    private static boolean logContains(Path log, String text) {
        try {
            return Files.readString(log).contains(text);
        } catch (java.io.IOException e) {
            return false;
        }
    }

    /** Where a rack sled's daemon writes its log. */
    private record RackFileSled(sush.ops.daemon.RackFile.SledEntry entry) {
        Path log() {
            return entry.output().getParent().resolve("daemon.log");
        }
    }
}
