package sush.projections.job;

import java.util.Optional;

import sush.projections.id.SessionId;

/**
 * Decides whether a signed job carries a good signature of a trusted signer: the live sled asks
 * its {@link TrustStore}; a replay asks what the sled recorded when it decided (D-019).
 */
public interface Signatures {
    /** Empty when the signature is good, else {@code UNKNOWN_KEY} or {@code BAD_SIGNATURE}. */
    Optional<InvalidJobReason> signature(SignedJob job);

    /**
     * Empty when {@code grant} is a good grant of a trusted signer, else {@code UNKNOWN_KEY} or
     * {@code BAD_SIGNATURE} (ordered-sessions.md section 1: checked again on every sled).
     */
    Optional<InvalidJobReason> grant(SignedGrant grant);

    /**
     * An operator's change of the signer keys trusted (issue 41), folded in causal order: the live
     * sled's store applies it if the operator may make it; a replay decides from its record.
     */
    default void change(SignerTrust m) {
    }

    /** Whether {@code job}'s signer was revoked (issue 41): a job not started yet never runs then. */
    default boolean revoked(SignedJob job) {
        return false;
    }

    /**
     * The first reason to refuse {@code job} when submitted to {@code session}, or empty when it
     * may run (its chain position is checked where the chain is known).
     */
    default Optional<InvalidJobReason> check(SignedJob job, SessionId session) {
        Optional<InvalidJobReason> signature = signature(job);
        if (signature.isPresent()) {
            return signature;
        }
        if (!job.request().session().equals(session)) {
            return Optional.of(InvalidJobReason.WRONG_SESSION);
        }
        String command = job.request().command();
        if (command.isBlank() || command.startsWith("-")) {
            return Optional.of(InvalidJobReason.BAD_COMMAND);
        }
        return Optional.empty();
    }
}
