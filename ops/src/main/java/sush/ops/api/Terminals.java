package sush.ops.api;

import static sush.ops.api.Replies.error;
import static sush.ops.api.Replies.jobId;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import reactor.netty.http.websocket.WebsocketInbound;
import reactor.netty.http.websocket.WebsocketOutbound;
import sush.ops.wire.Json;
import sush.ops.wire.SledStatus;
import sush.ops.wire.TerminalControl;
import sush.ops.wire.SignedRequests.BadRequest;
import sush.ops.auth.Authority;
import sush.pipeline.exec.Outflow;
import sush.pipeline.exec.ProcessLauncher;
import sush.pipeline.exec.Terminal;
import sush.pipeline.sled.SledConfig;
import sush.pipeline.sled.SledRuntime;
import sush.projections.fold.SessionProjection;
import sush.projections.id.JobId;
import sush.projections.message.Message;
import tools.jackson.databind.JsonNode;

/**
 * A running job's live ends, served by the sled running it (issue 19, D-034): an interactive
 * job's terminal as a WebSocket ({@code /attach}), with this sled's final status once it ends,
 * and a streaming job's stdout as it is produced, to its session's starter ({@code /stream}).
 */
final class Terminals {
    /** The API's one logger name, whichever class logs. */
    private static final Logger LOG = LoggerFactory.getLogger(ApiServer.class);

    private static final Set<String> TERMINAL_STATUSES = Set.of("stopped", "error", "skipped", "cancelled",
            "interrupted");

    private final ApiContext api;
    private final SledConfig cfg;
    private final SledRuntime runtime;
    private final ProcessLauncher launcher;

    Terminals(ApiContext api) {
        this.api = api;
        this.cfg = api.cfg();
        this.runtime = api.runtime();
        this.launcher = api.launcher();
    }

    /**
     * {@code GET /jobs/{id}/attach}: a WebSocket on a running interactive job's terminal, served
     * by the sled running it. First a text frame {@code {"type":"size","rows","cols","write"}},
     * then the last 64 KiB shown and everything after it as binary frames; at the end
     * {@code {"type":"exit","status":{...}}}. From the client: binary frames are keystrokes,
     * {@code {"type":"resize","rows","cols"}} and {@code {"type":"detach"}}. The session's
     * starter writes; anyone else logged in watches (their input is ignored). A client that
     * falls behind is dropped ({@code {"type":"dropped"}}); the job never waits for one.
     */
    Publisher<Void> attach(HttpServerRequest q, HttpServerResponse s, Authority.Identity who) {
        JobId job;
        try {
            job = jobId(q.param("jid"));
        } catch (BadRequest e) {
            return error(s, 400, e.code(), e.getMessage());
        }
        Optional<Terminal> t = launcher.terminal(job);
        if (t.isEmpty()) {
            return error(s, 404, "not-attachable", "job " + job.codephrase() + " is not an interactive job running on "
                    + "sled " + cfg.me().baseboard() + " (attach where it runs; a job that ended has its output)");
        }
        return runtime.query(v -> Optional.ofNullable(v.fold()).flatMap(f -> f.sessionOf(job)).map(id ->
                v.fold().access(id, who.key().codephrase())).orElse(Message.Access.NONE)).flatMap(access -> {
                    if (access == Message.Access.NONE) {
                        return error(s, 403, "denied", "the session's starter has not let " + who.key().codephrase()
                                + " attach to its jobs");
                    }
                    boolean writes = access == Message.Access.WRITE;
                    return s.sendWebsocket((in, out) -> terminalSession(job, t.get(), writes, in, out));
                });
    }

    private Publisher<Void> terminalSession(JobId job, Terminal t, boolean writes, WebsocketInbound in,
            WebsocketOutbound out) {
        Sinks.Empty<Void> detached = Sinks.empty();
        in.receiveFrames().map(f -> new ClientFrame(f instanceof TextWebSocketFrame, ByteBufUtil.getBytes(f.content())))
                .publishOn(Schedulers.boundedElastic())
                .subscribe(f -> {
                    try {
                        if (!f.text()) {
                            if (writes) {
                                t.input(f.bytes());
                            }
                            return;
                        }
                        JsonNode c = Json.MAPPER.readTree(new String(f.bytes(), StandardCharsets.UTF_8));
                        String type = c.path("type").asString("");
                        if (type.equals("detach")) {
                            detached.tryEmitEmpty();
                        } else if (type.equals("resize") && writes) {
                            t.resize(c.path("rows").asInt(0), c.path("cols").asInt(0));
                        }
                    } catch (IOException | RuntimeException e) {
                        // A keystroke after the end, a bad size or a malformed control: the
                        // client is told nothing more than the terminal's own output says.
                        LOG.debug("attach {}: {}", job.codephrase(), e.toString());
                    }
                }, err -> detached.tryEmitEmpty(), detached::tryEmitEmpty);
        Flux<WebSocketFrame> frames = Flux.concat(
                Mono.fromCallable(() -> {
                    int[] size = t.size();
                    return control(new TerminalControl("size", size[0], size[1], writes, null, null));
                }),
                t.attach().map(b -> (WebSocketFrame) new BinaryWebSocketFrame(Unpooled.wrappedBuffer(b)))
                        .onErrorResume(Terminal.Lagging.class, e -> Mono.just(control(new TerminalControl("dropped",
                                null, null, null, e.getMessage(), null)))),
                ownStatus(job).map(st -> control(new TerminalControl("exit", null, null, null, null, st))));
        return out.sendObject(frames.takeUntilOther(detached.asMono())).then();
    }

