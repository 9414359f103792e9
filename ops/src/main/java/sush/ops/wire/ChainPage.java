package sush.ops.wire;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

import tools.jackson.databind.JsonNode;

/**
 * {@code GET /sessions/{sid}/chain?after=P}: the requests and burns a sled holds of the active
 * session's chain from position {@code after} on, in chain order, and whether the chain goes on
 * past this page ({@code more}). When the rack settled and forgot the chain at {@code after}
 * (issue 39), no links, and {@code continues_at}: where its live chain goes on.
 */
public record ChainPage(@JsonProperty("session_id") String sessionId, String after, List<Link> links, Boolean more,
        @JsonInclude(JsonInclude.Include.NON_NULL) @JsonProperty("continues_at") String continuesAt) {

    public ChainPage(String sessionId, String after, List<Link> links, Boolean more) {
        this(sessionId, after, links, more, null);
    }

    /**
     * One position of the chain: the signed request held there (its JSON as a request body is,
     * read as strictly: {@link SignedRequests#fromJson}), or {@code burn} true.
     */
    public record Link(String position, @JsonInclude(JsonInclude.Include.NON_NULL) JsonNode request,
            @JsonInclude(JsonInclude.Include.NON_NULL) Boolean burn) {
    }
}
