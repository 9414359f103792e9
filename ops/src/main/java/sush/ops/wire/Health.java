package sush.ops.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * {@code GET /health}: {@code ok}, {@code failed} (with the failure) or {@code stalled} (the
 * sled's loop did not answer in time, with a message), and which sled of which rack answers,
 * what a client names in every signed request (issue 36). {@code loop_ms} is how long the loop
 * took to answer, when it did.
 */
public record Health(String status, String sled, @JsonProperty("rack_id") String rackId,
        @JsonInclude(JsonInclude.Include.NON_NULL) @JsonProperty("loop_ms") Double loopMs,
        @JsonInclude(JsonInclude.Include.NON_NULL) String failure,
        @JsonInclude(JsonInclude.Include.NON_NULL) String message) {
}
