package sush.ops.cli;

import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import sush.projections.id.IdException;
import sush.projections.id.JobId;

/** {@code sush job start|sign|submit|status|history|stop|skip|output|attach|plan}. */
@Command(name = "job", description = "Sign, submit, follow and stop jobs.",
        subcommands = {JobStartCommand.class, JobSignCommand.class, JobSubmitCommand.class, JobStatusCommand.class,
                JobHistoryCommand.class, JobStopCommand.class, JobSkipCommand.class, JobOutputCommand.class,
                JobAttachCommand.class, JobPlanCommand.class})
public final class JobCommand implements Callable<Integer> {
    static final List<String> TERMINAL = List.of("stopped", "error", "cancelled", "skipped", "interrupted");

    /** Where this command runs: its usage is printed on the invocation's standard output. */
    private final Invocation invocation;

    JobCommand(Invocation invocation) {
        this.invocation = invocation;
    }

    @Override
    public Integer call() {
        invocation.usage(this);
        return 0;
    }

    /** A job id from its codephrase; a malformed one is a refusal (exit 2). */
    static JobId jobId(String phrase) throws Client.Failure {
        try {
            return JobId.parse(phrase);
        } catch (IdException e) {
            throw new Client.Failure(2, "bad-codephrase", e.getMessage());
        }
    }
}
