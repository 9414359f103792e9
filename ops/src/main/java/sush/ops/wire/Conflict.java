package sush.ops.wire;

/**
 * {@code Skipped{Conflict}} (ordered-sessions.md section 9): {@code reason} conflict, and the
 * successors of the request the reporter holds at the position ({@code held}) and of the one it
 * refused ({@code refused}).
 */
public record Conflict(String reason, String held, String refused) {
}
