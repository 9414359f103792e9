package sush.projections.message;

import java.util.Locale;

import sush.projections.id.JobId;
import sush.projections.id.KeyId;
import sush.projections.id.SessionId;
import sush.projections.id.SessionIds;
import sush.projections.job.Grant;
import sush.projections.job.JobLimits;
import sush.projections.job.JobWave;
import sush.projections.job.JobMode;
import sush.projections.job.JobRequest;
import sush.projections.job.SignatureAlgorithm;
import sush.projections.job.SignedGrant;
import sush.projections.job.SignedJob;
import sush.projections.message.Message.Announcement;
import sush.projections.message.Message.JobCancelled;
import sush.projections.message.Message.JobConflict;
import sush.projections.message.Message.JobErrored;
import sush.projections.message.Message.JobSkip;
import sush.projections.message.Message.JobSkipped;
import sush.projections.message.Message.JobStart;
import sush.projections.message.Message.JobStarted;
import sush.projections.message.Message.JobStop;
import sush.projections.message.Message.JobStopped;
import sush.projections.message.Message.OperatorLogin;
import sush.projections.message.Message.OperatorRevoked;
import sush.projections.message.Message.OperatorUnrevoked;
import sush.projections.message.Message.RackError;
import sush.projections.message.Message.SessionAccess;
import sush.projections.message.Message.SessionGrant;
import sush.projections.message.Message.SessionStart;
import sush.projections.message.Message.SessionStop;
import sush.projections.message.Message.Unknown;
import sush.projections.message.Message.Watermark;
import sush.projections.targets.Target;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.cbor.CBORMapper;

/**
 * Messages as CBOR: {@code [formatVersion, kind, {field: value}]} (D-011). Format 1 is this
 * file. A newer format version, or a kind this version does not know, decodes to
 * {@link Unknown} and re-encodes to the very same bytes, so it is kept and relayed. The bytes
 * of one instance of every kind are pinned in a test: never re-pin, add a version.
 */
public final class MessageCodec {
    public static final int FORMAT_VERSION = 1;
    /** Bound on one encoded message (a gossip payload is at most 64 KiB). */
    public static final int MAX_MESSAGE_BYTES = 64 * 1024;

    private static final CBORMapper CBOR = CBORMapper.builder().build();

    private MessageCodec() {
    }

    public static byte[] encode(Message message) {
        if (message instanceof Unknown) {
            return ((Unknown) message).payload().clone();
        }
        ArrayNode envelope = CBOR.createArrayNode();
        envelope.add(FORMAT_VERSION);
        envelope.add(kind(message));
        envelope.add(body(message));
        byte[] bytes = CBOR.writeValueAsBytes(envelope);
        if (bytes.length > MAX_MESSAGE_BYTES) {
            throw new IllegalArgumentException("message of " + bytes.length + " bytes over " + MAX_MESSAGE_BYTES);
        }
        return bytes;
    }

    public static Message decode(byte[] bytes) throws MessageException {
        if (bytes.length > MAX_MESSAGE_BYTES) {
            throw new MessageException("message of " + bytes.length + " bytes over " + MAX_MESSAGE_BYTES);
        }
        Fields plain = DirectReader.read(bytes);
        if (plain != null) {
            return read(plain.kind(), plain);
        }
        return decodeWithJackson(bytes);
    }

