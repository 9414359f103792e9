package sush.ops.cli;

import java.io.BufferedOutputStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import sush.projections.job.JobMode;
import sush.projections.job.JobWave;
import sush.projections.job.SignedJob;

/**
 * {@code sush job start}: signs the active session's next job and submits it; then, as asked,
 * attaches to it (interactive), receives its stream, or follows it until every targeted sled ended it.
 */
@Command(name = "start", description = "Sign and submit a job (starts a session if none is active).")
final class JobStartCommand implements Callable<Integer> {
    @Mixin
    Global g;
    @Option(names = "--target", defaultValue = "*", description = "*, cubbies (0,3), baseboards or serials")
    String target;
    @Option(names = "--concurrent", description = "may start beside the previous job on each sled")
    boolean concurrent;
    @Option(names = "--wait", description = "follow the job until every targeted sled ended it")
    boolean await;
    @Option(names = "--yes", description = "sign even when --target names a baseboard or serial no sled announces")
    boolean yes;
    @Mixin
    LimitOptions limits;
    @Mixin
    WaveOptions waves;
    @Option(names = {"-i", "--interactive"}, description = "run it on a terminal on exactly one sled (--target) "
            + "and attach to it here: Ctrl-] detaches, `sush job attach` returns")
    boolean interactive;
    @Option(names = {"-S", "--stream"}, description = "stream its stdout here as it is produced, from exactly one "
            + "sled (--target), never stored there; checked against the status's hash at the end (exit 6 if not)")
    boolean stream;
    @Parameters(arity = "1..*", paramLabel = "CMD", description = "the command: one argument is a bash command "
            + "line as it is (`'ls | wc -l'`); several are an argument vector run exactly (`-- printf '%%s\\n' "
            + "'a b'`), each quoted for bash")
    List<String> command;

    @Override
    public Integer call() {
        try {
            if (interactive && stream) {
                throw new Client.Failure(2, "bad-mode", "a job is interactive (-i) or streaming (-S), not both");
            }
            if (interactive || stream) {
                OneSledJobs.oneSled(target);
            }
            JobWave wave = waves.wave();
            JobRequests.checkTarget(target);
            UnknownSleds.check(g.client(), target, yes);
            if (wave.isSet() && (interactive || stream)) {
                throw new Client.Failure(2, "bad-mode", "waves are for jobs on many sleds, not -i or -S");
            }
            JobRequests.Placed placed = JobRequests.signNext(g, target, concurrent, command, limits.limits(), interactive
                    ? JobMode.INTERACTIVE : stream ? JobMode.STREAMING : JobMode.RECORDED, wave);
            SignedJob job = placed.job();
            String id = job.request().job().codephrase();
            JobRequests.submit(g.client(), placed);
            OneSledJobs.remember(g, id);
            if (interactive) {
                return OneSledJobs.attachTo(g, id);
            }
            if (stream) {
                g.invocation().err().println(id);
                return OneSledJobs.receive(g, id, new BufferedOutputStream(g.invocation().rawOut(), 1 << 16));
            }
            if (!await) {
                g.print(Map.of("job_id", id), id);
                return 0;
            }
            if (!g.json) {
                g.invocation().out().println(id);
                if (wave.isSet()) {
                    g.invocation().out().println(WaveOptions.describe(wave, job.request().target()));
                }
            }
            return JobStatuses.waitFor(g, job.request().job(), job.request().target(),
                    Optional.of(job.request().successor()));
        } catch (Client.Failure f) {
            return g.fail(f);
        }
    }
}
