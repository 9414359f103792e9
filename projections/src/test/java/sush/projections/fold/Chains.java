package sush.projections.fold;

import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.KeyId;
import sush.projections.id.SessionId;
import sush.projections.job.JobRequest;
import sush.projections.job.SignatureAlgorithm;
import sush.projections.job.SignedJob;

/** Test fixture: a chain of jobs of one session, job i at the successor of job i-1. */
final class Chains {
    private Chains() {
    }

    /** A signer and a trust store holding its public key, for folds that check signatures. */
    static final sush.projections.job.SignerKey KEY = sush.projections.job.SignerKey.generate(
            SignatureAlgorithm.ED25519, new java.security.SecureRandom());
    static final sush.projections.job.TrustStore TRUST = trust();

    private static sush.projections.job.TrustStore trust() {
        try {
            return sush.projections.job.TrustStore.of(java.util.List.of(KEY.publicPem()));
        } catch (sush.projections.job.KeyException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The same chain, signed by {@link #KEY}. */
    static SignedJob[] signed(SessionId session, String... targets) {
        SignedJob[] jobs = of(session, targets);
        for (int i = 0; i < jobs.length; i++) {
            jobs[i] = KEY.sign(jobs[i].request());
        }
        return jobs;
    }

    static SignedJob[] of(SessionId session, String... targets) {
        SignedJob[] jobs = new SignedJob[targets.length];
        JobId at = Chain.first(session);
        for (int i = 0; i < targets.length; i++) {
            JobRequest r = new JobRequest(session, at, "echo " + i, targets[i], false);
            jobs[i] = new SignedJob(r, new KeyId(new byte[11]), SignatureAlgorithm.ED25519, new byte[64]);
            at = r.successor();
        }
        return jobs;
    }
}
