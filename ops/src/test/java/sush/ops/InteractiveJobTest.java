package sush.ops;

import sush.ops.wire.SignedRequests;
import sush.ops.wire.Json;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import sush.ops.cli.Client;
import sush.projections.fixtures.Jobs;
import sush.projections.job.JobMode;
import sush.projections.job.SignedJob;
import tools.jackson.databind.JsonNode;

/**
 * Issue 19: an interactive job is a signed job at its chain position, run on a terminal on one
 * sled; clients attach over a WebSocket at that sled: the starter types and resizes, another
 * operator watches, a detached client comes back to the recent past, and the exit code is in
 * the status. Several sleds or `*` are refused before anything is gossiped.
 */
class InteractiveJobTest extends TwoSledRack {
    /** One attached client: what it was shown and the control frames it got. */
    static final class Screen implements WebSocket.Listener {
        final StringBuffer shown = new StringBuffer();
        final List<JsonNode> controls = new CopyOnWriteArrayList<>();
        final CountDownLatch closed = new CountDownLatch(1);
        private final StringBuilder text = new StringBuilder();

        @Override
        public CompletionStage<?> onBinary(WebSocket w, ByteBuffer data, boolean last) {
            byte[] b = new byte[data.remaining()];
            data.get(b);
            shown.append(new String(b, StandardCharsets.UTF_8));
            w.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                controls.add(Json.MAPPER.readTree(text.toString()));
                text.setLength(0);
            }
            w.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket w, int status, String reason) {
            closed.countDown();
            return null;
        }

        @Override
        public void onError(WebSocket w, Throwable error) {
            closed.countDown();
        }

