package sush.ops.wire;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;

/** {@code GET /versions}: every sled's announcement as the answering sled knows it. */
public record Versions(List<Sled> sleds) {

    /** One sled's announcement: where it sits, its build, and its API address when it announced one. */
    public record Sled(String baseboard, Integer cubby, String software,
            @JsonInclude(JsonInclude.Include.NON_NULL) String api) {
    }
}
