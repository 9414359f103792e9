package sush.projections.job;

import java.util.Locale;

/**
 * How a job's output reaches the operator (issue 19, D-034), signed into its request:
 * recorded on the sled (the default), on a terminal that clients attach to, or streamed to one
 * client and never stored. Every mode is a job at a chain position like any other, committed
 * before launch and never started twice; attaching is never running.
 */
public enum JobMode {
    /** Output kept on the sled and fetched later (every job before modes existed). */
    RECORDED,
    /** A pseudo-terminal on exactly one sled; clients attach and detach; output also recorded. */
    INTERACTIVE,
    /** Standard output goes to the one client as it is produced, never stored; its hash is in the status. */
    STREAMING;

    /** The wire and API name: {@code interactive}, {@code streaming}. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The mode named {@code wire}; an unknown name is an {@link IllegalArgumentException}. */
    public static JobMode parse(String wire) {
        for (JobMode m : values()) {
            if (m.wire().equals(wire)) {
                return m;
            }
        }
        throw new IllegalArgumentException("no job mode " + wire + " (recorded, interactive, streaming)");
    }
}
