package sush.ops.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Issue 36, item 4: only origin-form request-targets are served, and a relay is built from parts. */
class RequestTargetTest {
    @Test
    void onlyOriginFormTargetsPass() {
        for (String good : new String[] {"/", "/version", "/version?sled=913-0000019%3ASLED01", "/jobs/a-b/output/stdout?sled=x",
                "/rack?sled=a+b", "/jobs?limit=5&before=x"}) {
            assertTrue(Gate.originForm(good), good);
        }
        for (String bad : new String[] {"@127.0.0.1:9999/version?sled=B", ":9999/version", "//evil.example/version",
                "http://evil/version", "/version/../boundary", "/a/%2e%2e/b", "/a/%2E/b", "/x@y", "/x?to=a@b", "/x\\y",
                "/x#f", "/x y", "/x%2fy", "", "version", "/caf\u00e9"}) {
            assertFalse(Gate.originForm(bad), bad);
        }
    }

    @Test
    void aRelaysUriIsTheAnnouncedOriginAndTheCheckedPath() {
        assertEquals("http://10.0.0.7:7200/version?sled=B", Relays.relayUri("http://10.0.0.7:7200", "/version?sled=B"));
        assertEquals("https://[fd00::1]:7200/rack", Relays.relayUri("https://[fd00::1]:7200", "/rack"));
        assertThrows(IllegalArgumentException.class, () -> Relays.relayUri("http://10.0.0.7:7200",
                "@127.0.0.1:9999/version"));
    }
}
