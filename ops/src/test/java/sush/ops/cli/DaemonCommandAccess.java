package sush.ops.cli;

/** Test access to {@link DaemonCommand}'s package-private helpers. */
public final class DaemonCommandAccess {
    private DaemonCommandAccess() {
    }

    /** Whether SIGHUP is ignored in this process (and so in every daemon it starts). */
    public static boolean hangupIgnored() {
        return DaemonCommand.hangupIgnoredAtStart();
    }
}
