package sush.ops.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.projections.fixtures.Jobs;
import sush.projections.fixtures.Signers;
import sush.projections.id.Chain;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.job.ClientChain;
import sush.projections.job.SignedJob;

/**
 * Issue 39: a kept chain extended over positions the rack forgot keeps the jump on disk, so the
 * next command (another JVM) places its job at the same tip.
 */
class KeptChainJumpTest {
    private static final SessionId S = SessionIds.compute("913-0000019:KEPT", new byte[SessionIds.NONCE_BYTES],
            new byte[] {3});

    @TempDir
    Path dir;

    @Test
    void aJumpIsKeptOnDiskAndReadBackToTheSameTip() throws Exception {
        SessionStore store = new SessionStore(dir);
        SessionStore.Kept kept = store.chain(S);
        SignedJob j0 = Jobs.at(Signers.KEY, S, Chain.first(S), "j0", "*", false);
        kept.keep(j0);
        JobId forgotten = j0.request().successor();
        SignedJob live = Jobs.at(Signers.KEY, S, Chain.afterBurn(forgotten), "live", "*", false);
        assertEquals(2, kept.extend(List.of(new ClientChain.Held(Map.of(live.request().job(), live), Set.of(),
                Map.of(forgotten, live.request().job())))));
        SessionStore.Kept again = new SessionStore(dir).chain(S);
        assertEquals(live.request().successor(), again.chain().tip());
        assertEquals(new ClientChain.Entry.Jump(forgotten, live.request().job()), again.chain().entries().get(1));
        String file = Files.readString(store.sessionDir(S).resolve("chain.jsonl"));
        assertEquals(3, file.lines().count(), file);
    }
}
