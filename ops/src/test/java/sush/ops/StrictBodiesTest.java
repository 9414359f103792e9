package sush.ops;

import sush.ops.wire.SignedRequests;
import sush.ops.wire.Json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.http.HttpResponse;
import java.util.Map;

import org.junit.jupiter.api.Test;

import sush.projections.job.SignedJob;
import tools.jackson.databind.JsonNode;

/**
 * Request bodies bind onto records with strict types (issue 18, D-033): each wrong type, unknown
 * field, missing field and bad base64 is a 400 naming the field, and changes nothing.
 */
class StrictBodiesTest extends TwoSledRack {
    private static void refused(String path, String body, String message) throws Exception {
        HttpResponse<String> r = ApiTest.post(path, body);
        assertEquals(400, r.statusCode(), body + " -> " + r.body());
        JsonNode n = Json.MAPPER.readTree(r.body());
        assertEquals("malformed-body", n.get("error").asString(), r.body());
        if (message.endsWith("(")) {
            org.junit.jupiter.api.Assertions.assertTrue(n.get("message").asString().startsWith(message), r.body());
        } else {
            assertEquals(message, n.get("message").asString(), body);
        }
    }

    /** The active session's id, or "" when none is. */
    private static String active() {
        try {
            return rack.client(0).get("/sessions").path("session_id").asString("");
        } catch (sush.ops.cli.Client.Failure f) {
            return "";
        }
    }

    @Test
    void eachWrongBodyIsA400NamingItsFieldAndChangesNothing() throws Exception {
        String before = active();
        refused("/sessions/start", "{\"client_nonce\": \"!!not base64\"}", "field client_nonce is not base64");
        refused("/sessions/start", "{\"client_nonce\": 5}", "field client_nonce is not text");
        refused("/sessions/start", "{\"client_nonce\": true}", "field client_nonce is not text");
        refused("/sessions/start", "{\"colour\": \"red\"}", "field colour is not a field of this request");
        refused("/sessions/start", "[1, 2]", "the body is not one JSON object");
        refused("/sessions/start", "{\"client_nonce\": \"AA==\"} {}", "the body is not one JSON object (");
        refused("/sessions/start", "{\"client_nonce\": ", "the body is not JSON: Unexpected end-of-input within/between "
                + "Object entries");
        refused("/login", "{\"key\": \"AA==\", \"nonce\": \"AA==\", \"client_nonce\": \"%%\", \"ephemeral\": \"AA==\", "
                + "\"signature\": \"AA==\"}", "field client_nonce is not base64");
        refused("/login", "{\"key\": \"AA==\"}", "field nonce is missing");
        assertEquals(before, active(), "no session started");

        String sid = ApiTest.session();
        SignedJob job = ApiTest.next(rack.key, "true", "*");
        String path = "/jobs/" + job.request().job().codephrase() + "/start";
        Map<String, Object> good = SignedRequests.toJson(job);
        String text = Json.MAPPER.writeValueAsString(good);
        refused(path, text.replace("\"concurrent\":false", "\"concurrent\":\"no\""), "field concurrent is not true "
                + "or false");
        refused(path, text.replace("\"concurrent\":false", "\"concurrent\":0"), "field concurrent is not true or "
                + "false");
        refused(path, text.replace("\"target\":\"*\"", "\"target\":7"), "field target is not text");
        refused(path, text.replace("\"target\":\"*\",", ""), "field target is missing");
        refused(path, text.replace("\"target\":\"*\"", "\"target\":null"), "field target is null; leave it out "
                + "or give a value");
        refused("/sessions/start", "{\"client_nonce\": null}", "field client_nonce is null; leave it out or give a "
                + "value");
        refused(path, text.replace("\"concurrent\":false", "\"concurrent\":false,\"limits\":{\"cpu_seconds\":\"10\"}"),
                "field limits.cpu_seconds is not an integer");
        refused(path, text.replace("\"concurrent\":false", "\"concurrent\":false,\"limits\":{\"cpu_seconds\":1.5}"),
                "field limits.cpu_seconds is not an integer");
        refused(path, text.replace("\"concurrent\":false", "\"concurrent\":false,\"limits\":{\"cpu_seconds\":0}"),
                "field limits.cpu_seconds is not a positive integer");
        refused(path, text.replace("\"concurrent\":false", "\"concurrent\":false,\"limits\":{\"ram\":1}"),
                "field limits.ram is not a field of this request");
        refused(path, text.replace("\"concurrent\":false", "\"concurrent\":false,\"limits\":\"\""),
                "field limits is not an object");
        refused(path, text.replace("\"signature\":\"", "\"signature\":\"%"), "field signature is not base64");
        // The request as signed is still accepted: nothing above consumed its position.
        assertEquals(200, ApiTest.post(path, text).statusCode());
        assertEquals(sid, rack.client(0).get("/sessions").get("session_id").asString());
    }

    @Test
    void theCliReadsRequestFilesWithTheSameStrictness() {
        SignedRequests.BadRequest e = assertThrows(SignedRequests.BadRequest.class, () -> SignedRequests.fromJson(
                Json.MAPPER.readTree("{\"session\": 1}")));
        assertEquals("field session is not text", e.getMessage());
    }
}
