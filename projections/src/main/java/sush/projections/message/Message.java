package sush.projections.message;

import java.util.Objects;
import java.util.Optional;

import sush.projections.id.JobId;
import sush.projections.id.KeyId;
import sush.projections.id.SessionId;
import sush.projections.job.SignedGrant;
import sush.projections.job.SignedJob;

/**
 * The vocabulary of the gossip set: operator requests and the events sleds report. Each is one
 * gossip payload, encoded by {@link MessageCodec} in a versioned CBOR envelope whose field names
 * are the contract (architecture.md, "Data that crosses boundaries").
 */
public sealed interface Message {
    /**
     * A session of the {@code signed} ordering (ordered-sessions.md): a grant signed by a
     * trusted signer; its id is computed from the grant's fields by every sled.
     */
    record SessionGrant(SignedGrant grant) implements Message {
    }

    /** Starts a session; its id is recomputed from the other fields by every sled. */
    record SessionStart(SessionId session, String acceptor, byte[] sledNonce, byte[] clientNonce, String starter)
            implements Message {
    }

    /**
     * The session's starter sets what an operator key may do on the session's interactive jobs
     * (issue 19): watch ({@code read}, what every operator may by default), type ({@code write}),
     * or nothing ({@code none}). Honoured from the starter only; the latest in causal order holds.
     */
    record SessionAccess(SessionId session, String key, Access access, String by) implements Message {
    }

    /** What {@link SessionAccess} lets a key do. */
    enum Access {
        NONE, READ, WRITE
    }

    /** Ends a session (honoured from its starter only). */
    record SessionStop(SessionId session, String by) implements Message {
    }

    /** Burns one chain position so the chain moves past it (starter only). */
    record JobSkip(SessionId session, JobId position, String by) implements Message {
    }

    /** A signed job request. */
    record JobStart(SignedJob job) implements Message {
    }

    /** An operator's request to stop (kill) a job wherever it runs. */
    record JobStop(JobId job, String by) implements Message {
    }

    /**
     * A sled announcing itself in a universe: first send of every entry. {@code api}, when
     * given, is the URL its API answers at: any sled fetches another's job output there (an
     * optional field; null when not announced).
     */
    record Announcement(String baseboard, String software, int cubby, String api) implements Message {
        public Announcement(String baseboard, String software, int cubby) {
            this(baseboard, software, cubby, null);
        }
    }

    /**
     * The sled started the job's process, at {@code startedAtMs} of its own wall clock (ms since
     * the epoch; null when the sled keeps no times). A sled's clock is shown to operators, never
     * used to order anything.
     */
    record JobStarted(String baseboard, JobId job, Long startedAtMs) implements Message {
        public JobStarted(String baseboard, JobId job) {
            this(baseboard, job, null);
        }
    }

    /**
     * The job's process ended: an exit code, or the error that kept it from running; output
     * lengths and SHA3-256 hashes so clients can verify what they fetch; when the sled keeps
     * times, its wall clock at start and end and the duration (measured on its monotonic clock).
     */
    record JobStopped(String baseboard, JobId job, Integer exitCode, String processError, long stdoutBytes,
            byte[] stdoutSha3, long stderrBytes, byte[] stderrSha3, Long startedAtMs, Long endedAtMs,
            Long durationMs) implements Message {
        public JobStopped(String baseboard, JobId job, Integer exitCode, String processError, long stdoutBytes,
                byte[] stdoutSha3, long stderrBytes, byte[] stderrSha3) {
            this(baseboard, job, exitCode, processError, stdoutBytes, stdoutSha3, stderrBytes, stderrSha3, null, null,
                    null);
        }

        /** The same ending with the sled's times. */
        public JobStopped timed(long startedAt, long endedAt, long duration) {
            return new JobStopped(baseboard, job, exitCode, processError, stdoutBytes, stdoutSha3, stderrBytes,
                    stderrSha3, startedAt, endedAt, duration);
        }
    }

    /** The job failed on this sled for a reason other than its own exit (times as for {@link JobStopped}). */
    record JobErrored(String baseboard, JobId job, JobError kind, String detail, int signal, Long startedAtMs,
            Long endedAtMs, Long durationMs) implements Message {
        public JobErrored(String baseboard, JobId job, JobError kind, String detail, int signal) {
            this(baseboard, job, kind, detail, signal, null, null, null);
        }

        /** The same error with the sled's times. */
        public JobErrored timed(long startedAt, long endedAt, long duration) {
            return new JobErrored(baseboard, job, kind, detail, signal, startedAt, endedAt, duration);
        }
    }

