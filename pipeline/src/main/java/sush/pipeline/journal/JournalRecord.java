package sush.pipeline.journal;

import java.util.Arrays;
import java.util.Objects;

import sush.gossip.clock.Version;
import sush.gossip.set.NetworkId;
import sush.projections.fold.ChainProjection;
import sush.projections.id.JobId;
import sush.projections.id.SessionId;

/** One journal record: a delivered message, the start of an entry, or a decision of the sled. */
public sealed interface JournalRecord {
    /** The sled entered a universe (start of life or migration): later deliveries fold afresh. */
    record Entered(long entry, NetworkId network, String cause) implements JournalRecord {
        public Entered {
            Objects.requireNonNull(network, "network");
            Objects.requireNonNull(cause, "cause");
        }
    }

    /**
     * A message delivered in causal order, exactly as the fold saw it; for a job request, the
     * verdict on its signature the sled acted on, so a replay reproduces it without the keys
     * (and even after they changed).
     */
    record Delivered(Version version, byte[] payload, Signature signature) implements JournalRecord {
        public Delivered {
            Objects.requireNonNull(version, "version");
            Objects.requireNonNull(signature, "signature");
            payload = payload.clone();
        }

        /** A delivery with no signature verdict recorded (not a job request, or an older journal). */
        public Delivered(Version version, byte[] payload) {
            this(version, payload, Signature.UNCHECKED);
        }

        @Override
        public byte[] payload() {
            return payload.clone();
        }

        /** The payload itself, for readers in this package that only read it (replay decodes it). */
        byte[] payloadView() {
            return payload;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Delivered && version.equals(((Delivered) o).version)
                    && Arrays.equals(payload, ((Delivered) o).payload) && signature == ((Delivered) o).signature;
        }

        @Override
        public int hashCode() {
            return version.hashCode() * 31 + Arrays.hashCode(payload);
        }

        @Override
        public String toString() {
            return "Delivered(" + version + ", " + payload.length + " bytes"
                    + (signature == Signature.UNCHECKED ? "" : ", signature " + signature) + ")";
        }
    }

    /** The verdict on a delivered job request's signature, as the sled's trust store gave it. */
    enum Signature {
        /** No verdict recorded: not a job request, or a journal from before verdicts were kept. */
        UNCHECKED,
        /** A good signature of a trusted key. */
        GOOD,
        /** Signed by a key the sled did not trust. */
        UNKNOWN_KEY,
        /** The signature did not verify. */
        BAD_SIGNATURE
    }

    /** The sled resumed its committed session at the stored successor (fed to the fold). */
    record Resumed(SessionId session, JobId committed, JobId successor) implements JournalRecord {
    }

    /** The job at the head was passed as {@code how} says (fed to the fold). */
    record Passed(JobId job, ChainProjection.Passed how) implements JournalRecord {
    }

    /**
     * Something the sled decided: an entry step, a floor, an admission verdict, a commit, a
     * launch, a skip, an ending. {@code subject} names the job or session ("" if none).
     */
    record Decision(Kind kind, String subject, String detail) implements JournalRecord {
        /** What was decided. */
        public enum Kind {
            ENTRY, FLOOR, VERDICT, COMMIT, LAUNCH, SKIP, ENDING, ERROR
        }

        public Decision {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(subject, "subject");
            Objects.requireNonNull(detail, "detail");
        }
    }
}
