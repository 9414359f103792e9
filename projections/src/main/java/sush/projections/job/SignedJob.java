package sush.projections.job;

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
}
