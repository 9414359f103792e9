package sush.ops.api;

import static sush.ops.api.Replies.error;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.reactivestreams.Publisher;

import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerResponse;

/**
 * The rack page's files (issue 20, D-035): shipped in the jar, nothing fetched from elsewhere,
 * read once and served from memory with a policy that lets the page reach this API alone.
 */
final class PageResource {
    /** The rack page's files (issue 20, D-035): shipped in the jar, nothing fetched from elsewhere. */
    private static final Map<String, String> PAGE_FILES = Map.of("index.html", "text/html; charset=utf-8", "app.js",
            "text/javascript; charset=utf-8", "sha3-worker.js", "text/javascript; charset=utf-8", "style.css",
            "text/css; charset=utf-8");

    private static final Map<String, byte[]> PAGE_BYTES = new ConcurrentHashMap<>();

    private PageResource() {
    }

    /**
     * {@code GET /} and {@code /web/{file}}: the rack page. It holds no data: the page asks the
     * API for everything with the read token the operator gave it ({@code sush login --web}).
     */
    static Publisher<Void> page(HttpServerResponse s, String file) {
        String type = PAGE_FILES.get(file);
        if (type == null) {
            return error(s, 404, "no-such-file", "the page has no file " + file.replaceAll("[^A-Za-z0-9._-]", "?"));
        }
        byte[] body = PAGE_BYTES.get(file);
        if (body == null) {
            // Read from the jar once (four small files), then served from memory.
            try (InputStream in = ApiServer.class.getResourceAsStream("/sush/ops/web/" + file)) {
                if (in == null) {
                    return error(s, 500, "page-missing", "the page's " + file + " is not in this build");
                }
                body = in.readAllBytes();
            } catch (IOException e) {
                return error(s, 500, "page-missing", e.getMessage());
            }
            PAGE_BYTES.putIfAbsent(file, body);
        }
        return s.status(200).header("Content-Type", type).header("Cache-Control", "no-store")
                .header("Content-Security-Policy", "default-src 'self'; connect-src 'self'; img-src 'self' data:")
                .header("X-Content-Type-Options", "nosniff").sendByteArray(Mono.just(body)).then();
    }
}
