package sush.projections.job;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;

import sush.projections.id.KeyId;

/**
 * An operator's change of the signer keys the rack trusts (issue 41, D-062): {@code add} trusts
 * the key whose SubjectPublicKeyInfo is {@code spki}; otherwise it revokes key {@code key} for
 * good (a revoked key is never trusted again, whatever order the changes arrive in). Signed by the
 * operator's SSH key ({@code operatorKey}, an OpenSSH public key blob) over {@link #body()}.
 */
public record SignerTrust(boolean add, KeyId key, byte[] spki, String id, byte[] operatorKey, byte[] signature) {
    public SignerTrust {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(id, "id");
        if (!id.matches("[0-9a-f]{8,64}")) {
            throw new IllegalArgumentException("a change's id is 8 to 64 lower-case hex digits");
        }
        spki = spki.clone();
        operatorKey = operatorKey.clone();
        signature = signature.clone();
    }

    /** What the operator signs: the change alone. */
    public byte[] body() {
        return body(add, key, spki, id);
    }

    /** The signed text of a change. */
    public static byte[] body(boolean add, KeyId key, byte[] spki, String id) {
        return ("sush-signer-trust-v1\naction=" + (add ? "add" : "revoke") + "\nkey=" + key.codephrase() + "\nspki="
                + Base64.getEncoder().encodeToString(spki) + "\nid=" + id + "\n").getBytes(StandardCharsets.US_ASCII);
    }

    /** The SubjectPublicKeyInfo of a signer's public key in PEM (as {@code sush keygen} writes it). */
    public static byte[] spkiOfPem(String pem) throws KeyException {
        byte[] der = Keys.fromPem(Keys.PUBLIC_LABEL, pem);
        Keys.publicFromSpki(der); // an Ed25519 or P-256 key, or a KeyException
        return der;
    }

    /** The key id of a SubjectPublicKeyInfo, as jobs and grants name their signer. */
    public static KeyId keyIdOf(byte[] spki) {
        return Keys.keyId(spki);
    }

    @Override
    public byte[] spki() {
        return spki.clone();
    }

    @Override
    public byte[] operatorKey() {
        return operatorKey.clone();
    }

    @Override
    public byte[] signature() {
        return signature.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SignerTrust && Arrays.equals(((SignerTrust) o).body(), body())
                && Arrays.equals(((SignerTrust) o).operatorKey, operatorKey)
                && Arrays.equals(((SignerTrust) o).signature, signature);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(body()) * 31 + Arrays.hashCode(signature);
    }

    @Override
    public String toString() {
        return "SignerTrust[" + (add ? "add " : "revoke ") + key.codephrase() + ", id " + id + "]";
    }
}
