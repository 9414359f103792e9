package sush.ops.cli;

import java.util.Optional;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import sush.ops.wire.Answers;
import sush.ops.wire.StatusReport;
import sush.projections.id.JobId;
import tools.jackson.databind.JsonNode;

/**
 * {@code sush job status}: a job's status on every sled, once or followed ({@code --wait}); exits 0
 * only when every sled stopped it with exit 0.
 */
@Command(name = "status", description = "Show (or follow with --wait) a job's status on every sled.")
final class JobStatusCommand implements Callable<Integer> {
    @Mixin
    Global g;
    @Option(names = "--wait", description = "follow the job until every sled reporting it ended it")
    boolean await;
    @Option(names = "--full", description = "every field of every status")
    boolean full;
    @Option(names = "--receipts", description = "and the sleds' signed receipts of the job (`sush audit verify` "
            + "checks them)")
    boolean receipts;
    @Parameters(paramLabel = "ID", description = "the job's id (a codephrase)")
    String id;

    @Override
    public Integer call() {
        try {
            JobId job = JobCommand.jobId(id);
            if (await) {
                return JobStatuses.waitFor(g, job, null, Optional.empty());
            }
            JsonNode s = g.client().get("/jobs/" + job.codephrase() + "/status");
            StatusReport r = Client.read(s, StatusReport.class);
            String lines = JobStatuses.render(r.statuses(), full);
            if (r.waves() != null) {
                lines = WaveOptions.progress(r.waves()) + (lines.isEmpty() ? "" : "\n" + lines);
            }
            if (receipts) {
                JsonNode got = g.client().get("/jobs/" + job.codephrase() + "/receipts");
                StringBuilder b = new StringBuilder(lines).append("\nreceipts (signed, not checked here):");
                for (Answers.Receipt x : Client.read(got, Answers.Receipts.class).receipts()) {
                    b.append("\n  ").append(Client.printable(Said.text(x.sled()))).append("  ").append(Client.printable(
                            Said.text(x.body()).replace("\n", " ").replace(sush.projections.job.Receipt.HEADER + " ", "")));
                }
                lines = b.toString();
                ((tools.jackson.databind.node.ObjectNode) s).set("receipts", got.get("receipts"));
            }
            g.print(s, lines);
            return JobStatuses.allZero(r.statuses()) ? 0 : 5;
        } catch (Client.Failure f) {
            return g.fail(f);
        }
    }
}
