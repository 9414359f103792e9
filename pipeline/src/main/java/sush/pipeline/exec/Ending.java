package sush.pipeline.exec;

import java.util.List;

/** How a launched job ended. */
public sealed interface Ending {
    /** Why the launcher killed a job. */
    enum Cause {
        /** An operator's stop request. */
        STOP,
        /** The wall-time limit. */
        WALL_TIME,
        /** The output limit. */
        OUTPUT_LIMIT,
        /** The job's CPU-seconds rlimit (its process died of SIGXCPU). */
        CPU_LIMIT,
        /** The job's file-size rlimit (its process died of SIGXFSZ). */
        FILE_SIZE_LIMIT,
        /** A streaming job's client went away before the end. */
        CLIENT_GONE
    }

    /**
     * The process exited by itself (an exit code, or 128 + a signal nobody here sent);
     * {@code leftovers} are the processes it had started that were still running then and were
     * killed ({@code pid command-line} each).
     */
    record Exited(int code, Output output, List<String> leftovers) implements Ending {
        public Exited {
            leftovers = List.copyOf(leftovers);
        }

        public Exited(int code, Output output) {
            this(code, output, List.of());
        }
    }

    /**
     * The launcher killed the job; {@code signal} is the last signal sent to its first process,
     * {@code leftovers} the other processes of the job that were killed.
     */
    record Killed(int signal, Cause cause, Output output, List<String> leftovers) implements Ending {
        public Killed {
            leftovers = List.copyOf(leftovers);
        }

        public Killed(int signal, Cause cause, Output output) {
            this(signal, cause, output, List.of());
        }
    }

    /** The job could not be started or its output could not be kept. */
    record Failed(Kind kind, String reason) implements Ending {
        /** Where it failed. */
        public enum Kind {
            /** Preparing the output directory or files. */
            IO,
            /** Starting the process. */
            SPAWN
        }
    }
}
