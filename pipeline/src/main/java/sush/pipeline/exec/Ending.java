package sush.pipeline.exec;

/** How a launched job ended. */
public sealed interface Ending {
    /** Why the launcher killed a job. */
    enum Cause {
        /** An operator's stop request. */
        STOP,
        /** The wall-time limit. */
        WALL_TIME,
        /** The output limit. */
        OUTPUT_LIMIT
    }

    /** The process exited by itself (an exit code, or 128 + a signal nobody here sent). */
    record Exited(int code, Output output) implements Ending {
    }

    /** The launcher killed the process group; {@code signal} is the last signal sent. */
    record Killed(int signal, Cause cause, Output output) implements Ending {
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
