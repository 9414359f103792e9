package sush.ops.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import sush.ops.daemon.RackFile;

/** Test access to the rack launcher's process handling. */
public final class RackAccess {
    private RackAccess() {
    }

    public static Process start(Path dir, RackFile.SledEntry s) throws java.io.IOException {
        return RackCommand.start(dir, s);
    }

    public static Process start(Path dir, RackFile.SledEntry s, java.util.List<String> prefix)
            throws java.io.IOException {
        return RackCommand.start(dir, s, prefix);
    }

    public static Process start(Path dir, RackFile.SledEntry s, java.util.List<String> prefix,
            java.util.List<String> suffix) throws java.io.IOException {
        return RackCommand.start(dir, s, prefix, suffix);
    }

    /** Starts {@code s}'s daemon from a sled config ({@code sush daemon --config FILE}). */
    public static Process startFromConfig(RackFile.SledEntry s, Path config) throws java.io.IOException {
        return RackCommand.startDaemon(s, java.util.List.of(), java.util.List.of("--config", config.toString()));
    }

    public static boolean awaitApi(String api) {
        return RackCommand.awaitApi(api, Duration.ofSeconds(60));
    }

    public static Optional<ProcessHandle> running(RackFile.SledEntry s) {
        return RackCommand.running(s);
    }
}
