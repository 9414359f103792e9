package sush.ops.cli;

/** Test access to {@link DaemonCommand}'s package-private helpers. */
public final class DaemonCommandAccess {
    private DaemonCommandAccess() {
    }

    /** Whether SIGHUP is ignored in this process. */
    public static boolean hangupIgnored() {
        return DaemonCommand.hangupIgnoredAtStart();
    }

    /** Whether the daemons this process starts keep SIGHUP ignored: it is, and env cannot restore it. */
    public static boolean daemonsInheritIgnoredHangup() {
        return hangupIgnored() && RackCommand.hangupRestored(true).isEmpty();
    }
}
