package sush.ops;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.ops.cli.RackCommand;
import sush.ops.daemon.Daemon;
import sush.ops.daemon.RackFile;
import sush.projections.fold.Ordering;

/**
 * A daemon that cannot start closes everything it opened (issue 37): a throw from the journal's
 * open once left the M.2 slot locks held, so the same sled could not start again in that process
 * until it exited. Each failure here comes at a later step of the start; after each, the sled
 * starts with good settings on the same slots and ports, and no thread of the failed start is
 * left behind.
 */
class DaemonTeardownTest {
    @TempDir
    Path dir;

    private static Set<String> sledThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.startsWith("sled-loop") || n.startsWith("boundary-writer")
                        || n.startsWith("sush-ingress") || n.startsWith("sush-housekeeping"))
                .collect(Collectors.toSet());
    }

    /** The sled threads of a closed start end soon after (a disposed scheduler's threads end on their own). */
    private static void noneLeft(Set<String> before) {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertEquals(before, sledThreads(),
                "sled threads left"));
    }

    @Test
    void aStartThatFailsAtAnyStepLeavesNothingHeld() throws Exception {
        RackFile rack = RackCommand.create(dir, 1, RackCommand.freePorts(1), Ordering.SIGNED);
        RackFile.SledEntry s = rack.sleds().get(0);
        Daemon.Settings good = rack.settings(s, Optional.empty());
        Set<String> before = sledThreads();
        // The journal's open throws (a budget of no bytes): the locker, launcher and the sled's
        // threads were open by then.
        assertThrows(IllegalArgumentException.class, () -> Daemon.start(good.withBudgets(0, 1 << 20)));
        noneLeft(before);
        // The API's port is taken: everything but the API was open, gossip listening.
        try (ServerSocket taken = new ServerSocket()) {
            String[] hostPort = good.api().split(":");
            taken.bind(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])));
            Daemon.DaemonException e = assertThrows(Daemon.DaemonException.class, () -> Daemon.start(good));
            assertEquals(true, e.getMessage().startsWith("cannot serve the API"), e.getMessage());
        }
        noneLeft(before);
        // The same slots, gossip port and API port serve a good start now.
        try (Daemon d = Daemon.start(good)) {
            assertEquals(s.baseboard(), LocalRack.clientOf(dir, "http://127.0.0.1:" + d.apiPort()).get("/version")
                    .get("baseboard").asString());
        }
        noneLeft(before);
    }
}
