package sush.ops.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import sush.ops.wire.Json;
import sush.ops.wire.SignedRequests;
import sush.projections.job.SignedJob;

/**
 * {@code sush job submit}: submits a request {@code sush job sign} made, once it stands in its
 * session's kept chain.
 */
@Command(name = "submit", description = "Submit a signed request made by `sush job sign` (kept in its session's "
        + "chain: a request at a position the chain gives another request is refused here).")
final class JobSubmitCommand implements Callable<Integer> {
    @Mixin
    Global g;
    @Parameters(paramLabel = "REQUEST", description = "a file holding the JSON `sush job sign` printed")
    Path file;

    @Override
    public Integer call() {
        SignedJob job;
        try {
            job = SignedRequests.fromJson(Json.MAPPER.readTree(Files.readString(g.invocation().path(file))));
        } catch (IOException | RuntimeException | SignedRequests.BadRequest e) {
            return g.fail(new Client.Failure(2, "bad-request-file", "cannot read " + file + ": " + e.getMessage()));
        }
        try {
            Client c = g.client();
            JobRequests.Placed p = JobRequests.kept(c, SessionStore.of(g, c), job);
            String id = job.request().job().codephrase();
            JobRequests.submit(c, p);
            g.print(Map.of("job_id", id), id);
            return 0;
        } catch (Client.Failure f) {
            return g.fail(f);
        }
    }
}
