package sush.ops.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * The records of the wire as the CLI reads them (issue 37): an answer read into its record and
 * written again is the same bytes (what the CLI prints of a record is what the sled said), a
 * field a newer sled adds is ignored, one it leaves out is null, and the bodies that had no
 * fixed field order (built with {@code Map.of}) now have one.
 */
class WireRecordsTest {
    private static <T> void roundTrips(String json, Class<T> type) {
        assertEquals(json, Json.MAPPER.writeValueAsString(Json.read(Json.MAPPER.readTree(json), type)));
    }

    @Test
    void whatTheApiSaysReadsBackByteForByte() {
        roundTrips("{\"status\":\"stopped\",\"exit_code\":0,\"stdout_bytes\":6,\"stdout_sha3\":\"ab\","
                + "\"stderr_bytes\":0,\"stderr_sha3\":\"cd\",\"sled_started_at\":\"2023-11-14T22:13:20Z\","
                + "\"sled_ended_at\":\"2023-11-14T22:13:21.500Z\",\"duration_ms\":1500}", SledStatus.class);
        roundTrips("{\"status\":\"skipped\",\"reason\":\"conflict\",\"held\":\"a\",\"refused\":\"b\"}",
                SledStatus.class);
        roundTrips("{\"job_id\":\"j\",\"statuses\":{\"A\":{\"status\":\"started\"},\"B\":{\"status\":\"error\","
                + "\"error\":\"io\",\"detail\":\"disk\",\"signal\":9}},\"conflicts\":{\"B\":{\"reason\":\"conflict\","
                + "\"held\":\"h\",\"refused\":\"r\"}}}", StatusReport.class);
        roundTrips("{\"ready\":false,\"reasons\":[\"not in a universe yet\"],\"store_trusted\":true,\"ordering\":"
                + "\"causal\",\"universe\":null,\"peers_connected\":0,\"peers_expected\":1,\"floor\":null,"
                + "\"pending_launches\":2,\"running\":1,\"set_messages\":0,\"set_fill\":0.0}", Readiness.class);
        roundTrips("{\"baseboard\":\"A\",\"trusted\":true,\"load\":\"ok\",\"load_reason\":\"r\",\"changed\":null,"
                + "\"ordering\":\"signed\",\"floor\":5,\"record\":{\"floor_epoch\":5,\"committed\":{\"session\":\"s\","
                + "\"job\":\"j\",\"successor\":\"n\",\"outcome\":\"error\",\"code\":3,\"epoch\":9,\"signer\":\"k\"}}}",
                Boundary.class);
        roundTrips("{\"baseboard\":\"A\",\"trusted\":true,\"load\":\"ok\",\"load_reason\":\"r\",\"changed\":null,"
                + "\"ordering\":\"causal\",\"floor\":\"0\",\"record\":{\"network\":\"n\",\"executed\":\"0\","
                + "\"committed\":null,\"recent\":[],\"bloom_bits_set\":0,\"amnesiac\":false}}", Boundary.class);
        roundTrips("{\"job_id\":\"j\",\"baseboard\":\"A\",\"status\":\"started\",\"sled\":\"A\"}", Event.class);
        roundTrips("{\"cause\":\"session-hop\",\"sled\":\"A\"}", Event.class);
        roundTrips("{\"session_id\":\"s\",\"after\":\"a\",\"links\":[{\"position\":\"p\","
                + "\"request\":{\"session\":\"s\",\"concurrent\":false,\"limits\":{\"cpu_seconds\":5}}},"
                + "{\"position\":\"q\",\"burn\":true}],\"more\":false}", ChainPage.class);
        roundTrips("{\"served_by\":\"A\",\"sleds\":[{\"baseboard\":\"B\",\"cubby\":1,\"software\":\"s\",\"api\":null,"
                + "\"reachable\":false,\"error\":\"announced no API address\"}]}", Rack.class);
    }

