package sush.ops.wire;

import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

import sush.projections.id.IdException;
import sush.projections.id.JobId;
import sush.projections.id.KeyId;
import sush.projections.id.SessionId;
import sush.projections.job.Grant;
import sush.projections.job.JobLimits;
import sush.projections.job.JobMode;
import sush.projections.job.JobWave;
import sush.projections.job.JobRequest;
import sush.projections.job.SignatureAlgorithm;
import sush.projections.job.SignedGrant;
import sush.projections.job.SignedJob;
import tools.jackson.databind.JsonNode;

/** A signed job request as JSON: what `sush job sign` prints and `POST /jobs/{jid}/start` takes. */
public final class SignedRequests {
    /** Bound on a request body. */
    public static final int MAX_BODY_BYTES = 80 * 1024;

    private SignedRequests() {
    }

    public static Map<String, Object> toJson(SignedJob j) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("session", j.request().session().codephrase());
        m.put("job", j.request().job().codephrase());
        m.put("command", j.request().command());
        m.put("target", j.request().target());
        m.put("concurrent", j.request().concurrent());
        JobLimits l = j.request().limits();
        if (!l.isNone()) {
            Map<String, Object> limits = new LinkedHashMap<>();
            for (JobLimits.Kind k : JobLimits.Kind.values()) {
                if (l.get(k) > 0) {
                    limits.put(LIMIT_FIELDS[k.ordinal()], l.get(k));
                }
            }
            m.put("limits", limits);
        }
        if (j.request().mode() != JobMode.RECORDED) {
            m.put("mode", j.request().mode().wire());
        }
        if (j.request().wave().isSet()) {
            m.put("wave_size", j.request().wave().size());
            m.put("max_failures", j.request().wave().maxFailures());
        }
        m.put("key", j.key().codephrase());
        m.put("algorithm", Json.lower(j.algorithm()));
        m.put("signature", Base64.getEncoder().encodeToString(j.signature()));
        return m;
    }

    /** Parses a request; every missing or malformed field is a {@link BadRequest} naming it. */
    public static SignedJob fromJson(JsonNode n) throws BadRequest {
        if (n == null || !n.isObject()) {
            throw new BadRequest("malformed-body", "a signed job request is a JSON object");
        }
        return fromBody(Bodies.read(n, Bodies.JobStart.class));
    }

    /** A bound request body as a signed job; a missing or malformed field is a {@link BadRequest} naming it. */
    public static SignedJob fromBody(Bodies.JobStart b) throws BadRequest {
        try {
            JobRequest r = new JobRequest(SessionId.parse(Bodies.required(b.session(), "session")),
                    JobId.parse(Bodies.required(b.job(), "job")), Bodies.required(b.command(), "command"),
                    Bodies.required(b.target(), "target"), Boolean.TRUE.equals(b.concurrent()), limits(b.limits()),
                    mode(b.mode()), wave(b.waveSize(), b.maxFailures()));
            return new SignedJob(r, KeyId.parse(Bodies.required(b.key(), "key")), algorithm(Bodies.required(
                    b.algorithm(), "algorithm")), Bodies.base64(b.signature(), "signature"));
        } catch (IdException e) {
            throw new BadRequest("bad-codephrase", e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new BadRequest("malformed-body", e.getMessage());
        }
    }

    /**
     * A signed grant as JSON (ordered-sessions.md section 1): what `sush session start` keeps in
     * its grant file and `POST /sessions/grant` takes. The session id is not a field: every
     * reader computes it from the signed ones.
     */
    public static Map<String, Object> grantToJson(SignedGrant g) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("epoch", g.grant().epoch());
        m.put("signer", g.grant().signer().codephrase());
        m.put("starter", g.grant().starter());
        m.put("client_nonce", Base64.getEncoder().encodeToString(g.grant().clientNonce()));
        m.put("algorithm", Json.lower(g.algorithm()));
        m.put("signature", Base64.getEncoder().encodeToString(g.signature()));
        return m;
    }

    /** Parses a grant; every missing or malformed field is a {@link BadRequest} naming it. */
    public static SignedGrant grantFromJson(JsonNode n) throws BadRequest {
        if (n == null || !n.isObject()) {
            throw new BadRequest("malformed-body", "a signed grant is a JSON object");
        }
        return grantFromBody(Bodies.read(n, Bodies.Grant.class));
    }

    /** A bound grant body as a signed grant. */
    public static SignedGrant grantFromBody(Bodies.Grant b) throws BadRequest {
        if (Bodies.required(b.epoch(), "epoch") < 0) {
            throw new BadRequest("malformed-body", "field epoch is not an epoch (an integer from 0 to 2^63 - 1)");
        }
        try {
            Grant g = new Grant(b.epoch(),
                    KeyId.parse(Bodies.required(b.signer(), "signer")), Bodies.required(b.starter(), "starter"),
                    Bodies.base64(b.clientNonce(), "client_nonce"));
            return new SignedGrant(g, algorithm(Bodies.required(b.algorithm(), "algorithm")),
                    Bodies.base64(b.signature(), "signature"));
        } catch (IdException e) {
            throw new BadRequest("bad-codephrase", e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new BadRequest("malformed-body", e.getMessage());
        }
    }

    /** Issue 40: a job's waves, both fields or neither. */
    private static JobWave wave(Integer size, Integer maxFailures) throws BadRequest {
        if (size == null && maxFailures == null) {
            return JobWave.NONE;
        }
        if (size == null || size < 1) {
            throw new BadRequest("malformed-body", "field wave_size is a number of sleds from 1 to " + JobWave.MAX_SIZE
                    + " when max_failures is given");
        }
        try {
            return new JobWave(size, maxFailures == null ? 0 : maxFailures);
        } catch (IllegalArgumentException e) {
            throw new BadRequest("malformed-body", "fields wave_size and max_failures: " + e.getMessage());
        }
    }

    private static JobMode mode(String mode) throws BadRequest {
        try {
            return mode == null ? JobMode.RECORDED : JobMode.parse(mode);
        } catch (IllegalArgumentException e) {
            throw new BadRequest("malformed-body", "field mode: " + e.getMessage());
        }
    }

    private static SignatureAlgorithm algorithm(String name) throws BadRequest {
        for (SignatureAlgorithm a : SignatureAlgorithm.values()) {
            if (Json.lower(a).equals(name)) {
                return a;
            }
        }
        throw new BadRequest("malformed-body", "unknown algorithm " + name);
    }

    /** The JSON names of a job's limits, in {@link sush.projections.job.JobLimits.Kind} order. */
    public static final String[] LIMIT_FIELDS = {"wall_time_ms", "output_bytes", "cpu_seconds", "address_space_bytes",
        "file_size_bytes"};

    /** The optional {@code limits} object: each given limit a positive integer. */
    static JobLimits limits(Bodies.Limits l) throws BadRequest {
        if (l == null) {
            return JobLimits.NONE;
        }
        Long[] given = {l.wallTimeMs(), l.outputBytes(), l.cpuSeconds(), l.addressSpaceBytes(), l.fileSizeBytes()};
        long[] v = new long[given.length];
        for (int i = 0; i < v.length; i++) {
            if (given[i] != null && given[i] <= 0) {
                throw new BadRequest("malformed-body", "field limits." + LIMIT_FIELDS[i] + " is not a positive integer");
            }
            v[i] = given[i] == null ? 0 : given[i];
        }
        return new JobLimits(v[0], v[1], v[2], v[3], v[4]);
    }

    /** A request the API refuses with a 4xx and a code. */
    public static final class BadRequest extends Exception {
        private static final long serialVersionUID = 1L;
        private final String code;

        public BadRequest(String code, String message) {
            super(message);
            this.code = code;
        }

        public String code() {
            return code;
        }
    }
}
