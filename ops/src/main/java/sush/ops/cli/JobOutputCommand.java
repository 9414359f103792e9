package sush.ops.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import sush.ops.wire.SledStatus;

/**
 * {@code sush job output}: a sled's recorded output of a job, whole (verified against the hash in
 * that sled's status before any of it is shown) or one byte range as served.
 */
@Command(name = "output", description = "A sled's recorded output of a job, fetched through the --url sled "
        + "(any sled answers for any sled) and verified against the hash in that sled's status before any of it "
        + "is shown or named.")
final class JobOutputCommand implements Callable<Integer> {
    @Mixin
    Global g;
    @Option(names = "--sled", required = true, description = "the sled that ran the job (its baseboard)")
    String sled;
    @Option(names = "--stderr", description = "the job's standard error instead of its standard output")
    boolean stderr;
    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "write it to FILE instead of standard "
            + "output: fetched in parallel ranges, with a progress bar on a terminal; FILE appears only once "
            + "verified")
    Path file;
    @Option(names = "--parallel", defaultValue = "4", description = "ranges fetched at once (1 to "
            + Download.MAX_PARALLEL + "; default: ${DEFAULT-VALUE}); a range is at least 1 MiB")
    int parallel;
    @Option(names = "--range", paramLabel = "FIRST-LAST", description = "only these bytes, as HTTP ranges "
            + "say them: 0-99, 1000- (from byte 1000), -100 (the last 100); printed as served (a part cannot be "
            + "checked against the whole output's hash)")
    String range;
    @Parameters(paramLabel = "ID", description = "the job's codephrase")
    String id;

    @Override
    public Integer call() {
        try {
            String job = JobCommand.jobId(id).codephrase();
            if (range != null) {
                return part(job);
            }
            if (parallel < 1 || parallel > Download.MAX_PARALLEL) {
                throw new Client.Failure(2, "bad-parallel", "--parallel is 1 to " + Download.MAX_PARALLEL);
            }
            Client c = g.client();
            SledStatus st = JobOutputs.outputStatus(c, job, sled);
            String stream = stderr ? "stderr" : "stdout";
            long length = stderr ? st.stderrBytes() : st.stdoutBytes();
            String want = stderr ? st.stderrSha3() : st.stdoutSha3();
            String path = "/jobs/" + job + "/output/" + stream + "?sled=" + JobOutputs.query(sled);
            Invocation at = g.invocation();
            Download.Progress p = new Download.Progress(stream + " of " + sled, length,
                    at.console() && !g.json ? at.err() : null);
            if (file != null) {
                // Written where the operator's directory says; named as the operator named it.
                Download.fetch(c, path, length, want, at.path(file), parallel, p);
                g.print(Map.of("job_id", job, "sled", sled, "stream", stream, "bytes", length, "sha3", want,
                        "file", file.toString()), length + " bytes of " + stream + " from " + sled
                                + " written to " + file + " (hash verified)");
                return 0;
            }
            // To standard output: into a private temporary file first, shown only once verified.
            Path tmp = Files.createTempFile("sush-output-", ".tmp");
            try {
                Download.fetch(c, path, length, want, tmp, parallel, new Download.Progress("", length, null));
                Files.copy(tmp, at.out());
                at.out().flush();
            } finally {
                Files.deleteIfExists(tmp);
            }
            return 0;
        } catch (Client.Failure f) {
            return g.fail(f);
        } catch (IOException e) {
            return g.fail(new Client.Failure(1, "write-failed", e.getMessage()));
        }
    }

    private int part(String job) throws Client.Failure {
        byte[] b = JobOutputs.rangeOf(g.client(), job, sled, stderr, range);
        g.invocation().out().write(b, 0, b.length);
        g.invocation().out().flush();
        return 0;
    }
}
