package sush.projections.id;

/** Identifies a job: its position in its session's hash chain. */
public final class JobId extends Id88 {
    public JobId(byte[] bytes) {
        super(bytes);
    }

    /** Parses a codephrase (words joined by hyphens or spaces, any case). */
    public static JobId parse(String codephrase) throws IdException {
        return new JobId(Id88.parseBytes(codephrase));
    }
}