        /** Waits until the client was shown {@code what} (10 s at most). */
        void await(String what) throws InterruptedException {
            Awaitility.await().atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() -> assertTrue(shown.toString().contains(what), what + " in " + shown));
        }

        /** The first control frame the client got, once it got one (10 s at most). */
        JsonNode firstControl() {
            Awaitility.await("a control frame").atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(10)).until(() -> !controls.isEmpty());
            return controls.get(0);
        }
    }

    /** An attached client and its socket. */
    private record Attached(Screen screen, WebSocket socket) {
    }

    /** {@code who} attached to job {@code id} if it may type there; null (attached, and closed again) if not. */
    private static Attached typing(Client who, String id) throws Exception {
        Screen attempt = new Screen();
        WebSocket a = who.webSocket("/jobs/" + id + "/attach", attempt);
        if (attempt.firstControl().path("write").asBoolean(false)) {
            return new Attached(attempt, a);
        }
        a.sendClose(WebSocket.NORMAL_CLOSURE, "again").join();
        return null;
    }

    /** Why {@code who} may not attach to job {@code id}; null if it attached (and closed again). */
    private static Client.Failure refusal(Client who, String id) {
        try {
            who.webSocket("/jobs/" + id + "/attach", new Screen()).sendClose(WebSocket.NORMAL_CLOSURE, "x");
            return null;
        } catch (Client.Failure f) {
            return f;
        }
    }

    private static SignedJob interactive(String command, String target) throws Exception {
        JsonNode s = rack.client(0).get("/sessions");
        return Jobs.at(rack.key, s.get("session_id").asString(), s.get("next_job").asString(), command, target,
                JobMode.INTERACTIVE);
    }

    private static void send(WebSocket w, String text) {
        w.sendText(text, true).join();
    }

    @Test
    void anInteractiveJobIsATerminalOnOneSledThatClientsAttachTo() throws Exception {
        String sid = ApiTest.session();
        String sled = rack.rack.sleds().get(1).baseboard();
        // `*` and two sleds are refused at the API, and nothing takes the chain position.
        for (String target : new String[] {"*", "0,1"}) {
            SignedJob wide = interactive("bash", target);
            var r = ApiTest.post("/jobs/" + wide.request().job().codephrase() + "/start",
                    Json.MAPPER.writeValueAsString(SignedRequests.toJson(wide)));
            assertEquals(400, r.statusCode(), r.body());
            assertTrue(r.body().contains("one-sled-only"), r.body());
        }
        SignedJob job = interactive("bash --norc --noprofile", sled);
        String id = job.request().job().codephrase();
        rack.client(0).post("/jobs/" + id + "/start", SignedRequests.toJson(job));
        await("started on sled 1").atMost(Duration.ofSeconds(30)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> "started".equals(status(id).path(sled).path("status").asString("")));
        // The sled that does not run it has no terminal for it.
        Client.Failure elsewhere = org.junit.jupiter.api.Assertions.assertThrows(Client.Failure.class,
                () -> rack.client(0).webSocket("/jobs/" + id + "/attach", new Screen()));
        assertEquals("not-attachable", elsewhere.code());

        Screen starter = new Screen();
        WebSocket w = rack.client(1).webSocket("/jobs/" + id + "/attach", starter);
        assertEquals("size", starter.firstControl().path("type").asString());
        assertTrue(starter.controls.get(0).path("write").asBoolean(), "the starter types");
        send(w, "{\"type\":\"resize\",\"rows\":40,\"cols\":100}");
        w.sendBinary(ByteBuffer.wrap("echo $((6*7)); tty; stty size; echo done-$((1+1))\n".getBytes(
                StandardCharsets.UTF_8)), true).join();
        starter.await("done-2");
        String shown = starter.shown.toString();
        assertTrue(shown.contains("\n42") || shown.contains("\r42"), shown);
        assertTrue(shown.contains("/dev/pts/"), shown);
        assertTrue(shown.contains("40 100"), shown);

        // Another operator watches: it sees what the job shows, and its keystrokes are ignored.
        Client other = OperatorAuthTest.secondOperator("watcher", 1);
        Screen watcher = new Screen();
        WebSocket ww = other.webSocket("/jobs/" + id + "/attach", watcher);
        watcher.await("done-2");
        assertFalse(watcher.firstControl().path("write").asBoolean(true), "a watcher does not type");
        ww.sendBinary(ByteBuffer.wrap("echo intruder-$((2+2))\n".getBytes(StandardCharsets.UTF_8)), true).join();
        w.sendBinary(ByteBuffer.wrap("echo starter-$((3+3))\n".getBytes(StandardCharsets.UTF_8)), true).join();
        watcher.await("starter-6");
        assertFalse(watcher.shown.toString().contains("intruder-4"), watcher.shown.toString());

        // The starter lets the watcher type: attached again, its keystrokes reach the job.
        String watcherKey = other.login().get("key_id").asString();
        rack.client(0).post("/sessions/" + sid + "/access/" + watcherKey + "?access=write", java.util.Map.of());
        Attached allowed = await("the allow reached the running sled").atMost(Duration.ofSeconds(10))
                .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50)).until(() -> typing(other, id),
                        Objects::nonNull);
        Screen typist = allowed.screen();
        WebSocket tw = allowed.socket();
        org.junit.jupiter.api.Assertions.assertNotNull(tw, "the allow reached the running sled");
        tw.sendBinary(ByteBuffer.wrap("echo allowed-$((4+4))\n".getBytes(StandardCharsets.UTF_8)), true).join();
        typist.await("allowed-8");
        tw.sendClose(WebSocket.NORMAL_CLOSURE, "done").join();
        // Denied: no attach at all.
        rack.client(0).post("/sessions/" + sid + "/access/" + watcherKey + "?access=none", java.util.Map.of());
        Client.Failure denied = await("the deny reached the running sled").atMost(Duration.ofSeconds(5))
                .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50)).until(() -> refusal(other, id),
                        Objects::nonNull);
        org.junit.jupiter.api.Assertions.assertNotNull(denied);
        assertEquals("denied", denied.code());
        // Issue 36, item 5: denied in every form: the recorded transcript too, at the sled, relayed
        // through another, and with a read token (each served the live transcript before).
        String transcript = "/jobs/" + id + "/output/stdout?sled=" + java.net.URLEncoder.encode(sled,
                StandardCharsets.UTF_8);
        for (Client via : new Client[] {other, new Client(rack.url(0), other.credentials())}) {
            Client.Failure read = org.junit.jupiter.api.Assertions.assertThrows(Client.Failure.class,
                    () -> via.bytes(transcript), "the denied key read the transcript through " + via.url());
            assertEquals("denied", read.code(), read.getMessage());
        }
        String token = other.credentials().readToken(System.currentTimeMillis() + 60_000).orElseThrow();
        java.net.http.HttpResponse<String> byToken = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create(rack.url(1) + transcript)).header(
                        "Authorization", sush.ops.auth.Authority.READ_SCHEME + token).GET().build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(403, byToken.statusCode(), byToken.body());
        assertTrue(rack.client(1).bytes(transcript).length > 0, "the starter still reads it");
        // Only the starter sets access.
        Client.Failure notStarter = org.junit.jupiter.api.Assertions.assertThrows(Client.Failure.class, () -> other
                .post("/sessions/" + sid + "/access/" + watcherKey + "?access=write", java.util.Map.of()));
        assertEquals("not-starter", notStarter.code());

        // Detach, then come back: the recent past first.
        send(w, "{\"type\":\"detach\"}");
        assertTrue(starter.closed.await(5, TimeUnit.SECONDS), "detached");
        Screen back = new Screen();
        WebSocket wb = rack.client(1).webSocket("/jobs/" + id + "/attach", back);
        back.await("starter-6");
        assertTrue(back.shown.toString().contains("done-2"), "played back");

        // The end: exit 3 in the status, sent to every attached client, then closed.
        wb.sendBinary(ByteBuffer.wrap("exit 3\n".getBytes(StandardCharsets.UTF_8)), true).join();
        assertTrue(back.closed.await(10, TimeUnit.SECONDS));
        JsonNode exit = back.controls.stream().filter(c -> c.path("type").asString("").equals("exit")).findFirst()
                .orElseThrow();
        assertEquals(3, exit.path("status").path("exit_code").asInt());
        assertTrue(watcher.closed.await(10, TimeUnit.SECONDS));
        // Sled 0 learns sled 1's ending by gossip, which may still be on its way.
        await("sled 0 learnt sled 1's ending").atMost(Duration.ofSeconds(30)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> status(id).path(sled).path("exit_code").isIntegralNumber());
        assertEquals(3, status(id).path(sled).path("exit_code").asInt());
        // Recorded and hashed like any job: the output verifies.
        String out = new String(sush.ops.cli.JobCommandAccess.verifiedOutput(rack.client(0), id, sled, false),
                StandardCharsets.UTF_8);
        assertTrue(out.contains("starter-6"), out);
        // Attaching after the end: nothing to attach to.
        Client.Failure ended = org.junit.jupiter.api.Assertions.assertThrows(Client.Failure.class,
                () -> rack.client(1).webSocket("/jobs/" + id + "/attach", new Screen()));
        assertEquals("not-attachable", ended.code());
    }

    private static JsonNode status(String id) {
        try {
            return rack.client(0).get("/jobs/" + id + "/status").get("statuses");
        } catch (Client.Failure f) {
            return Json.MAPPER.createObjectNode();
        }
    }
}
