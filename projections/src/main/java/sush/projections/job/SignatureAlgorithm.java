package sush.projections.job;

/** The signer key types a rack trusts. */
public enum SignatureAlgorithm {
    /** Ed25519 (RFC 8032), the default. */
    ED25519,
    /** ECDSA over P-256 with SHA-256, deterministic nonces (RFC 6979), DER signatures. */
    ECDSA_P256
}
