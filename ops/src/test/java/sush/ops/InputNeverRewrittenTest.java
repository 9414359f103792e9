package sush.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.projections.fold.Ordering;

/**
 * Issue 35: input is refused, never rewritten. A command that is not UTF-8 is refused by the
 * client before anything is signed (it would have run with U+FFFD in place of the bytes typed),
 * a request body that is not UTF-8 by the API, and the login challenge takes an empty or JSON
 * body within the bound every other endpoint keeps.
 */
class InputNeverRewrittenTest {
    @TempDir
    static Path root;
    static LocalRack rack;

    @BeforeAll
    static void up() throws Exception {
        rack = new LocalRack(root.resolve("rack"), 1, Ordering.SIGNED);
        rack.converge();
    }

    @AfterAll
    static void down() {
        rack.close();
    }

    @Test
    void aCommandThatIsNotUtf8IsRefusedBeforeAnythingIsSigned() {
        // What the JVM makes of the bytes 0xff 0xfe on the command line.
        CliRun r = CliRun.of("job", "start", "--url", rack.url(0), "--operator-key",
                rack.dir.resolve("operator.key").toString(), "--key", rack.dir.resolve("signer.key").toString(), "--",
                "echo \ufffd\ufffd bad");
        assertEquals(2, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("not-utf8"), r.err());
        assertTrue(r.out().isBlank(), "no job id: " + r.out());
    }

    @Test
    void aRequestBodyThatIsNotUtf8IsRefused() throws Exception {
        String json = "{\"session\":\"x\",\"job\":\"y\",\"command\":\"echo AB bad\",\"target\":\"*\",\"concurrent\":false,"
                + "\"key\":\"k\",\"algorithm\":\"ed25519\",\"signature\":\"AA==\"}";
        byte[] body = json.getBytes(StandardCharsets.US_ASCII);
        int at = json.indexOf("AB");
        body[at] = (byte) 0xff;
        body[at + 1] = (byte) 0xfe;
        var r = rack.client(0).raw("POST", "/jobs/able-acid-aged-also-area-army-away-baby/start", body, Map.of());
        assertEquals(400, r.statusCode(), r.body());
    }

    @Test
    void theLoginChallengeTakesAnEmptyOrJsonBodyWithinTheBound() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        URI challenge = URI.create(rack.url(0) + "/login/challenge");
        for (var c : List.of(new Object[] {new byte[0], 200}, new Object[] {"{}".getBytes(StandardCharsets.UTF_8), 200},
                new Object[] {"not json".getBytes(StandardCharsets.UTF_8), 400},
                new Object[] {new byte[20 * 1024 * 1024], 413})) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(challenge).POST(HttpRequest.BodyPublishers
                    .ofByteArray((byte[]) c[0])).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals((int) c[1], r.statusCode(), ((byte[]) c[0]).length + " bytes: " + r.body());
        }
    }
}
