package sush.ops.api;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import sush.locker.record.BoundaryRecord;
import sush.locker.record.SignedRecord;
import sush.ops.wire.Json;
import sush.pipeline.sled.SledEvent;
import sush.pipeline.sled.SledRuntime;
import sush.projections.fold.Ordering;
import sush.projections.fold.SessionProjection;
import sush.projections.fold.StatusProjection;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.job.SignedGrant;
import sush.projections.message.Message;
import sush.projections.targets.Sled;

/**
 * Test access to how the API builds its response bodies, each from fixed inputs and written as
 * the API writes it ({@link Json#MAPPER}): what {@code sush.ops.wire.WireBytesTest} pins.
 */
public final class WireAccess {
    private WireAccess() {
    }

    private static String json(Object body) {
        return Json.MAPPER.writeValueAsString(body);
    }

    public static String version(Sled me, String software, String network, Ordering ordering, String rackId,
            String containment, String jobSessions) {
        return json(Probes.versionBody(me, software, network, ordering, rackId, containment, jobSessions));
    }

    public static String health(String sled, String rackId, double loopMs, Optional<String> failure) {
        return json(Probes.healthBody(sled, rackId, loopMs, failure));
    }

    public static String readiness(SledRuntime.View v, List<String> reasons, int connected, int expected, int held,
            Long diskFree, Long diskReserve) {
        return json(Probes.readinessBody(v, reasons, connected, expected, held, diskFree, diskReserve));
    }

    public static String boundary(String baseboard, SledRuntime.View v, String load, String loadReason,
            Optional<String> changed) {
        return json(StateResource.boundaryBody(baseboard, v, load, loadReason, changed));
    }

    /** A causal record as {@code /boundary} shows it. */
    public static String record(BoundaryRecord r) {
        return json(StateResource.record(r));
    }

    /** A signed record as {@code /boundary} shows it. */
    public static String signedRecord(SignedRecord r) {
        return json(StateResource.signedRecord(r));
    }

    public static String session(SessionProjection.Session a, Optional<SignedGrant> grant, String nextJob) {
        return json(StateResource.session(a, grant, nextJob));
    }

    /** A {@code /jobs} page of one job with the statuses {@code Json.statuses} makes of {@code byReporter}. */
    public static String jobPage(int total, int offset, int limit, JobId id, Optional<SessionId> session,
            Map<String, StatusProjection.Entry> byReporter) {
        return json(StateResource.jobPage(total, offset, limit, List.of(StateResource.jobEntry(id, session,
                Json.statuses(byReporter)))));
    }

    /** A {@code /jobs/{jid}/status} body of the statuses and conflicts {@code Json} makes. */
    public static String status(JobId job, Map<String, StatusProjection.Entry> byReporter,
            Map<String, Message.JobConflict> conflicts) {
        return json(StateResource.statusBody(job, Json.statuses(byReporter), Json.conflicts(conflicts)));
    }

    /** An event as {@code /events} frames it (its id 7), or null when clients are not shown it. */
    public static String event(SledEvent e, String sled) {
        EventStream.Numbered n = EventStream.shown(e, sled);
        return n == null ? null : "id: 7\nevent: " + n.kind() + "\ndata: " + json(n.data());
    }

    /** The whole body of the API's refusal with {@code status}, {@code code} and {@code message}, as served. */
    public static String error(int status, String code, String message) throws Exception {
        DisposableServer server = HttpServer.create().host("127.0.0.1").port(0)
                .route(r -> r.get("/refused", (q, s) -> Replies.error(s, status, code, message))).bindNow();
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                    "http://127.0.0.1:" + server.port() + "/refused")).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() + " " + r.headers().firstValue("Content-Type").orElse("") + " " + r.body();
        } finally {
            server.disposeNow();
        }
    }
}
