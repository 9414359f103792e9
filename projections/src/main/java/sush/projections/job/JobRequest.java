package sush.projections.job;

import java.nio.charset.StandardCharsets;

import sush.projections.id.Chain;
import sush.projections.id.Hashes;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;

/**
 * What an operator asks a rack to run, before signing: the session, the job's chain position,
 * the command ({@code bash -c} text), the target, and whether it may run beside the previous job
 * (default false: on each sled it waits for the previous job it ran to end).
 */
public record JobRequest(SessionId session, JobId job, String command, String target, boolean concurrent) {
    static final String DIGEST_TAG = "sush-job-v1";

    /**
     * The to-be-signed digest: SHA3-256 over labelled, length-prefixed fields in a fixed order,
     * defaults included, so the signature and the chain commit to every byte the signer approved.
     */
    public byte[] digest() {
        return Hashes.sha3(DIGEST_TAG,
                label("session"), session.toBytes(),
                label("job"), job.toBytes(),
                label("command"), command.getBytes(StandardCharsets.UTF_8),
                label("target"), target.getBytes(StandardCharsets.UTF_8),
                label("concurrent"), new byte[] {(byte) (concurrent ? 1 : 0)});
    }

    /** The chain position after this job. */
    public JobId successor() {
        return Chain.next(digest());
    }

    private static byte[] label(String name) {
        return name.getBytes(StandardCharsets.UTF_8);
    }
}