    @Test
    void aFieldANewerSledAddsIsIgnoredAndOneItLeavesOutIsNull() {
        SledVersion v = Json.read(Json.MAPPER.readTree("{\"baseboard\":\"A\",\"cubby\":3,\"future\":{\"x\":1}}"),
                SledVersion.class);
        assertEquals("A", v.baseboard());
        assertEquals(3, v.cubby());
        assertNull(v.ordering());
        Map<String, SledStatus> s = Json.readStatuses(Json.MAPPER.readTree("{\"B\":{\"status\":\"started\","
                + "\"new\":1},\"A\":{\"status\":\"queued\"}}"));
        assertEquals(List.of("B", "A"), List.copyOf(s.keySet()), "in the answer's order");
        Readiness stalled = Json.read(Json.MAPPER.readTree("{\"ready\":false,\"reasons\":[\"r\"]}"), Readiness.class);
        assertNull(stalled.floor(), "absent, not null");
        assertTrue(Json.read(Json.MAPPER.readTree("{\"floor\":null}"), Readiness.class).floor().isNull());
    }

    @Test
    void bodiesThatHadNoFieldOrderHaveOne() {
        assertEquals("{\"ready\":false,\"reasons\":[\"slow\"]}", Json.MAPPER.writeValueAsString(
                new Readiness.Stalled(false, List.of("slow"))));
        assertEquals("{\"status\":\"stalled\",\"sled\":\"A\",\"rack_id\":\"r\",\"message\":\"slow\"}",
                Json.MAPPER.writeValueAsString(new Health("stalled", "A", "r", null, null, "slow")));
        assertEquals("{\"nonce\":\"n\",\"expires_in_s\":60}", Json.MAPPER.writeValueAsString(
                new Answers.Challenge("n", 60L)));
        assertEquals("{\"key_id\":\"k\",\"revoked\":true,\"identities_ended_here\":2,\"revocation\":\"r\"}",
                Json.MAPPER.writeValueAsString(new Answers.Revocation("k", true, 2, "r", null)));
        assertEquals("{\"key_id\":\"k\",\"revoked\":false,\"lifted\":\"r\"}", Json.MAPPER.writeValueAsString(
                new Answers.Revocation("k", false, null, null, "r")));
        assertEquals("{\"session_id\":\"s\",\"epoch\":9}", Json.MAPPER.writeValueAsString(
                new Answers.SessionStarted("s", 9L)));
        assertEquals("{\"session_id\":\"s\"}", Json.MAPPER.writeValueAsString(new Answers.SessionStarted("s", null)));
        assertEquals("{\"session_id\":\"s\",\"burnt\":\"p\"}", Json.MAPPER.writeValueAsString(
                new Answers.PositionBurnt("s", "p")));
        assertEquals("{\"session_id\":\"s\",\"key_id\":\"k\",\"access\":\"read\"}", Json.MAPPER.writeValueAsString(
                new Answers.AccessSet("s", "k", "read")));
        assertEquals("{\"job_id\":\"j\",\"stopping\":true}", Json.MAPPER.writeValueAsString(
                new Answers.JobStopping("j", true)));
        assertEquals("{\"identities\":[],\"operators\":[{\"key_id\":\"k\",\"type\":\"ssh-ed25519\",\"comment\":\"c\","
                + "\"revoked\":false}]}", Json.MAPPER.writeValueAsString(new Iam(List.of(), List.of(
                        new Iam.Operator("k", "ssh-ed25519", "c", false)))));
        assertEquals("{\"type\":\"size\",\"rows\":24,\"cols\":80,\"write\":true}", Json.MAPPER.writeValueAsString(
                new TerminalControl("size", 24, 80, true, null, null)));
        assertEquals("{\"type\":\"exit\",\"status\":{\"status\":\"stopped\",\"exit_code\":0}}",
                Json.MAPPER.writeValueAsString(new TerminalControl("exit", null, null, null, null, new SledStatus(
                        "stopped", 0, null, null, null, null, null, null, null, null, null, null, null, null, null,
                        null))));
    }
}
