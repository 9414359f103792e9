package sush.ops.cli;

import java.util.Map;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import sush.ops.wire.Versions;
import sush.projections.id.JobId;

/**
 * {@code sush job skip}: burns a chain position of the active session, kept with the session's
 * chain before it leaves.
 */
@Command(name = "skip", description = "Burn a chain position of the active session, or with --sled skip one sled's "
        + "part of a job (starter only).")
final class JobSkipCommand implements Callable<Integer> {
    @Mixin
    Global g;
    @Parameters(paramLabel = "ID", description = "the job's id (a codephrase)")
    String id;
    @Option(names = "--sled", paramLabel = "SLED", description = "skip only this sled's part of job ID (a cubby or a "
            + "baseboard): later waves stop waiting for it, and the sled skips it if it has not started it")
    String sled;

    @Override
    public Integer call() {
        try {
            Client c = g.client();
            if (sled != null) {
                return skipSled(c);
            }
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

    /** Issue 40: the starter skips one sled's part of the job (its cubby, named or looked up by baseboard). */
    private int skipSled(Client c) throws Client.Failure {
        JobId job = JobCommand.jobId(id);
        int cubby = -1;
        if (sled.chars().allMatch(Character::isDigit) && !sled.isEmpty() && sled.length() <= 2) {
            cubby = Integer.parseInt(sled);
        } else {
            for (Versions.Sled s : c.get("/versions", Versions.class).sleds()) {
                if (sled.equals(Said.text(s.baseboard())) && s.cubby() != null) {
                    cubby = s.cubby();
                }
            }
            if (cubby < 0) {
                throw new Client.Failure(2, "unknown-sled", "no sled " + Client.printable(sled) + " in the rack: name "
                        + "its cubby");
            }
        }
        c.post("/jobs/" + job.codephrase() + "/skip-sled/" + cubby, Map.of());
        g.print(Map.of("job_id", job.codephrase(), "cubby", cubby), "skipped cubby " + cubby + "'s part of "
                + job.codephrase());
        return 0;
    }
}
