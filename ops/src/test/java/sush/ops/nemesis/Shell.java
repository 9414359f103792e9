package sush.ops.nemesis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Commands the nemesis runs on this machine ({@code ip}, {@code tc}, {@code mount}, ...): each
 * bounded in time (a command that hangs is killed and said as a failure), its output kept for the
 * error it raises.
 */
final class Shell {
    /** The longest any one command may take. */
    static final Duration LIMIT = Duration.ofSeconds(20);

    private Shell() {
    }

    /** A command that failed or did not end in time, with what it said. */
    static final class Failed extends IOException {
        private static final long serialVersionUID = 1L;

        Failed(String message) {
            super(message);
        }
    }

    /** Runs {@code cmd}; its output, or {@link Failed} when it exits non-zero or outlives {@link #LIMIT}. */
    static String run(String... cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new Failed(String.join(" ", cmd) + ": no end in " + LIMIT.toSeconds() + " s");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new Failed(String.join(" ", cmd) + ": interrupted");
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new Failed(String.join(" ", cmd) + " exited " + p.exitValue() + ": " + out.strip());
        }
        return out;
    }

    /** As {@link #run}, for cleanup: a failure is returned as text (null when it worked), never thrown. */
    static String quietly(String... cmd) {
        try {
            run(cmd);
            return null;
        } catch (IOException e) {
            return e.getMessage();
        }
    }

    /** {@code cmd} run inside network namespace {@code ns}. */
    static List<String> in(String ns, List<String> cmd) {
        return Stream.concat(List.of("ip", "netns", "exec", ns).stream(), cmd.stream()).toList();
    }
}
