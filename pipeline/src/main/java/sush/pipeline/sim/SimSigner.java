package sush.pipeline.sim;

import java.util.concurrent.TimeUnit;


/**
 * The signed ordering's signer clock and epoch file (ordered-sessions.md): epochs from virtual
 * time, kept increasing in the file, and the signer faults a schedule asks for (a clock gone
 * back with its file lost, an epoch reused by a broken signer).
 */
final class SimSigner {
    private final VirtualClock time;
    /** Signed ordering: the last epoch the signer issued (its epoch file). */
    private long signerLast;
    /** Signed ordering: every fifth session the signer's clock is a minute behind and its epoch file lost. */
    boolean clockBack;
    /** Signed ordering: the next grant's signer clock is this far behind (its epoch file lost); 0: none. */
    long nextClockBack;
    /** Signed ordering: the next grant reuses the previous grant's epoch (a broken signer). */
    boolean nextReuse;

    SimSigner(VirtualClock time) {
        this.time = time;
    }

    /**
     * The signer's next epoch: {@code max(now ms, last + 1)} on its clock (virtual time plus a
     * fixed offset), or, when its clock went back, a minute behind now with its epoch file lost.
     */
    long nextEpoch(boolean back) {
        long now = 1_700_000_000_000L + time.now(TimeUnit.MILLISECONDS);
        long behind = nextClockBack > 0 ? nextClockBack : back ? 60_000 : 0;
        nextClockBack = 0;
        if (nextReuse && signerLast > 0) {
            nextReuse = false;
            return signerLast;
        }
        long epoch = behind > 0 ? now - behind : Math.max(now, signerLast + 1);
        signerLast = Math.max(signerLast, epoch);
        return epoch;
    }
}
