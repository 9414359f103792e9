package sush.projections.job;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import sush.projections.id.Chain;
import sush.projections.id.Hashes;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;

/**
 * What an operator asks a rack to run, before signing: the session, the job's chain position,
 * the command ({@code bash -c} text), the target, and whether it may run beside the previous job
 * (default false: on each sled it waits for the previous job it ran to end).
 */
public record JobRequest(SessionId session, JobId job, String command, String target, boolean concurrent,
        JobLimits limits, JobMode mode, JobWave wave) {
    static final String DIGEST_TAG = "sush-job-v1";
    private static final byte[] SESSION = label("session");
    private static final byte[] JOB = label("job");
    private static final byte[] COMMAND = label("command");
    private static final byte[] TARGET = label("target");
    private static final byte[] CONCURRENT = label("concurrent");
    private static final byte[] TRUE = {1};
    private static final byte[] FALSE = {0};
    private static final byte[] LIMITS = label("limits");
    private static final byte[] MODE = label("mode");
    private static final byte[] WAVE = label("wave");

    public JobRequest {
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(wave, "wave");
    }

    /** A job run on every targeted sled as it reaches it (no waves). */
    public JobRequest(SessionId session, JobId job, String command, String target, boolean concurrent,
            JobLimits limits, JobMode mode) {
        this(session, job, command, target, concurrent, limits, mode, JobWave.NONE);
    }

    /** A recorded job asking {@code limits}. */
    public JobRequest(SessionId session, JobId job, String command, String target, boolean concurrent,
            JobLimits limits) {
        this(session, job, command, target, concurrent, limits, JobMode.RECORDED);
    }

    /** A request that asks no limit of its own (the sled's defaults apply). */
    public JobRequest(SessionId session, JobId job, String command, String target, boolean concurrent) {
        this(session, job, command, target, concurrent, JobLimits.NONE);
    }

    /**
     * The to-be-signed digest: SHA3-256 over labelled, length-prefixed fields in a fixed order,
     * defaults included, so the signature and the chain commit to every byte the signer approved.
     * Limits, when asked, are one more labelled field, and so is a mode other than recorded; a
     * recorded request asking none hashes as before either existed (D-031, D-034); so do waves (D-059).
     */
    public byte[] digest() {
        if (!limits.isNone() || mode != JobMode.RECORDED || wave.isSet()) {
            List<byte[]> f = new ArrayList<>(List.of(
                    SESSION, session.toBytes(),
                    JOB, job.toBytes(),
                    COMMAND, command.getBytes(StandardCharsets.UTF_8),
                    TARGET, target.getBytes(StandardCharsets.UTF_8),
                    CONCURRENT, concurrent ? TRUE : FALSE));
            if (!limits.isNone()) {
                f.add(LIMITS);
                f.add(limits.toBytes());
            }
            if (mode != JobMode.RECORDED) {
                // D-034: a mode other than recorded is one more labelled field, after the limits.
                f.add(MODE);
                f.add(mode.wire().getBytes(StandardCharsets.UTF_8));
            }
            if (wave.isSet()) {
                // D-059: waves and their budget are one more labelled field, after the mode.
                f.add(WAVE);
                f.add(wave.toBytes());
            }
            return Hashes.sha3(DIGEST_TAG, f.toArray(new byte[0][]));
        }
        return Hashes.sha3(DIGEST_TAG,
                SESSION, session.toBytes(),
                JOB, job.toBytes(),
                COMMAND, command.getBytes(StandardCharsets.UTF_8),
                TARGET, target.getBytes(StandardCharsets.UTF_8),
                CONCURRENT, concurrent ? TRUE : FALSE);
    }

    /** The chain position after this job. */
    public JobId successor() {
        return Chain.next(digest());
    }

    private static byte[] label(String name) {
        return name.getBytes(StandardCharsets.UTF_8);
    }
}
