package sush.ops.cli;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import sush.projections.id.JobId;

/**
 * {@code sush job stop}: stops a job wherever it runs, keeping the stop with the session's chain
 * when this client keeps the job's request (so {@code session resume} sends it again).
 */
@Command(name = "stop", description = "Stop (kill) a job wherever it runs.")
final class JobStopCommand implements Callable<Integer> {
    @Mixin
    Global g;
    @Parameters(paramLabel = "ID", description = "the job's id (a codephrase)")
    String id;

    @Override
    public Integer call() {
        try {
            Client c = g.client();
            JobId job = JobCommand.jobId(id);
            // Kept with the session's chain when this client keeps it: `session resume` sends
            // the stop again, so a whole-rack cold boot cannot lose it.
            Optional<SessionStore.Kept> kept = JobRequests.keptHolding(g, c, job);
            if (kept.isPresent()) {
                kept.get().keepStop(job);
            }
            try {
                c.post("/jobs/" + job.codephrase() + "/stop", Map.of());
            } catch (Client.Failure f) {
                if (kept.isPresent() && f.exit() != 3 && f.exit() != 130) {
                    kept.get().forgetLast();
                }
                throw f;
            }
            g.print(Map.of("job_id", id, "stopping", true), "stopping " + id);
            return 0;
        } catch (Client.Failure f) {
            return g.fail(f);
        }
    }
}
