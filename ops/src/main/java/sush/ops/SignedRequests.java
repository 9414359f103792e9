package sush.ops;

import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

import sush.projections.id.IdException;
import sush.projections.id.JobId;
import sush.projections.id.KeyId;
import sush.projections.id.SessionId;
import sush.projections.job.JobRequest;
import sush.projections.job.SignatureAlgorithm;
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
        try {
            JobRequest r = new JobRequest(SessionId.parse(text(n, "session")), JobId.parse(text(n, "job")),
                    text(n, "command"), text(n, "target"), flag(n, "concurrent"));
            SignatureAlgorithm alg = null;
            for (SignatureAlgorithm a : SignatureAlgorithm.values()) {
                if (Json.lower(a).equals(text(n, "algorithm"))) {
                    alg = a;
                }
            }
            if (alg == null) {
                throw new BadRequest("malformed-body", "unknown algorithm " + text(n, "algorithm"));
            }
            return new SignedJob(r, KeyId.parse(text(n, "key")), alg, base64(n, "signature"));
        } catch (IdException e) {
            throw new BadRequest("bad-codephrase", e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new BadRequest("malformed-body", e.getMessage());
        }
    }

    /** An optional boolean field: absent is false; any other type is refused, never coerced. */
    static boolean flag(JsonNode n, String field) throws BadRequest {
        JsonNode v = n.get(field);
        if (v == null) {
            return false;
        }
        if (!v.isBoolean()) {
            throw new BadRequest("malformed-body", "field " + field + " is not true or false");
        }
        return v.booleanValue();
    }

    /** A base64 text field. */
    public static byte[] base64(JsonNode n, String field) throws BadRequest {
        try {
            return Base64.getDecoder().decode(text(n, field));
        } catch (IllegalArgumentException e) {
            throw new BadRequest("malformed-body", "field " + field + " is not base64");
        }
    }

    private static String text(JsonNode n, String field) throws BadRequest {
        JsonNode v = n.get(field);
        if (v == null || !v.isString()) {
            throw new BadRequest("malformed-body", "field " + field + " is missing or not text");
        }
        return v.stringValue();
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
