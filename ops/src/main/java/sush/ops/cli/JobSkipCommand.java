package sush.ops.cli;

import java.util.Map;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import sush.projections.id.JobId;

/**
 * {@code sush job skip}: burns a chain position of the active session, kept with the session's
 * chain before it leaves.
 */
@Command(name = "skip", description = "Burn a chain position of the active session (starter only).")
final class JobSkipCommand implements Callable<Integer> {
    @Mixin
    Global g;
    @Parameters(paramLabel = "ID", description = "the job's id (a codephrase)")
    String id;

    @Override
    public Integer call() {
        try {
            Client c = g.client();
            String session = SessionCommand.active(c);
            if (session == null) {
                throw new Client.Failure(4, "no-session", "no session is active");
            }
            JobId position = JobCommand.jobId(id);
            // Kept with the session's chain before it leaves: placement walks over it, and
            // `session resume` sends it again.
            SessionStore.Kept kept = SessionStore.of(g, c).chain(SessionCommand.sessionId(session));
            kept.keepBurn(position);
            try {
                c.post("/sessions/" + session + "/skip/" + position.codephrase(), Map.of());
            } catch (Client.Failure f) {
                if (f.exit() != 3 && f.exit() != 130) {
                    kept.forgetLast();
                }
                throw f;
            }
            g.print(Map.of("burnt", id), "burnt " + id);
            return 0;
        } catch (Client.Failure f) {
            return g.fail(f);
        }
    }
}
