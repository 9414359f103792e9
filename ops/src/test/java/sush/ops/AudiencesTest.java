package sush.ops;

import sush.ops.wire.Audiences;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Issue 36: the one rule of which sled a signed request is for, as the client and the sled both use it. */
class AudiencesTest {
    @Test
    void relayedGetsAreForTheSledTheyNameEverythingElseForTheSledAsked() {
        for (String p : new String[] {"/version", "/rack", "/boundary", "/sessions/s-id/chain", "/jobs/j-id/output/stdout"}) {
            assertTrue(Audiences.relaying("GET", p), p);
            assertEquals("B", Audiences.of("GET", p + "?x=1&sled=B", "A"), p);
            assertEquals("A", Audiences.of("GET", p, "A"), p);
            assertFalse(Audiences.relaying("POST", p), "POST " + p);
        }
        for (String p : new String[] {"/jobs/j-id/status", "/jobs", "/sessions", "/sessions/s/chain/x", "/jobs//output/x",
                "/jobs/j/output/", "/jobs/j/output/a/b", "/versions", "/events", "/sessions//chain"}) {
            assertFalse(Audiences.relaying("GET", p), p);
            assertEquals("A", Audiences.of("GET", p + "?sled=B", "A"), p);
        }
        assertEquals("913-0000019:S1", Audiences.of("GET", "/version?sled=913-0000019%3AS1", "A"));
    }
}
