package sush.projections.job;

import java.util.Arrays;

import sush.projections.id.KeyId;

/** A job request with the signature of a signer key over its to-be-signed digest. */
public record SignedJob(JobRequest request, KeyId key, SignatureAlgorithm algorithm, byte[] signature) {
    public SignedJob {
        signature = signature.clone();
    }

    @Override
    public byte[] signature() {
        return signature.clone();
    }

    /** Equal when every field is, the signature by content. */
    @Override
    public boolean equals(Object o) {
        return o instanceof SignedJob && request.equals(((SignedJob) o).request) && key.equals(((SignedJob) o).key)
                && algorithm == ((SignedJob) o).algorithm && Arrays.equals(signature, ((SignedJob) o).signature);
    }

    @Override
    public int hashCode() {
        return 31 * request.hashCode() + Arrays.hashCode(signature);
    }
}
