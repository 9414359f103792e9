package sush.projections.id;

/** Identifies a signer key: truncated SHA3-256 of the key's DER encoding. */
public final class KeyId extends Id88 {
    public KeyId(byte[] bytes) {
        super(bytes);
    }

    /** Parses a codephrase (words joined by hyphens or spaces, any case). */
    public static KeyId parse(String codephrase) throws IdException {
        return new KeyId(Id88.parseBytes(codephrase));
    }
}