    /**
     * The sled will never run the job, and why; {@code detail} says more when the reason has more
     * to say (a spent budget's failures; null otherwise, and absent on the wire).
     */
    record JobSkipped(String baseboard, JobId job, SkipReason reason, String detail) implements Message {
        public JobSkipped(String baseboard, JobId job, SkipReason reason) {
            this(baseboard, job, reason, null);
        }
    }

    /**
     * A sled's signed receipt (issue 40, D-060): {@code body} is a {@link sush.projections.job.Receipt}'s
     * text, {@code signature} the sled's (SHA256withECDSA with the key its rack CA certificate
     * names). Sleds keep receipts with their jobs' statuses and relay them; {@code sush audit
     * verify} checks them offline.
     */
    record JobReceipt(String sled, byte[] body, byte[] signature) implements Message {
        public JobReceipt {
            body = body.clone();
            signature = signature.clone();
        }

        @Override
        public byte[] body() {
            return body.clone();
        }

        @Override
        public byte[] signature() {
            return signature.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof JobReceipt && ((JobReceipt) o).sled.equals(sled)
                    && java.util.Arrays.equals(((JobReceipt) o).body, body)
                    && java.util.Arrays.equals(((JobReceipt) o).signature, signature);
        }

        @Override
        public int hashCode() {
            return 31 * java.util.Arrays.hashCode(body) + java.util.Arrays.hashCode(signature);
        }
    }

    /**
     * The starter skips the part of job {@code job} of the sled in cubby {@code cubby} (issue 40,
     * D-059): for a job in waves, later waves stop waiting for it; the sled itself, if it has
     * not started the job when it sees this, ends it {@code Skipped{Operator}}. Honoured from the
     * job's session starter only.
     */
    record JobSledSkip(JobId job, int cubby, String by) implements Message {
    }

    /**
     * The job was stopped before this sled started it: it never runs here, and when it reaches
     * the head it is passed without running (at-most-once.md section 2).
     */
    record JobCancelled(String baseboard, JobId job) implements Message {
    }

    /**
     * An operator's login, accepted by sled {@code acceptor} and gossiped with its evidence
     * (security.md section 2): the operator's SSH public key blob, the acceptor's challenge
     * nonce, the client's nonce, the ephemeral Ed25519 key the login vouches for, the SSH
     * signature over them, and when the identity expires by the acceptor's clock (epoch ms).
     * Every sled verifies the signature against its own operators file before it honours it.
     */
    record OperatorLogin(String acceptor, byte[] key, byte[] nonce, byte[] clientNonce, byte[] ephemeral,
            byte[] signature, long expires) implements Message {
    }

    /**
     * Ends every identity of operator key {@code key} rack-wide and refuses its later logins;
     * every sled keeps it on its disk (issue 36). {@code id} names this revocation, so that an
     * unrevoke lifts this one and never a later one ("" in journals of older builds).
     */
    record OperatorRevoked(KeyId key, String by, String id) implements Message {
        public OperatorRevoked {
            Objects.requireNonNull(id, "id");
        }

        public OperatorRevoked(KeyId key, String by) {
            this(key, by, "");
        }
    }

    /**
     * An operator's change of the signer keys the rack trusts (issue 41, D-062), as gossiped:
     * every sled checks it against its own operators file before it applies it.
     */
    record TrustChange(sush.projections.job.SignerTrust change) implements Message {
        public TrustChange {
            Objects.requireNonNull(change, "change");
        }
    }

    /**
     * Lifts revocation {@code lifts} of operator key {@code key} ({@code iam unrevoke}, by another
     * operator, {@code by}): a revocation of the key made meanwhile (another id) stays, on every
     * sled, whatever order the two arrive in.
     */
    record OperatorUnrevoked(KeyId key, String by, String lifts) implements Message {
        public OperatorUnrevoked {
            Objects.requireNonNull(lifts, "lifts");
        }
    }

