package sush.projections.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import sush.projections.fixtures.Jobs;
import sush.projections.fixtures.Signers;
import sush.projections.id.Chain;
import sush.projections.id.KeyId;
import sush.projections.id.SessionId;
import sush.projections.message.Message;
import sush.projections.message.MessageCodec;

/**
 * Issue 41 (D-062): the signer keys a sled trusts change by operators' signed changes. A change
 * its authorizer refuses changes nothing; an addition trusts the key it carries (and only if the
 * id is that key's); a revocation refuses the key's jobs and grants for good, whatever order the
 * changes arrive in; remembered verdicts do not outlive a change; the change travels intact.
 */
class SignerTrustTest {
    private static final SessionId SESSION = new SessionId(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});

    private static SignerTrust add(SignerKey k, String id) throws KeyException {
        byte[] spki = SignerTrust.spkiOfPem(k.publicPem());
        return new SignerTrust(true, SignerTrust.keyIdOf(spki), spki, id, new byte[] {1}, new byte[] {2});
    }

    private static SignerTrust revoke(SignerKey k, String id) throws KeyException {
        return new SignerTrust(false, SignerTrust.keyIdOf(SignerTrust.spkiOfPem(k.publicPem())), new byte[0], id,
                new byte[] {1}, new byte[] {2});
    }

    private static SignedJob job(SignerKey k) {
        return Jobs.at(k, SESSION, Chain.first(SESSION), "uptime", "*", false);
    }

    @Test
    void onlyAuthorizedChangesApplyAndRevocationsWinInAnyOrder() throws Exception {
        TrustStore t = TrustStore.of(List.of(Signers.KEY.publicPem()));
        SignedJob stranger = job(Signers.STRANGER);
        assertEquals(Optional.of(InvalidJobReason.UNKNOWN_KEY), t.signature(stranger));
        assertFalse(t.apply(add(Signers.STRANGER, "00000001")), "no authorizer: nothing changes");
        t.authorizingChangesWith(c -> true);
        assertTrue(t.apply(add(Signers.STRANGER, "00000002")));
        assertEquals(Optional.empty(), t.signature(stranger), "the verdict remembered before the change is gone");
        // An addition whose id is not its key's is not applied.
        SignerTrust lying = new SignerTrust(true, new KeyId(new byte[11]), SignerTrust.spkiOfPem(Signers.KEY
                .publicPem()), "00000003", new byte[] {1}, new byte[] {2});
        assertFalse(t.apply(lying));
        // Revoked: its jobs and grants refused, never added again.
        assertTrue(t.apply(revoke(Signers.KEY, "00000004")));
        assertEquals(Optional.of(InvalidJobReason.REVOKED_SIGNER), t.signature(job(Signers.KEY)));
        assertTrue(t.revoked(job(Signers.KEY)));
        assertFalse(t.apply(add(Signers.KEY, "00000005")), "a revoked key is never trusted again");
        assertEquals(Optional.of(InvalidJobReason.REVOKED_SIGNER), t.signature(job(Signers.KEY)));
        // The other order on another sled: the same keys trusted.
        TrustStore u = TrustStore.of(List.of()).authorizingChangesWith(c -> true);
        u.apply(revoke(Signers.STRANGER, "00000006"));
        u.apply(add(Signers.STRANGER, "00000007"));
        TrustStore v = TrustStore.of(List.of()).authorizingChangesWith(c -> true);
        v.apply(add(Signers.STRANGER, "00000007"));
        v.apply(revoke(Signers.STRANGER, "00000006"));
        assertEquals(u.keyIds(), v.keyIds());
        assertEquals(u.revokedKeyIds(), v.revokedKeyIds());
        assertEquals(Optional.of(InvalidJobReason.REVOKED_SIGNER), u.signature(stranger));
        assertEquals(Optional.of(InvalidJobReason.REVOKED_SIGNER), v.signature(stranger));
    }

    @Test
    void aChangeTravelsIntactAndABadOneIsRefused() throws Exception {
        Message.TrustChange m = new Message.TrustChange(add(Signers.STRANGER, "0123456789abcdef"));
        assertEquals(m, MessageCodec.decode(MessageCodec.encode(m)));
        Message.TrustChange r = new Message.TrustChange(revoke(Signers.KEY, "fedcba9876543210"));
        assertEquals(r, MessageCodec.decode(MessageCodec.encode(r)));
        assertThrows(IllegalArgumentException.class, () -> add(Signers.KEY, "not hex"));
        assertTrue(new String(m.change().body(), java.nio.charset.StandardCharsets.US_ASCII).startsWith(
                "sush-signer-trust-v1\naction=add\n"));
    }
}