    /**
     * {@code GET /jobs/{id}/stream}: a streaming job's stdout as it is produced, to one client
     * (the session's starter), served by the sled running it. The body ends with the output;
     * the client checks it against the status's length and hash. A client that goes away ends
     * the job with an error saying so; a slow one makes the job wait (at most 4 MiB held here).
     */
    Publisher<Void> stream(HttpServerRequest q, HttpServerResponse s, Authority.Identity who) {
        JobId job;
        try {
            job = jobId(q.param("jid"));
        } catch (BadRequest e) {
            return error(s, 400, e.code(), e.getMessage());
        }
        Optional<Outflow> flow = launcher.outflow(job);
        if (flow.isEmpty()) {
            return error(s, 404, "not-streaming", "job " + job.codephrase() + " is not a streaming job running on sled "
                    + cfg.me().baseboard() + " (yet, or any more)");
        }
        return runtime.query(v -> Optional.ofNullable(v.fold()).flatMap(f -> f.sessionOf(job)).flatMap(id ->
                v.fold().session(id)).map(SessionProjection.Session::starter)).flatMap(starter -> {
                    if (starter.isEmpty() || !starter.get().equals(who.key().codephrase())) {
                        return error(s, 403, "not-starter", "only the session's starter receives its streaming jobs");
                    }
                    if (!flow.get().claim()) {
                        return error(s, 409, "already-streaming", "another client receives job " + job.codephrase());
                    }
                    return s.status(200).header("Content-Type", "application/octet-stream").send(body(flow.get()))
                            .then();
                });
    }

    /**
     * The body of a claimed stream: {@code f}'s chunks as they come, read off the event loop;
     * ended early (the client went away), the job is told so.
     */
    private static Flux<ByteBuf> body(Outflow f) {
        AtomicBoolean ended = new AtomicBoolean();
        return Flux.<byte[]>generate(sink -> {
            try {
                byte[] c = null;
                while (c == null) {
                    c = f.next(1_000);
                }
                if (c.length == 0) {
                    ended.set(true);
                    sink.complete();
                } else {
                    sink.next(c);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                sink.error(e);
            }
        }).subscribeOn(Schedulers.boundedElastic(), false)
                .map(Unpooled::wrappedBuffer)
                .doFinally(signal -> {
                    if (!ended.get()) {
                        f.clientGone();
                    }
                });
    }

    /** One frame a client sent, copied off the event loop's buffer. */
    private record ClientFrame(boolean text, byte[] bytes) {
    }

    private static WebSocketFrame control(TerminalControl c) {
        return new TextWebSocketFrame(Json.MAPPER.writeValueAsString(c));
    }

    /** This sled's final status of the job once it reports one (the ending follows the terminal's close). */
    private Mono<SledStatus> ownStatus(JobId job) {
        String me = cfg.me().baseboard();
        Duration wait = api.limits().ownStatusWait();
        Duration every = api.limits().ownStatusPoll();
        return poll(() -> runtime.query(v -> v.fold() == null ? Map.<String, SledStatus>of()
                : Json.statuses(v.fold().statuses().statuses(job))).flatMap(m -> m.get(me) != null
                        && TERMINAL_STATUSES.contains(String.valueOf(m.get(me).status()))
                        ? Mono.just(m.get(me)) : Mono.empty()), wait.toMillis() / every.toMillis(), every);
    }

    /**
     * Asks {@code ask} until it answers a value, {@code every} after each empty answer, at most
     * {@code polls} times; empty if it never did. (A fixed-rate interval, as the attach's wait
     * for the job's end was, fails with an overflow as soon as one answer takes longer than the
     * period: on a busy sled the client then saw its terminal close without the job's end.)
     */
    static <T> Mono<T> poll(Supplier<Mono<T>> ask, long polls, Duration every) {
        return Mono.defer(ask).switchIfEmpty(Mono.defer(() -> polls <= 1 ? Mono.empty()
                : Mono.delay(every).then(poll(ask, polls - 1, every))));
    }
}
