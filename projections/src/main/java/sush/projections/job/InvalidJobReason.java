package sush.projections.job;

/** Why a sled refuses to run a signed job ({@code JobError{InvalidJob}}); nothing runs. */
public enum InvalidJobReason {
    /** Signed by a key this sled does not trust. */
    UNKNOWN_KEY,
    /** The signature does not verify over the request's digest. */
    BAD_SIGNATURE,
    /** The request names another session than the one it was submitted to. */
    WRONG_SESSION,
    /** The job id is not the chain position it claims to fill. */
    NOT_CHAIN_POSITION,
    /** The command is empty or starts with '-' (it would be read as an option). */
    BAD_COMMAND,
    /** Signed by a key an operator revoked rack-wide (issue 41): from the revocation on, never run. */
    REVOKED_SIGNER
}
