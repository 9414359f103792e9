package sush.projections.id;

/**
 * The job hash chain of a session (at-most-once.md section 2): first = H("None" || session),
 * next(J) = H("Some" || digest(J)), afterBurn(j) = H("Burned" || j), H being SHA3-256 cut to
 * its low 88 bits. The chain commits to every byte the signer approved, because digest(J) is
 * the to-be-signed digest of the whole request.
 */
public final class Chain {
    private Chain() {
    }

    public static JobId first(SessionId session) {
        return new JobId(Hashes.low88(Hashes.sha3("None", session.toBytes())));
    }

    /** The position after the job whose to-be-signed digest is {@code digest}. */
    public static JobId next(byte[] digest) {
        return new JobId(Hashes.low88(Hashes.sha3("Some", digest)));
    }

    /** The position after a burnt (skipped) position. */
    public static JobId afterBurn(JobId burnt) {
        return new JobId(Hashes.low88(Hashes.sha3("Burned", burnt.toBytes())));
    }
}
