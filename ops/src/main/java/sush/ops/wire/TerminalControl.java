package sush.ops.wire;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A text frame of an attached terminal (issue 19): from the sled, {@code size} (rows, cols and
 * whether this client writes), {@code dropped} (a message) and {@code exit} (the sled's final
 * status of the job); from the client, {@code resize} (rows, cols) and {@code detach}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TerminalControl(String type, Integer rows, Integer cols, Boolean write, String message,
        SledStatus status) {
}
