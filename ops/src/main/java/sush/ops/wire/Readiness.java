package sush.ops.wire;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

import tools.jackson.databind.JsonNode;

/**
 * {@code GET /ready}: whether the sled can run jobs now, the reasons it cannot, and what it was
 * judged by. {@code universe} and {@code floor} are null when the sled has none; {@code floor}
 * is the floor epoch (a number) in the signed ordering and the floor's version (text) in the
 * causal one, so it is kept as the JSON value it is (null when said so, absent when the answer
 * has none: a {@link Stalled} one). The disk's free bytes and reserve are there when the sled
 * keeps a reserve.
 */
public record Readiness(Boolean ready, List<String> reasons, @JsonProperty("store_trusted") Boolean storeTrusted,
        String ordering, String universe, @JsonProperty("peers_connected") Integer peersConnected,
        @JsonProperty("peers_expected") Integer peersExpected, JsonNode floor,
        @JsonProperty("pending_launches") Integer pendingLaunches, Integer running,
        @JsonProperty("set_messages") Integer setMessages, @JsonProperty("set_fill") Double setFill,
        @JsonInclude(JsonInclude.Include.NON_NULL) @JsonProperty("disk_free_bytes") Long diskFreeBytes,
        @JsonInclude(JsonInclude.Include.NON_NULL) @JsonProperty("disk_reserve_bytes") Long diskReserveBytes) {

    /** The 503 of a {@code /ready} whose loop did not answer in time: not ready, and why. */
    public record Stalled(boolean ready, List<String> reasons) {
    }
}
