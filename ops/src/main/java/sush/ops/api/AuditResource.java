package sush.ops.api;

import static sush.ops.api.Replies.jobId;
import static sush.ops.api.Replies.sessionId;

import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateEncodingException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerRequest;
import sush.ops.api.Replies.Refused;
import sush.ops.wire.Answers;
import sush.ops.wire.SignedRequests.BadRequest;
import sush.pipeline.sled.SledRuntime;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.message.Message;

/**
 * Receipts (issue 40, D-060): a job's or a session's signed receipts as this sled holds them (its
 * fold's, then its journal's), and this sled's certificate, which its receipts are checked by.
 */
final class AuditResource {
    private final ApiContext api;

    AuditResource(ApiContext api) {
        this.api = api;
    }

    /** {@code GET /jobs/{jid}/receipts}. */
    Mono<Object> ofJob(HttpServerRequest q) throws BadRequest {
        JobId job = jobId(q.param("jid"));
        return api.runtime().receipts(f -> List.of(job), r -> r.job().equals(job))
                .map(rs -> (Object) new Answers.Receipts(job.codephrase(), null, wire(rs)))
                .onErrorMap(SledRuntime.HistoryUnavailable.class, e -> new Refused(503, "history-unavailable",
                        e.getMessage()));
    }

    /** {@code GET /sessions/{sid}/receipts} (relayed with {@code sled=B}): every receipt of the session's jobs. */
    Mono<Object> ofSession(HttpServerRequest q) throws BadRequest {
        SessionId session = sessionId(q.param("sid"));
        return api.runtime().receipts(f -> f.statuses().jobs().stream().filter(j -> f.sessionOf(j)
                .map(session::equals).orElse(false)).toList(), r -> r.session().equals(session))
                .map(rs -> (Object) new Answers.Receipts(null, session.codephrase(), wire(rs)))
                .onErrorMap(SledRuntime.HistoryUnavailable.class, e -> new Refused(503, "history-unavailable",
                        e.getMessage()));
    }

    /** {@code GET /certificate} (relayed with {@code sled=B}): this sled's certificate, PEM. */
    Mono<Object> certificate() {
        if (api.certificate().isEmpty()) {
            return Mono.error(new Refused(404, "no-certificate", "sled " + api.cfg().me().baseboard() + " gossips "
                    + "without the rack CA's certificate: it signs no receipts"));
        }
        try {
            String pem = "-----BEGIN CERTIFICATE-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(
                    StandardCharsets.US_ASCII)).encodeToString(api.certificate().get().getEncoded())
                    + "\n-----END CERTIFICATE-----\n";
            return Mono.just(new Answers.Certificate(api.cfg().me().baseboard(), pem));
        } catch (CertificateEncodingException e) {
            return Mono.error(new Refused(500, "internal", e.getMessage()));
        }
    }

    private static List<Answers.Receipt> wire(List<Message.JobReceipt> rs) {
        List<Answers.Receipt> out = new ArrayList<>();
        for (Message.JobReceipt r : rs) {
            out.add(new Answers.Receipt(r.sled(), new String(r.body(), StandardCharsets.US_ASCII),
                    Base64.getEncoder().encodeToString(r.signature())));
        }
        return out;
    }
}
