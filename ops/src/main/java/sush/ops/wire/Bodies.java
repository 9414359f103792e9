package sush.ops.wire;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import sush.ops.wire.SignedRequests.BadRequest;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The API's request bodies, bound by Jackson onto records (snake_case names) with strict types
 * (D-033): a field of the wrong JSON type, an unknown field, a missing required one or bad
 * base64 is a {@link BadRequest} naming the field (the API's 400), never a default or a 500.
 * Nothing is coerced: not a number to text, text to a number, a number to a boolean, nor
 * {@code ""} to an absent object.
 */
public final class Bodies {
    /** Strict binding: no coercion of scalars, unknown fields refused, one document and nothing after it. */
    public static final JsonMapper STRICT = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .withCoercionConfigDefaults(c -> {
                for (CoercionInputShape shape : CoercionInputShape.values()) {
                    c.setCoercion(shape, CoercionAction.Fail);
                }
            })
            .build();

    private Bodies() {
    }

    /** {@code POST /login}: an operator key's signature over the sled's challenge (security.md section 2). */
    public record Login(String key, String nonce, String clientNonce, String ephemeral, String signature) {
    }

    /**
     * {@code POST /trust} (issue 41): an operator's signed change of the signer keys trusted:
     * {@code add} with the key's SubjectPublicKeyInfo ({@code spki}, base64), or a revocation of
     * {@code key_id}; the change's id, the operator's OpenSSH key blob and its signature (base64).
     */
    public record TrustChange(Boolean add, String keyId, String spki, String id, String operatorKey,
            String signature) {
    }

    /** {@code POST /sessions/start} (causal racks): an optional client nonce. */
    public record SessionStart(String clientNonce) {
    }

    /** A job's own limits (D-031), each optional. */
    public record Limits(Long wallTimeMs, Long outputBytes, Long cpuSeconds, Long addressSpaceBytes,
            Long fileSizeBytes) {
    }

    /** {@code POST /jobs/{id}/start} and `sush job sign`'s output: a signed job request. */
    public record JobStart(String session, String job, String command, String target, Boolean concurrent, String key,
            String algorithm, String signature, Limits limits, String mode, Integer waveSize, Integer maxFailures) {
    }

    /** {@code POST /sessions/grant}: a signer's grant (ordered-sessions.md section 1). */
    public record Grant(Long epoch, String signer, String starter, String clientNonce, String algorithm,
            String signature) {
    }

    /** Binds a body; an empty one is bound as {@code {}}. */
    public static <T> T read(byte[] body, Class<T> type) throws BadRequest {
        JsonNode n;
        try {
            n = STRICT.readTree(body.length == 0 ? "{}".getBytes(StandardCharsets.UTF_8) : body);
        } catch (JacksonException e) {
            throw refusal(e, type);
        }
        return read(n, type);
    }

    /**
     * Binds a parsed document (a body, or a file the CLI read). An explicit null is refused
     * first: it is no field's type here, and binding would read it as an absent field.
     */
    public static <T> T read(JsonNode n, Class<T> type) throws BadRequest {
        if (n == null || !n.isObject()) {
            throw new BadRequest("malformed-body", "the body is not one JSON object");
        }
        noNulls(n, "");
        try {
            return STRICT.treeToValue(n, type);
        } catch (JacksonException e) {
            throw refusal(e, type);
        }
    }

    private static void noNulls(JsonNode n, String at) throws BadRequest {
        for (Map.Entry<String, JsonNode> f : n.properties()) {
            String field = at + f.getKey();
            if (f.getValue().isNull()) {
                throw new BadRequest("malformed-body", "field " + field + " is null; leave it out or give a value");
            }
            if (f.getValue().isObject()) {
                noNulls(f.getValue(), field + ".");
            }
        }
    }

    /** A required field: present (an explicit null was refused while binding). */
    public static <T> T required(T value, String field) throws BadRequest {
        if (value == null) {
            throw new BadRequest("malformed-body", "field " + field + " is missing");
        }
        return value;
    }

    /** A required base64 field, decoded. */
    public static byte[] base64(String value, String field) throws BadRequest {
        try {
            return Base64.getDecoder().decode(required(value, field));
        } catch (IllegalArgumentException e) {
            throw new BadRequest("malformed-body", "field " + field + " is not base64");
        }
    }

    /** What a binding failure says: the field's dotted path and what it must be. */
    static BadRequest refusal(JacksonException e, Class<?> top) {
        List<String> path = new ArrayList<>();
        for (JacksonException.Reference r : e.getPath()) {
            path.add(r.getPropertyName() != null ? r.getPropertyName() : "[" + r.getIndex() + "]");
        }
        String field = String.join(".", path).replace(".[", "[");
        if (e instanceof UnrecognizedPropertyException) {
            return new BadRequest("malformed-body", "field " + field + " is not a field of this request");
        }
        if (e instanceof MismatchedInputException && !path.isEmpty()) {
            Class<?> want = ((MismatchedInputException) e).getTargetType();
            return new BadRequest("malformed-body", "field " + field + " is not " + describe(want));
        }
        if (e instanceof MismatchedInputException) {
            return new BadRequest("malformed-body", "the body is not one JSON object (" + e.getOriginalMessage() + ")");
        }
        return new BadRequest("malformed-body", "the body is not JSON: " + e.getOriginalMessage());
    }

    private static String describe(Class<?> type) {
        if (type == null) {
            return "of the right type";
        }
        if (type == String.class) {
            return "text";
        }
        if (type == Long.class || type == long.class || type == Integer.class || type == int.class) {
            return "an integer";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        return "an object";
    }
}
