package sush.projections.id;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

class ChainTest {
    private static final SessionId SESSION = SessionIds.compute("913-0000019:BRM42220001", new byte[32],
            "client".getBytes(StandardCharsets.UTF_8));

    @Test
    void chainPositionsAreTheSpecifiedHashes() {
        byte[] expectedFirst = Hashes.low88(Hashes.sha3("None", SESSION.toBytes()));
        assertEquals(new JobId(expectedFirst), Chain.first(SESSION));
        byte[] digest = Hashes.sha3Raw(new byte[] {1, 2, 3});
        assertEquals(new JobId(Hashes.low88(Hashes.sha3("Some", digest))), Chain.next(digest));
        JobId burnt = Chain.first(SESSION);
        assertEquals(new JobId(Hashes.low88(Hashes.sha3("Burned", burnt.toBytes()))), Chain.afterBurn(burnt));
    }

    @Test
    void theDomainTagsSeparateTheThreeKindsOfPosition() {
        JobId first = Chain.first(SESSION);
        Set<JobId> seen = new HashSet<>();
        seen.add(first);
        seen.add(Chain.next(first.toBytes()));
        seen.add(Chain.afterBurn(first));
        assertEquals(3, seen.size());
    }

    @Test
    void sessionIdsDependOnEveryInput() {
        byte[] nonce = new byte[32];
        byte[] client = {7};
        SessionId base = SessionIds.compute("p:s", nonce, client);
        assertEquals(base, SessionIds.compute("p:s", nonce.clone(), client.clone()));
        assertNotEquals(base, SessionIds.compute("p:t", nonce, client));
        byte[] otherNonce = nonce.clone();
        otherNonce[31] = 1;
        assertNotEquals(base, SessionIds.compute("p:s", otherNonce, client));
        assertNotEquals(base, SessionIds.compute("p:s", nonce, new byte[] {8}));
    }

    @Test
    void lowEightyEightBitsAreTheLastElevenBytes() {
        byte[] digest = new byte[32];
        for (int i = 0; i < 32; i++) {
            digest[i] = (byte) i;
        }
        byte[] low = Hashes.low88(digest);
        assertEquals(11, low.length);
        assertEquals(21, low[0]);
        assertEquals(31, low[10]);
    }
}
