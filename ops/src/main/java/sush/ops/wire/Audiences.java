package sush.ops.wire;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Which sled a signed request is for (issue 36, security.md section 5): the one rule the client
 * signs by and the sled checks by. A request is for the sled whose API it is sent to, except a
 * relayed one: a GET of a relaying endpoint whose {@code ?sled=B} names another sled is for B,
 * which the receiving sled relays it to and which checks it again. Elsewhere {@code ?sled=}
 * only chooses what to show ({@code /jobs/{id}/status?sled=B} is the receiving sled's view of
 * B's status), and the request is for the receiving sled.
 */
public final class Audiences {
    private Audiences() {
    }

    /**
     * Whether {@code method path} (no query) is relayed to the sled its {@code ?sled=} names:
     * a GET of {@code /version}, {@code /rack}, {@code /boundary}, {@code /plan}, {@code /certificate},
     * {@code /sessions/{id}/chain}, {@code /sessions/{id}/receipts} or {@code /jobs/{id}/output/{stream}}. Plain string checks: every request asks.
     */
    public static boolean relaying(String method, String path) {
        if (!"GET".equals(method)) {
            return false;
        }
        switch (path) {
            case "/version":
            case "/rack":
            case "/boundary":
            case "/plan":
            case "/certificate":
                return true;
            default:
                break;
        }
        for (String tail : new String[] {"/chain", "/receipts"}) {
            if (path.startsWith("/sessions/") && path.endsWith(tail)) {
                int end = path.indexOf('/', "/sessions/".length());
                return end > "/sessions/".length() && end == path.length() - tail.length();
            }
        }
        if (path.startsWith("/jobs/")) {
            int job = path.indexOf('/', "/jobs/".length());
            return job > "/jobs/".length() && path.startsWith("/output/", job)
                    && path.indexOf('/', job + "/output/".length()) < 0 && path.length() > job + "/output/".length();
        }
        return false;
    }

    /** The sled a request of {@code method pathAndQuery} sent to sled {@code here}'s API is for. */
    public static String of(String method, String pathAndQuery, String here) {
        int q = pathAndQuery.indexOf('?');
        String path = q < 0 ? pathAndQuery : pathAndQuery.substring(0, q);
        return relaying(method, path) ? sled(pathAndQuery).orElse(here) : here;
    }

    /** The {@code sled} query parameter of {@code pathAndQuery}, decoded, when it has one. */
    public static Optional<String> sled(String pathAndQuery) {
        int q = pathAndQuery.indexOf('?');
        if (q < 0) {
            return Optional.empty();
        }
        for (String p : pathAndQuery.substring(q + 1).split("&")) {
            if (p.startsWith("sled=")) {
                return Optional.of(URLDecoder.decode(p.substring(5), StandardCharsets.UTF_8));
            }
        }
        return Optional.empty();
    }
}
