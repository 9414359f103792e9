package sush.projections.fold;

import java.util.Locale;

/**
 * How a rack orders its sessions, fixed in {@code rack.json} and passed to every daemon:
 * {@code causal} (at-most-once.md: session starts ordered by the gossip's causality) or
 * {@code signed} (ordered-sessions.md: grants totally ordered by the signer's epochs).
 */
public enum Ordering {
    CAUSAL, SIGNED;

    /** The name {@code rack.json}, the CLI and the record use. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The ordering named {@code name} ({@code signed} or {@code causal}). */
    public static Ordering parse(String name) {
        for (Ordering o : values()) {
            if (o.wireName().equals(name)) {
                return o;
            }
        }
        throw new IllegalArgumentException("ordering " + name + " is neither signed nor causal");
    }

    @Override
    public String toString() {
        return wireName();
    }
}