    /**
     * Where a sled stands in a session's chain (bounded-gossip.md section 2, issue 39): its head
     * {@code head}, the {@code ordinal}-th position from the session's first (local knowledge,
     * never an input to admission), and {@code resume}, where it would resume after a restart (its
     * boundary record's successor in this session, else the session's first position), the
     * {@code resumeOrdinal}-th (null when the sled does not know it): every position from
     * {@code resume} up to the head it walked without starting a job. Sent when the head moved or
     * news arrived, at most once a period; a settled message is forgotten only once every sled's
     * watermark is past it and after it. An {@code ordinal} of {@link #DONE} says the session
     * ended on this sled (superseded, stopped or annihilated): it is past every position of it.
     */
    record Watermark(String baseboard, SessionId session, long ordinal, JobId head, JobId resume, Long resumeOrdinal)
            implements Message {
        /** The ordinal of a sled done with the session. */
        public static final long DONE = Long.MAX_VALUE;

        /** Whether the sled is done with the session (it ended there). */
        public boolean done() {
            return ordinal == DONE;
        }
    }

    /** A rack-level error a sled reports once. */
    record RackError(String baseboard, RackErrorKind kind, SessionId session, String detail) implements Message {
    }

    /**
     * {@code Skipped{Conflict}} (ordered-sessions.md section 9): another request claims job
     * {@code job}'s position on this sled; the request whose successor is {@code refused} is a
     * different job at a used position and never runs here, while {@code held} is the successor
     * of the request this sled holds, committed or ran there. A position is a job id, so a client
     * tells which request a status speaks of by these successors ({@code next(digest)}). A kind of
     * its own, like {@link JobCancelled}: an older sled keeps and relays it.
     */
    record JobConflict(String baseboard, JobId job, JobId held, JobId refused) implements Message {
    }

    /** Who reported what about which job: {@link #report}. */
    record Report(String baseboard, JobId job, boolean ending) {
    }

    /**
     * A sled's report about a job, if {@code m} is one: it started it ({@code ending} false), or
     * ended it there (stopped, an error, skipped, cancelled, or a conflict at its position).
     */
    static Optional<Report> report(Message m) {
        if (m instanceof JobStarted) {
            return Optional.of(new Report(((JobStarted) m).baseboard(), ((JobStarted) m).job(), false));
        } else if (m instanceof JobStopped) {
            return Optional.of(new Report(((JobStopped) m).baseboard(), ((JobStopped) m).job(), true));
        } else if (m instanceof JobErrored) {
            return Optional.of(new Report(((JobErrored) m).baseboard(), ((JobErrored) m).job(), true));
        } else if (m instanceof JobSkipped) {
            return Optional.of(new Report(((JobSkipped) m).baseboard(), ((JobSkipped) m).job(), true));
        } else if (m instanceof JobCancelled) {
            return Optional.of(new Report(((JobCancelled) m).baseboard(), ((JobCancelled) m).job(), true));
        } else if (m instanceof JobConflict) {
            return Optional.of(new Report(((JobConflict) m).baseboard(), ((JobConflict) m).job(), true));
        }
        return Optional.empty();
    }

    /** A message of a newer format or kind: kept and relayed unread. */
    record Unknown(long formatVersion, String kind, byte[] payload) implements Message {
    }

    /** Kinds of {@link JobErrored}. */
    enum JobError {
        INTERRUPTED, INVALID_JOB, IO, KILLED, OUTPUT_LIMIT,
        /** A limit other than output ended the job: wall time, CPU seconds or file size (the detail names it). */
        LIMIT,
        /**
         * The sled's output disk was short of space (below its reserve) when the job reached its
         * head: the job was not started there (issue 35).
         */
        NO_SPACE
    }

    /** Reasons of {@link JobSkipped}. */
    enum SkipReason {
        BELOW_FLOOR, ALREADY_HANDLED, SUPERSEDED, SESSION_ENDED,
        /** D-059: more sleds of the job's earlier waves failed than its budget allows. */
        BUDGET_SPENT,
        /** D-059: the starter skipped this sled's part ({@link JobSledSkip}) before it started. */
        OPERATOR
    }

    /** Kinds of {@link RackError}. */
    enum RackErrorKind {
        CONCURRENT_SESSIONS, SESSION_HOP, UNIVERSE_FLIP_FLOP,
        /** Signed ordering: the sled's slots hold no record; it runs nothing until provisioned. */
        UNPROVISIONED,
        /** Signed ordering: a signer issued one epoch to two sessions (rule 7); refused. */
        EPOCH_REUSE,
        /**
         * Issue 39 (D-057): the sled's head stands on a position it holds nothing of, which other
         * sleds went on past, and it cannot tell which way the live chain goes on from there (the
         * rack forgot it after a burn or a fork): it waits, and runs nothing more of the session.
         */
        FORGOTTEN_HEAD
    }
}
