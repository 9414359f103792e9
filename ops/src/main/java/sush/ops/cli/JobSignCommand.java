package sush.ops.cli;

import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import sush.ops.wire.Json;
import sush.ops.wire.SignedRequests;

/**
 * {@code sush job sign}: signs the active session's next job, keeps it in the session's chain, and
 * prints the request for {@code sush job submit} instead of submitting it.
 */
@Command(name = "sign", description = "Sign the next job of the active session, keep it in the session's chain "
        + "(as `job start` does: the next job goes after it), and print the request for `job submit`.")
final class JobSignCommand implements Callable<Integer> {
    @Mixin
    Global g;
    @Option(names = "--target", defaultValue = "*", description = "*, cubbies (0,3), baseboards or serials")
    String target;
    @Option(names = "--concurrent", description = "may start beside the previous job on each sled")
    boolean concurrent;
    @Mixin
    LimitOptions limits;
    @Mixin
    WaveOptions waves;
    @Parameters(arity = "1..*", paramLabel = "CMD", description = "the command, as for `job start`")
    List<String> command;

    @Override
    public Integer call() {
        try {
            g.invocation().out().println(Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(
                    SignedRequests.toJson(JobRequests.signNext(g, target, concurrent, command, limits.limits(),
                            sush.projections.job.JobMode.RECORDED, waves.wave()).job())));
            return 0;
        } catch (Client.Failure f) {
            return g.fail(f);
        }
    }
}
