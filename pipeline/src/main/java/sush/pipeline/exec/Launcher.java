package sush.pipeline.exec;

import reactor.core.publisher.Mono;
import sush.projections.id.JobId;

/**
 * Starts committed jobs. The daemon's is {@link ProcessLauncher}; the simulator's records
 * executions in a ledger instead. A launch never blocks the sled: the ending arrives later.
 */
public interface Launcher {
    /** Starts the job; failures to start are reported as a {@link Ending.Failed} ending. */
    Running launch(LaunchRequest request);

    /** A launched job. */
    interface Running {
        JobId job();

        /** Completes once with the ending, after the output is complete. */
        Mono<Ending> ending();

        /** Stops the job (SIGTERM to its group, SIGKILL after the grace); idempotent. */
        void stop();
    }
}
