package sush.ops.api;

import static sush.ops.api.Replies.error;
import static sush.ops.api.Replies.jobId;
import static sush.ops.api.Replies.sledParameter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import org.reactivestreams.Publisher;

import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import sush.ops.wire.ApiError;
import sush.ops.wire.Json;
import sush.ops.wire.SignedRequests.BadRequest;
import sush.ops.auth.Authority;
import sush.pipeline.exec.ProcessLauncher;
import sush.pipeline.sled.SledConfig;
import sush.pipeline.sled.SledRuntime;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.message.Message;

/**
 * {@code GET /jobs/{jid}/output/{stream}}: a job's stdout or stderr as a sled keeps it, whole or
 * a range, sent by the kernel from its file (never through the heap), relayed from the sled that
 * ran it when another is named; a bounded number at once, a stalled reader cut, and the jobs
 * being read (which the output budget keeps) and deleted (410) known here.
 */
final class OutputResource {
    private final ApiContext api;
    private final SledConfig cfg;
    private final SledRuntime runtime;
    private final ProcessLauncher launcher;
    private final Relays relays;
    /** Jobs whose output is being sent now, with how many downloads of each: the output budget keeps them. */
    private final Map<String, Integer> beingRead = new ConcurrentHashMap<>();
    /** Whether the output budget deleted a job's output (given by the daemon; none by default). */
    private volatile Predicate<String> deletedOutputs = job -> false;

    OutputResource(ApiContext api, Relays relays) {
        this.api = api;
        this.cfg = api.cfg();
        this.runtime = api.runtime();
        this.launcher = api.launcher();
        this.relays = relays;
    }

    /** The jobs (codephrases) whose output a client is reading now. */
    Set<String> outputsBeingRead() {
        return Set.copyOf(beingRead.keySet());
    }

    /** Tells the API which outputs the sled's output budget deleted (their downloads answer 410). */
    void deletedOutputs(Predicate<String> deleted) {
        this.deletedOutputs = deleted;
    }

    /**
     * A job's {@code stream}, from the sled {@code ?sled=B} names (relayed) or this one; an
     * interactive job's transcript only to a key its session's starter has not denied.
     */
    Publisher<Void> output(HttpServerRequest q, HttpServerResponse s, Authority.Identity who) {
        JobId job;
        try {
            job = jobId(q.param("jid"));
        } catch (BadRequest e) {
            return error(s, 400, e.code(), e.getMessage());
        }
        String stream = q.param("stream");
        if (!"stdout".equals(stream) && !"stderr".equals(stream)) {
            return error(s, 404, "unknown-stream", "output is stdout or stderr");
        }
        Optional<String> sled = sledParameter(q);
        if (sled.isPresent() && !sled.get().equals(cfg.me().baseboard())) {
            return relays.relay(q, s, sled.get());
        }
        Optional<SessionId> interactive = launcher.interactiveSession(job);
        if (interactive.isPresent()) {
            // Issue 36, item 5: `session deny` keeps the key from the terminal in every form, its
            // recorded transcript included (signed, relayed here, or with a read token).
            SessionId session = interactive.get();
            return runtime.query(v -> v.fold() == null || v.fold().session(session).isEmpty() ? Message.Access.READ
                    : v.fold().access(session, who.key().codephrase())).flatMap(access -> access
                            == Message.Access.NONE ? Mono.from(error(s, 403, "denied", "the session's starter denied "
                                    + who.key().codephrase() + " its interactive jobs, their transcripts included"))
                            : Mono.from(sendOutput(q, s, job, stream)));
        }
        return sendOutput(q, s, job, stream);
    }

    /** The bytes of a job's {@code stream} as kept on this sled (a range of them when asked). */
    private Publisher<Void> sendOutput(HttpServerRequest q, HttpServerResponse s, JobId job, String stream) {
        if ("stdout".equals(stream) && launcher.streamed(job)) {
            return error(s, 404, "not-stored", "job " + job.codephrase() + " streamed its stdout to its client; this "
                    + "sled kept none (its length and hash are in the status)");
        }
        Path file = launcher.jobDir(job).resolve(stream);
        long length;
        try {
            // One stat; the bytes themselves never pass through the heap or the event loop's
            // buffers: the file is sent by the kernel (zero-copy) or, over TLS, in chunks.
            length = Files.size(file);
        } catch (IOException e) {
            if (deletedOutputs.test(job.codephrase())) {
                // Issue 35: said as such, never as if there had been none: the length and hash in
                // the status are what it was.
                return error(s, 410, "output-deleted", "this sled deleted the output of job " + job.codephrase()
                        + " to keep its outputs within their budget (--output-max-bytes, --output-max-jobs); the length and hash in its "
                        + "status are what it was");
            }
            return error(s, 404, "no-output", "this sled holds no " + stream + " for job " + job.codephrase());
        }
        String range = q.requestHeaders().get("Range");
        ByteRange.Ask ask = ByteRange.parse(range, length);
        if (ask instanceof ByteRange.Ask.Unsatisfiable) {
            return s.header("Content-Range", "bytes */" + length).status(416)
                    .header("Content-Type", "application/json").sendString(Mono.just(Json.MAPPER.writeValueAsString(
                            new ApiError("bad-range", "range " + range + " holds no byte of " + length)) + "\n"))
                    .then();
        }
        if (!api.startDownload()) {
            return error(s, 503, "too-many-downloads", api.limits().maxDownloads() + " output downloads are in "
                    + "progress on this sled; try again");
        }
        long first = 0;
        long count = length;
        if (ask instanceof ByteRange.Ask.Part) {
            ByteRange r = ((ByteRange.Ask.Part) ask).range();
            first = r.first();
            count = r.length();
            s.status(206).header("Content-Range", "bytes " + r.first() + "-" + r.last() + "/" + length);
        } else {
            s.status(200);
        }
        // A client that stops reading is cut once nothing it was sent moved for the write stall.
        WriteStall.install(q, api.limits().writeStall());
        String reading = job.codephrase();
        beingRead.merge(reading, 1, Integer::sum);
        return s.header("Content-Type", "application/octet-stream").header("Content-Length", Long.toString(count))
                .sendFile(file, first, count).then().doFinally(signal -> {
                    api.endDownload();
                    beingRead.computeIfPresent(reading, (k, n) -> n <= 1 ? null : n - 1);
                });
    }
}
