package sush.ops.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonUnwrapped;

/**
 * The data of one {@code GET /events} event: a status change ({@code job_id}, the reporting
 * {@code baseboard} and the status's fields), a raised floor ({@code cause}) or an error (the
 * status's {@code error} and {@code detail} alone); and the sled that tells it.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Event(@JsonProperty("job_id") String jobId, String baseboard, @JsonUnwrapped SledStatus status,
        String cause, String sled) {
}
