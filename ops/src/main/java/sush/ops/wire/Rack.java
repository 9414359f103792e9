package sush.ops.wire;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

import tools.jackson.databind.JsonNode;

/** {@code GET /rack} (D-035): every announced sled's entry in one answer, by baseboard, and who served it. */
public record Rack(@JsonProperty("served_by") String servedBy, List<Entry> sleds) {

    /**
     * One sled's entry: as announced ({@code api} null when it announced none), whether it
     * answered, and its own {@code /version} and {@code /boundary} as it answered them (kept as
     * the JSON it sent: a sled of another build may say more) or the error that kept them.
     */
    public record Entry(String baseboard, Integer cubby, String software, String api, Boolean reachable,
            @JsonInclude(JsonInclude.Include.NON_NULL) JsonNode version,
            @JsonInclude(JsonInclude.Include.NON_NULL) JsonNode boundary,
            @JsonInclude(JsonInclude.Include.NON_NULL) String error) {
    }
}
