package sush.projections.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;

import org.junit.jupiter.api.Test;

import sush.projections.id.Chain;
import sush.projections.id.KeyId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;

/**
 * Where a generation of remembered verdicts ends: exactly at its count, or exactly when the
 * bytes it accounts reach 8 MiB, a job's command and target counted alike. The jobs here name a
 * key the store does not trust: each verdict (a refusal) is remembered all the same, without a
 * signature to check, so that generations fill in milliseconds.
 */
class TrustStoreTest {
    private static final SessionId S = SessionIds.compute("p:s", new byte[SessionIds.NONCE_BYTES], new byte[] {1});

    private static SignedJob unsigned(String command, String target) {
        return new SignedJob(new JobRequest(S, Chain.first(S), command, target, false), new KeyId(new byte[11]),
                SignatureAlgorithm.ED25519, new byte[64]);
    }

    /** {@code n} distinct characters of text: a fixed filler and the number {@code i}. */
    private static String text(int n, int i) {
        String number = String.format("%06d", i);
        return "x".repeat(n - number.length()) + number;
    }

    @Test
    void aGenerationEndsAtItsCount() throws KeyException {
        TrustStore trust = TrustStore.of(List.of());
        int n = TrustStore.VERDICTS_PER_GENERATION;
        for (int i = 0; i < 2 * n; i++) {
            assertFalse(trust.signatureValid(unsigned("echo " + i, "*")));
        }
        assertEquals(n, trust.remembered(), "two full generations: the older is forgotten, the newer kept");
    }

    @Test
    void aGenerationEndsWhenItsBytesReach8MibCommandsAndTargetsAlike() throws KeyException {
        // 256 + 2 * (command + target) = 4096 bytes a verdict: 2048 verdicts fill 8 MiB exactly.
        int perGeneration = (int) (TrustStore.VERDICT_BYTES_PER_GENERATION / 4096);
        for (boolean longTargets : new boolean[] {false, true}) {
            TrustStore trust = TrustStore.of(List.of());
            for (int i = 0; i < 2 * perGeneration; i++) {
                SignedJob j = longTargets ? unsigned("true", text(1916, i)) : unsigned(text(1919, i), "*");
                assertFalse(trust.signatureValid(j));
            }
            assertEquals(perGeneration, trust.remembered(), longTargets ? "long targets" : "long commands");
        }
    }
}
