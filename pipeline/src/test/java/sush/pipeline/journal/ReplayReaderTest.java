package sush.pipeline.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.gossip.Entropy;
import sush.gossip.set.NetworkId;
import sush.pipeline.Rack;
import sush.projections.fixtures.Signers;
import sush.projections.job.InvalidJobReason;
import sush.projections.job.SignedGrant;
import sush.projections.message.Message;

/** A sealed journal's reader thread (D-020): a daemon, and an interrupted fold stays interrupted. */
class ReplayReaderTest {
    private static final byte[] KEY = new byte[32];

    static {
        KEY[1] = 7;
    }

    @TempDir
    Path dir;

    /** More records than the reader may hold ahead, so it is still reading when the fold starts. */
    @BeforeEach
    void journal() {
        Rack.Stream stream = new Rack.Stream(2);
        for (int i = 0; i < Replay.BATCH * (Replay.BATCHES_AHEAD + 3); i++) {
            stream.add(new Message.Announcement("913-0000019:SLED" + (i % 40), "0.1." + i, i % 32));
        }
        try (Journal j = Journal.open(dir, Optional.of(KEY), Entropy.seeded(4))) {
            j.append(new JournalRecord.Entered(1, NetworkId.BOOTSTRAPPING, "START"));
            stream.deliveries.forEach(d -> j.append(new JournalRecord.Delivered(d.version(), d.payload())));
        }
    }

    private static List<Thread> readers() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("sush-replay-reader") && t.isAlive()).toList();
    }

    @Test
    void theReaderThreadNeverKeepsTheJvmAlive() throws Exception {
        List<List<Thread>> seen = new java.util.ArrayList<>();
        Replay.stream(dir, Optional.of(KEY), Rack.ME, Signers.TRUST, -1, step -> {
            if (step.index() == 0) {
                seen.add(readers());
            }
        });
        assertFalse(seen.get(0).isEmpty(), "the reader is reading");
        assertTrue(seen.get(0).stream().allMatch(Thread::isDaemon), "a daemon");
    }

    @Test
    void aFoldInterruptedStopsAndItsThreadStaysInterrupted() throws Exception {
        try {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> Replay.stream(dir, Optional.of(KEY), Rack.ME, Signers.TRUST, -1, step -> {
                        if (step.index() == 0) {
                            Thread.currentThread().interrupt();
                        }
                    }));
            assertEquals("replay interrupted", e.getMessage());
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept for the caller");
        } finally {
            Thread.interrupted();
        }
        for (Thread t : readers()) {
            t.join(10_000); // an interrupted fold does not wait for it, but it was told to stop
        }
        assertTrue(readers().isEmpty(), "the reader has ended");
    }

    /** Grants are checked by the given keys (the journal records no verdict of them). */
    @Test
    void grantsAreCheckedByTheGivenKeys() {
        SignedGrant g = Rack.grant(1_700_000_000_000L, 1);
        assertEquals(Optional.empty(), new Replay.Recorded(Signers.TRUST).grant(g));
        assertEquals(Optional.of(InvalidJobReason.UNKNOWN_KEY), new Replay.Recorded(Signers.trust()).grant(g));
    }
}
