package sush.ops.wire;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

import tools.jackson.databind.JsonNode;

/**
 * {@code GET /boundary}: a sled's locker state (trusted, how its slots loaded, a change it did
 * not make), the rack's ordering, the floor and the boundary record. {@code floor} is the
 * record's floor epoch (a number) in the signed ordering and the universe floor's version (text)
 * in the causal one, so it is kept as the JSON value it is; both are null when there is none.
 */
public record Boundary(String baseboard, Boolean trusted, String load, @JsonProperty("load_reason") String loadReason,
        String changed, String ordering, JsonNode floor, Record record) {

    /**
     * The boundary record: in the signed ordering its floor epoch and last committed job; in the
     * causal one its universe, what it executed there, its last committed job, the universes it
     * recently left, how full its Bloom filter of burned ones is, and whether it is amnesiac.
     * {@code committed} is null when nothing was committed.
     */
    public record Record(@JsonInclude(JsonInclude.Include.NON_NULL) @JsonProperty("floor_epoch") Long floorEpoch,
            @JsonInclude(JsonInclude.Include.NON_NULL) String network,
            @JsonInclude(JsonInclude.Include.NON_NULL) String executed, Committed committed,
            @JsonInclude(JsonInclude.Include.NON_NULL) List<String> recent,
            @JsonInclude(JsonInclude.Include.NON_NULL) @JsonProperty("bloom_bits_set") Integer bloomBitsSet,
            @JsonInclude(JsonInclude.Include.NON_NULL) Boolean amnesiac) {
    }

    /**
     * A committed job as either ordering's record shows it: its session, id and successor, its
     * outcome ({@code committed} until it ended) and code; the session's epoch and signer in the
     * signed ordering.
     */
    public record Committed(String session, String job, String successor, String outcome, Long code,
            @JsonInclude(JsonInclude.Include.NON_NULL) Long epoch,
            @JsonInclude(JsonInclude.Include.NON_NULL) String signer) {
    }
}