    /**
     * The reference decoder, for every input: {@link DirectReader} reads the plain form faster
     * and leaves everything else here, and a differential test checks the two agree.
     */
    static Message decodeWithJackson(byte[] bytes) throws MessageException {
        if (bytes.length > MAX_MESSAGE_BYTES) {
            throw new MessageException("message of " + bytes.length + " bytes over " + MAX_MESSAGE_BYTES);
        }
        // A streaming read: the fold decodes every message, and a tree costs several times more.
        try (JsonParser p = CBOR.createParser(bytes)) {
            if (p.nextToken() != JsonToken.START_ARRAY || p.nextToken() != JsonToken.VALUE_NUMBER_INT) {
                throw new MessageException("not a [version, kind, body] envelope");
            }
            if (p.getNumberType() != JsonParser.NumberType.INT && p.getNumberType() != JsonParser.NumberType.LONG) {
                throw new MessageException("format version over 64 bits");
            }
            long version = p.getLongValue();
            if (p.nextToken() != JsonToken.VALUE_STRING) {
                throw new MessageException("envelope kind is not text");
            }
            String kind = p.getString();
            if (version != FORMAT_VERSION || !known(kind)) {
                if (version < FORMAT_VERSION) {
                    throw new MessageException("format version " + version + " was never written");
                }
                return new Unknown(version, kind, bytes.clone());
            }
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new MessageException(kind + ": body is not a map");
            }
            Fields fields = Fields.read(p, kind);
            if (p.nextToken() != JsonToken.END_ARRAY || p.nextToken() != null) {
                throw new MessageException(kind + ": envelope has more than three items or trailing bytes");
            }
            return read(kind, fields);
        } catch (JacksonException e) {
            throw new MessageException("not CBOR: " + e.getOriginalMessage(), e);
        }
    }

    /** The wire name of an enum value, as messages spell it ({@code BUDGET_SPENT}: {@code budget-spent}). */
    public static String wireName(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    private static boolean known(String kind) {
        switch (kind) {
            case "session-start": case "session-stop": case "job-skip": case "job-start": case "job-stop":
            case "announcement": case "job-started": case "job-stopped": case "job-error": case "job-skipped":
            case "rack-error": case "job-cancelled": case "operator-login": case "operator-revoked":
            case "operator-unrevoked":
            case "session-grant": case "session-access": case "job-conflict": case "watermark": case "job-skip-sled":
            case "receipt": case "signer-trust":
                return true;
            default:
                return false;
        }
    }

    private static String kind(Message m) {
        if (m instanceof SessionStart) {
            return "session-start";
        } else if (m instanceof SessionStop) {
            return "session-stop";
        } else if (m instanceof JobSkip) {
            return "job-skip";
        } else if (m instanceof JobStart) {
            return "job-start";
        } else if (m instanceof JobStop) {
            return "job-stop";
        } else if (m instanceof Announcement) {
            return "announcement";
        } else if (m instanceof JobStarted) {
            return "job-started";
        } else if (m instanceof JobStopped) {
            return "job-stopped";
        } else if (m instanceof JobErrored) {
            return "job-error";
        } else if (m instanceof JobSkipped) {
            return "job-skipped";
        } else if (m instanceof JobCancelled) {
            return "job-cancelled";
        } else if (m instanceof JobConflict) {
            return "job-conflict";
        } else if (m instanceof Message.JobSledSkip) {
            return "job-skip-sled";
        } else if (m instanceof Message.JobReceipt) {
            return "receipt";
        } else if (m instanceof OperatorLogin) {
            return "operator-login";
        } else if (m instanceof Message.TrustChange) {
            return "signer-trust";
        } else if (m instanceof OperatorRevoked) {
            return "operator-revoked";
        } else if (m instanceof OperatorUnrevoked) {
            return "operator-unrevoked";
        } else if (m instanceof SessionGrant) {
            return "session-grant";
        } else if (m instanceof SessionAccess) {
            return "session-access";
        } else if (m instanceof Watermark) {
            return "watermark";
        }
        return "rack-error";
    }

    /** The body map of {@code m}: one writer per kind, each writing its fields in the wire's order. */
    private static ObjectNode body(Message m) {
        ObjectNode b = CBOR.createObjectNode();
        if (m instanceof SessionStart) {
            sessionStart(b, (SessionStart) m);
        } else if (m instanceof SessionStop) {
            sessionStop(b, (SessionStop) m);
        } else if (m instanceof JobSkip) {
            jobSkip(b, (JobSkip) m);
        } else if (m instanceof JobStart) {
            jobStart(b, ((JobStart) m).job());
        } else if (m instanceof JobStop) {
            jobStop(b, (JobStop) m);
        } else if (m instanceof Announcement) {
            announcement(b, (Announcement) m);
        } else if (m instanceof JobStarted) {
            jobStarted(b, (JobStarted) m);
        } else if (m instanceof JobStopped) {
            jobStopped(b, (JobStopped) m);
        } else if (m instanceof JobErrored) {
            jobErrored(b, (JobErrored) m);
        } else if (m instanceof JobSkipped) {
            jobSkipped(b, (JobSkipped) m);
        } else if (m instanceof JobCancelled) {
            jobCancelled(b, (JobCancelled) m);
        } else if (m instanceof JobConflict) {
            jobConflict(b, (JobConflict) m);
        } else if (m instanceof Message.JobReceipt) {
            Message.JobReceipt r = (Message.JobReceipt) m;
            b.put("sled", r.sled()).put("body", r.body()).put("signature", r.signature());
        } else if (m instanceof Message.JobSledSkip) {
            Message.JobSledSkip k = (Message.JobSledSkip) m;
            b.put("job", k.job().toBytes()).put("cubby", k.cubby()).put("by", k.by());
        } else if (m instanceof OperatorLogin) {
            operatorLogin(b, (OperatorLogin) m);
        } else if (m instanceof Message.TrustChange) {
            sush.projections.job.SignerTrust t = ((Message.TrustChange) m).change();
            b.put("add", t.add()).put("key", t.key().toBytes()).put("spki", t.spki()).put("id", t.id())
                    .put("operator", t.operatorKey()).put("signature", t.signature());
        } else if (m instanceof OperatorRevoked) {
            operatorRevoked(b, (OperatorRevoked) m);
        } else if (m instanceof OperatorUnrevoked) {
            operatorUnrevoked(b, (OperatorUnrevoked) m);
        } else if (m instanceof SessionAccess) {
            sessionAccess(b, (SessionAccess) m);
        } else if (m instanceof SessionGrant) {
            sessionGrant(b, ((SessionGrant) m).grant());
        } else if (m instanceof Watermark) {
            watermark(b, (Watermark) m);
        } else {
            rackError(b, (RackError) m);
        }
        return b;
    }

    private static void sessionStart(ObjectNode b, SessionStart s) {
        b.put("session", s.session().toBytes()).put("acceptor", s.acceptor()).put("sledNonce", s.sledNonce())
                .put("clientNonce", s.clientNonce()).put("starter", s.starter());
    }

    private static void sessionStop(ObjectNode b, SessionStop s) {
        b.put("session", s.session().toBytes()).put("by", s.by());
    }

    private static void jobSkip(ObjectNode b, JobSkip s) {
        b.put("session", s.session().toBytes()).put("position", s.position().toBytes()).put("by", s.by());
    }

    private static void jobStart(ObjectNode b, SignedJob j) {
        JobRequest r = j.request();
        b.put("session", r.session().toBytes()).put("job", r.job().toBytes()).put("command", r.command())
                .put("target", r.target()).put("concurrent", r.concurrent()).put("key", j.key().toBytes())
                .put("algorithm", wireName(j.algorithm())).put("signature", j.signature());
        limits(b, r.limits());
        if (r.mode() != JobMode.RECORDED) {
            b.put("mode", r.mode().wire());
        }
        if (r.wave().isSet()) {
            // D-059: optional fields, written only for a job in waves.
            b.put("waveSize", r.wave().size()).put("maxFailures", r.wave().maxFailures());
        }
    }

    private static void jobStop(ObjectNode b, JobStop s) {
        b.put("job", s.job().toBytes()).put("by", s.by());
    }

    private static void announcement(ObjectNode b, Announcement a) {
        b.put("baseboard", a.baseboard()).put("software", a.software()).put("cubby", a.cubby());
        if (a.api() != null) {
            b.put("api", a.api());
        }
    }

    private static void jobStarted(ObjectNode b, JobStarted s) {
        b.put("baseboard", s.baseboard()).put("job", s.job().toBytes());
        if (s.startedAtMs() != null) {
            b.put("startedAtMs", s.startedAtMs().longValue());
        }
    }

    private static void jobStopped(ObjectNode b, JobStopped s) {
        b.put("baseboard", s.baseboard()).put("job", s.job().toBytes());
        if (s.exitCode() != null) {
            b.put("exitCode", s.exitCode().intValue());
        } else {
            b.put("processError", s.processError());
        }
        b.put("stdoutBytes", s.stdoutBytes()).put("stdoutSha3", s.stdoutSha3()).put("stderrBytes", s.stderrBytes())
                .put("stderrSha3", s.stderrSha3());
        times(b, s.startedAtMs(), s.endedAtMs(), s.durationMs());
    }

    private static void jobErrored(ObjectNode b, JobErrored e) {
        b.put("baseboard", e.baseboard()).put("job", e.job().toBytes()).put("error", wireName(e.kind()))
                .put("detail", e.detail()).put("signal", e.signal());
        times(b, e.startedAtMs(), e.endedAtMs(), e.durationMs());
    }

    private static void jobSkipped(ObjectNode b, JobSkipped s) {
        b.put("baseboard", s.baseboard()).put("job", s.job().toBytes()).put("reason", wireName(s.reason()));
        if (s.detail() != null) {
            b.put("detail", s.detail());
        }
    }

    private static void watermark(ObjectNode b, Watermark w) {
        b.put("baseboard", w.baseboard()).put("session", w.session().toBytes()).put("ordinal", w.ordinal())
                .put("head", w.head().toBytes()).put("resume", w.resume().toBytes());
        if (w.resumeOrdinal() != null) {
            b.put("resumeOrdinal", w.resumeOrdinal().longValue());
        }
    }

    private static void jobCancelled(ObjectNode b, JobCancelled c) {
        b.put("baseboard", c.baseboard()).put("job", c.job().toBytes());
    }

    private static void jobConflict(ObjectNode b, JobConflict c) {
        b.put("baseboard", c.baseboard()).put("job", c.job().toBytes()).put("held", c.held().toBytes())
                .put("refused", c.refused().toBytes());
    }

    private static void operatorLogin(ObjectNode b, OperatorLogin l) {
        b.put("acceptor", l.acceptor()).put("key", l.key()).put("nonce", l.nonce()).put("clientNonce",
                l.clientNonce()).put("ephemeral", l.ephemeral()).put("signature", l.signature())
                .put("expires", l.expires());
    }

    private static void operatorRevoked(ObjectNode b, OperatorRevoked r) {
        b.put("key", r.key().toBytes()).put("by", r.by());
        if (!r.id().isEmpty()) {
            b.put("id", r.id());
        }
    }

    private static void operatorUnrevoked(ObjectNode b, OperatorUnrevoked u) {
        b.put("key", u.key().toBytes()).put("by", u.by()).put("lifts", u.lifts());
    }

    private static void sessionAccess(ObjectNode b, SessionAccess a) {
        b.put("session", a.session().toBytes()).put("key", a.key()).put("access", wireName(a.access()))
                .put("by", a.by());
    }

    private static void sessionGrant(ObjectNode b, SignedGrant g) {
        b.put("signer", g.grant().signer().toBytes()).put("epoch", g.grant().epoch())
                .put("starter", g.grant().starter()).put("clientNonce", g.grant().clientNonce())
                .put("algorithm", wireName(g.algorithm())).put("signature", g.signature());
    }

    private static void rackError(ObjectNode b, RackError e) {
        b.put("baseboard", e.baseboard()).put("error", wireName(e.kind())).put("session", e.session().toBytes())
                .put("detail", e.detail());
    }

    /** A job's own limits (D-031): optional fields, each written only when asked. */
    private static void limits(ObjectNode b, JobLimits l) {
        String[] names = LIMIT_NAMES;
        JobLimits.Kind[] kinds = JobLimits.Kind.values();
        for (int i = 0; i < kinds.length; i++) {
            if (l.get(kinds[i]) > 0) {
                b.put(names[i], l.get(kinds[i]));
            }
        }
    }

    /** The wire names of a job's limits, in {@link JobLimits.Kind} order. */
    private static final String[] LIMIT_NAMES = {"wallTimeMs", "outputBytes", "cpuSeconds", "addressSpaceBytes",
        "fileSizeBytes"};

    /** A job's mode (D-034): absent is recorded; {@code recorded} itself is never written, so it is malformed. */
    private static JobMode mode(Fields f) throws MessageException {
        String m = f.optionalText("mode", 16);
        if (m == null) {
            return JobMode.RECORDED;
        }
        if (m.equals("interactive")) {
            return JobMode.INTERACTIVE;
        }
        if (m.equals("streaming")) {
            return JobMode.STREAMING;
        }
        throw new MessageException("job-start.mode: " + m + " is not interactive or streaming");
    }

    /** A job's waves (D-059): both fields or neither. */
    private static JobWave wave(Fields f) throws MessageException {
        Long size = f.optionalNumber("waveSize", 1, JobWave.MAX_SIZE);
        Long budget = f.optionalNumber("maxFailures", 0, JobWave.MAX_SIZE);
        if (size == null && budget == null) {
            return JobWave.NONE;
        }
        if (size == null || budget == null) {
            throw new MessageException("job-start: waveSize and maxFailures come together");
        }
        return new JobWave(size.intValue(), budget.intValue());
    }

    private static JobLimits limits(Fields f) throws MessageException {
        long[] v = new long[LIMIT_NAMES.length];
        for (int i = 0; i < v.length; i++) {
            Long n = f.optionalNumber(LIMIT_NAMES[i], 1, Long.MAX_VALUE);
            v[i] = n == null ? 0 : n;
        }
        return new JobLimits(v[0], v[1], v[2], v[3], v[4]);
    }

    /**
     * A sled's times (optional fields: a message without them reads as before, and a reader
     * from before them ignores them).
     */
    private static void times(ObjectNode b, Long startedAtMs, Long endedAtMs, Long durationMs) {
        if (startedAtMs != null) {
            b.put("startedAtMs", startedAtMs.longValue());
        }
        if (endedAtMs != null) {
            b.put("endedAtMs", endedAtMs.longValue());
        }
        if (durationMs != null) {
            b.put("durationMs", durationMs.longValue());
        }
    }

    private static Message read(String kind, Fields f) throws MessageException {
        final int name = Fields.MAX_NAME_CHARS;
        switch (kind) {
            case "session-start":
                return new SessionStart(RecentIds.SESSIONS.of(f.id("session")), f.text("acceptor", name),
                        f.bytes("sledNonce", SessionIds.NONCE_BYTES, SessionIds.NONCE_BYTES),
                        f.bytes("clientNonce", -1, Fields.MAX_BLOB_BYTES),
                        f.text("starter", name));
            case "session-stop":
                return new SessionStop(RecentIds.SESSIONS.of(f.id("session")), f.text("by", name));
            case "job-skip":
                return new JobSkip(RecentIds.SESSIONS.of(f.id("session")), RecentIds.JOBS.of(f.id("position")), f.text("by", name));
            case "job-start":
                JobRequest r = new JobRequest(RecentIds.SESSIONS.of(f.id("session")), RecentIds.JOBS.of(f.id("job")),
                        f.text("command", Fields.MAX_COMMAND_CHARS), f.text("target", Target.MAX_CHARS), f.flag("concurrent"),
                        limits(f), mode(f), wave(f));
                return new JobStart(new SignedJob(r, new KeyId(f.id("key")), f.choice("algorithm", SignatureAlgorithm.class),
                        f.bytes("signature", -1, Fields.MAX_BLOB_BYTES)));
            case "job-stop":
                return new JobStop(RecentIds.JOBS.of(f.id("job")), f.text("by", name));
            case "announcement":
                return new Announcement(f.text("baseboard", name), f.text("software", name), (int) f.number("cubby", 0, 31),
                        f.optionalText("api", name));
            case "job-started":
                return new JobStarted(f.text("baseboard", name), RecentIds.JOBS.of(f.id("job")),
                        f.optionalNumber("startedAtMs", 0, Long.MAX_VALUE));
            case "job-stopped":
                Long exit = f.optionalNumber("exitCode", Integer.MIN_VALUE, Integer.MAX_VALUE);
                String processError = exit == null ? f.text("processError", Fields.MAX_DETAIL_CHARS) : null;
                return new JobStopped(f.text("baseboard", name), RecentIds.JOBS.of(f.id("job")),
                        exit == null ? null : exit.intValue(), processError, f.number("stdoutBytes", 0, Long.MAX_VALUE),
                        f.bytes("stdoutSha3", 32, 32), f.number("stderrBytes", 0, Long.MAX_VALUE), f.bytes("stderrSha3", 32, 32),
                        f.optionalNumber("startedAtMs", 0, Long.MAX_VALUE), f.optionalNumber("endedAtMs", 0, Long.MAX_VALUE),
                        f.optionalNumber("durationMs", 0, Long.MAX_VALUE));
            case "job-error":
                return new JobErrored(f.text("baseboard", name), RecentIds.JOBS.of(f.id("job")),
                        f.choice("error", Message.JobError.class), f.text("detail", Fields.MAX_DETAIL_CHARS),
                        (int) f.number("signal", 0, 255), f.optionalNumber("startedAtMs", 0, Long.MAX_VALUE),
                        f.optionalNumber("endedAtMs", 0, Long.MAX_VALUE), f.optionalNumber("durationMs", 0, Long.MAX_VALUE));
            case "job-skipped":
                return new JobSkipped(f.text("baseboard", name), RecentIds.JOBS.of(f.id("job")),
                        f.choice("reason", Message.SkipReason.class), f.optionalText("detail", Fields.MAX_DETAIL_CHARS));
            case "receipt":
                return new Message.JobReceipt(f.text("sled", name), f.bytes("body", -1,
                        sush.projections.job.Receipt.MAX_BODY_BYTES), f.bytes("signature", -1, Fields.MAX_BLOB_BYTES));
            case "job-skip-sled":
                return new Message.JobSledSkip(RecentIds.JOBS.of(f.id("job")), (int) f.number("cubby", 0, 31),
                        f.text("by", name));
            case "job-cancelled":
                return new JobCancelled(f.text("baseboard", name), RecentIds.JOBS.of(f.id("job")));
            case "watermark":
                return new Watermark(f.text("baseboard", name), RecentIds.SESSIONS.of(f.id("session")),
                        f.number("ordinal", 0, Long.MAX_VALUE), RecentIds.JOBS.of(f.id("head")),
                        RecentIds.JOBS.of(f.id("resume")), f.optionalNumber("resumeOrdinal", 0, Long.MAX_VALUE));
            case "job-conflict":
                return new JobConflict(f.text("baseboard", name), RecentIds.JOBS.of(f.id("job")),
                        RecentIds.JOBS.of(f.id("held")), RecentIds.JOBS.of(f.id("refused")));
            case "operator-login":
                return new OperatorLogin(f.text("acceptor", name), f.bytes("key", -1, Fields.MAX_BLOB_BYTES),
                        f.bytes("nonce", 16, 16), f.bytes("clientNonce", -1, 64), f.bytes("ephemeral", 32, 32),
                        f.bytes("signature", -1, Fields.MAX_BLOB_BYTES), f.number("expires", 0, Long.MAX_VALUE));
            case "signer-trust":
                try {
                    return new Message.TrustChange(new sush.projections.job.SignerTrust(f.flag("add"),
                            new KeyId(f.id("key")), f.bytes("spki", -1, Fields.MAX_BLOB_BYTES), f.text("id", name),
                            f.bytes("operator", -1, Fields.MAX_BLOB_BYTES), f.bytes("signature", -1,
                                    Fields.MAX_BLOB_BYTES)));
                } catch (IllegalArgumentException e) {
                    throw new MessageException("a signer-trust change: " + e.getMessage());
                }
            case "operator-revoked":
                String revocation = f.optionalText("id", name);
                return new OperatorRevoked(new KeyId(f.id("key")), f.text("by", name), revocation == null ? ""
                        : revocation);
            case "operator-unrevoked":
                return new OperatorUnrevoked(new KeyId(f.id("key")), f.text("by", name), f.text("lifts",
                        name));
            case "session-access":
                return new SessionAccess(RecentIds.SESSIONS.of(f.id("session")), f.text("key", name),
                        f.choice("access", Message.Access.class), f.text("by", name));
            case "session-grant":
                try {
                    return new SessionGrant(new SignedGrant(new Grant(f.number("epoch", 0, Long.MAX_VALUE),
                            new KeyId(f.id("signer")), f.text("starter", Grant.MAX_STARTER_CHARS),
                            f.bytes("clientNonce", Grant.NONCE_BYTES, Grant.NONCE_BYTES)),
                            f.choice("algorithm", SignatureAlgorithm.class), f.bytes("signature", -1, Fields.MAX_BLOB_BYTES)));
                } catch (IllegalArgumentException e) {
                    throw new MessageException("session-grant: " + e.getMessage());
                }
            default:
                return new RackError(f.text("baseboard", name), f.choice("error", Message.RackErrorKind.class),
                        RecentIds.SESSIONS.of(f.id("session")), f.text("detail", Fields.MAX_DETAIL_CHARS));
        }
    }
}
