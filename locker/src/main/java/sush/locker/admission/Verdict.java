package sush.locker.admission;

import sush.projections.message.Message;

/** What admission decides for one targeted job (at-most-once.md section 6). */
public sealed interface Verdict {
    /** The job may run: commit the boundary record, then launch. */
    record Admit(String rule) implements Verdict {
    }

    /** The job never runs on this sled; report {@code Skipped{reason}}. */
    record Skip(Message.SkipReason reason, String rule) implements Verdict {
    }

    /** The store is untrusted: report {@code Error{Io}}; nothing targeted runs in this life. */
    record Refuse(String why) implements Verdict {
    }

    /** Rule 8: gossip {@code Error{SessionHop}}, raise the floor, screen again. */
    record Hop() implements Verdict {
    }

    /**
     * Ordering {@code signed}, rule 7: the committed session's signer issued the same epoch to
     * another session. Report {@code Error{EpochReuse}}; the job never runs.
     */
    record EpochReuse(String why) implements Verdict {
    }

    /** The snapshot's committed job: its fate is announced by adjudication (section 7), not admission. */
    record Adjudicate() implements Verdict {
    }
}
