package sush.gossip;

import java.security.SecureRandom;
import java.util.SplittableRandom;

/** Randomness, injected so that the simulator can replay a run from its seed. */
@FunctionalInterface
public interface Entropy {
    void nextBytes(byte[] into);

    /** The operating system's CSPRNG: the daemon's entropy. */
    static Entropy secure() {
        SecureRandom random = new SecureRandom();
        return random::nextBytes;
    }

    /** Deterministic bytes from a seed: tests and the simulator only. */
    static Entropy seeded(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        return into -> {
            for (int i = 0; i < into.length; i++) {
                into[i] = (byte) random.nextInt(256);
            }
        };
    }
}
