package sush.projections.job;

import java.util.Arrays;
import java.util.Objects;

/** A grant with its signer's signature over {@link Grant#digest()}; the signer is {@code grant.signer()}. */
public record SignedGrant(Grant grant, SignatureAlgorithm algorithm, byte[] signature) {
    public SignedGrant {
        Objects.requireNonNull(grant, "grant");
        Objects.requireNonNull(algorithm, "algorithm");
        signature = signature.clone();
    }

    @Override
    public byte[] signature() {
        return signature.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SignedGrant && grant.equals(((SignedGrant) o).grant)
                && algorithm == ((SignedGrant) o).algorithm && Arrays.equals(signature, ((SignedGrant) o).signature);
    }

    @Override
    public int hashCode() {
        return 31 * grant.hashCode() + Arrays.hashCode(signature);
    }
}
