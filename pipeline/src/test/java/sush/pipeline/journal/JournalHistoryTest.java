package sush.pipeline.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import sush.gossip.Entropy;
import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.pipeline.Rack;
import sush.projections.fold.JobStatus;
import sush.projections.fold.StatusProjection;
import sush.projections.id.JobId;
import sush.projections.job.SignedJob;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;

/**
 * Issue 39: a job's statuses read back from the journal of the sled that delivered them, in
 * every life it kept, sealed or not, while the journal is still open for writing.
 */
class JournalHistoryTest {
    private static final byte[] KEY = new byte[32];

    @TempDir
    Path dir;

    private Version at = Version.ZERO;

    private JournalRecord.Delivered delivered(Message m) {
        at = at.tick(Id.ONE);
        return new JournalRecord.Delivered(at, MessageCodec.encode(m));
    }

    private static Message stopped(String sled, JobId job, int code) {
        return new Message.JobStopped(sled, job, code, null, 0, new byte[32], 0, new byte[32]);
    }

    @Test
    void aJobsStatusesComeBackFromEveryLifeOfTheJournalAndNoOtherJobs() throws Exception {
        List<SignedJob> jobs = Rack.jobs(Rack.session(1), 2, "h", "*");
        JobId first = jobs.get(0).request().job();
        JobId second = jobs.get(1).request().job();
        for (Optional<byte[]> key : List.of(Optional.<byte[]>empty(), Optional.of(KEY))) {
            Path at = dir.resolve(key.isPresent() ? "sealed" : "plain");
            try (Journal j = Journal.open(at, key, Entropy.seeded(1))) {
                j.append(delivered(new Message.JobStart(jobs.get(0))));
                j.append(delivered(new Message.JobStarted("p:a", first)));
                j.append(delivered(new Message.JobStarted("p:b", first)));
                j.append(delivered(new Message.JobStarted("p:a", second)));
                j.append(new JournalRecord.Decision(JournalRecord.Decision.Kind.ERROR, "", "not a delivery"));
            }
            // A later life: the job's endings, delivered after a restart.
            try (Journal j = Journal.open(at, key, Entropy.seeded(2))) {
                j.append(delivered(stopped("p:a", first, 0)));
                j.append(delivered(stopped("p:b", first, 3)));
                StatusProjection s = JournalHistory.statuses(j, first);
                assertEquals(JobStatus.STOPPED, s.status(first, "p:a").orElseThrow().status());
                assertEquals(3, ((Message.JobStopped) s.status(first, "p:b").orElseThrow().message()).exitCode());
                assertEquals(List.of(first), s.jobs(), "only the job asked about");
                j.append(delivered(stopped("p:a", second, 0)));
                assertEquals(JobStatus.STOPPED, JournalHistory.statuses(j, second).status(second, "p:a").orElseThrow()
                        .status(), "what was appended since is read too");
                assertTrue(JournalHistory.statuses(j, Rack.jobs(Rack.session(2), 1, "x", "*").get(0).request().job())
                        .jobs().isEmpty());
            }
        }
    }
}
