package sush.ops;

import sush.ops.wire.SignedRequests;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import sush.ops.cli.Client;
import sush.ops.daemon.RackFile;
import sush.projections.job.SignedJob;

/**
 * Job text is private (issue 22): on a rack that `rack init` made, the journal is sealed with the
 * sled's own key (0600, outside the output directory), and the output and journal directories
 * are the daemon user's alone. No journal byte shows a job's command.
 */
class JobTextPrivacyTest extends TwoSledRack {
    @Test
    void theJournalIsSealedAndTheDirectoriesAreOwnerOnly() throws Exception {
        ApiTestAccess.session();
        String marker = "PRIVATE-" + Long.toHexString(System.nanoTime()) + "-PASSWORD";
        SignedJob job = ApiTestAccess.next(rack.key, "true " + marker, "*");
        String id = job.request().job().codephrase();
        rack.client(0).post("/jobs/" + id + "/start", SignedRequests.toJson(job));
        // The journal's last appends: each sled folded both sleds' endings.
        for (int k = 0; k < 2; k++) {
            Client via = rack.client(k);
            await("both sleds' endings folded at sled " + k).atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(50)).ignoreException(Client.Failure.class) // not known there yet
                    .until(() -> via.get("/jobs/" + id + "/status").get("statuses").findValues("status").stream()
                            .filter(st -> st.asString().equals("stopped")).count() == 2);
        }
        byte[] needle = marker.getBytes(StandardCharsets.US_ASCII);
        for (RackFile.SledEntry s : rack.rack.sleds()) {
            Path key = RackFile.journalKeyOf(s);
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key)), key.toString());
            assertFalse(key.startsWith(s.output()), "the key is outside what jobs write into");
            for (Path d : new Path[] {s.output(), s.output().resolve("journal")}) {
                assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(d)), d.toString());
            }
            int files = 0;
            try (var walk = Files.walk(s.output().resolve("journal"))) {
                for (Path f : (Iterable<Path>) walk.filter(Files::isRegularFile)::iterator) {
                    files++;
                    assertFalse(contains(Files.readAllBytes(f), needle), f + " shows the job's command");
                }
            }
            assertTrue(files > 0, "the journal has files");
        }
    }

    private static boolean contains(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /** ApiTest's helpers, on this class's rack. */
    static final class ApiTestAccess {
        /** A session active on both sleds (it waited for sled 1 only, and returned after 5 s regardless). */
        static String session() throws Exception {
            return ApiTest.session();
        }

        static SignedJob next(sush.projections.job.SignerKey key, String command, String target) throws Exception {
            return ApiTest.next(key, command, target);
        }
    }
}
