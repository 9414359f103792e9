package sush.projections.message;

import tools.jackson.databind.JsonNode;

import sush.projections.id.Id88;

/** Typed, bounded reads of one message body's fields; any miss is a {@link MessageException}. */
final class Fields {
    /** Bound on names (baseboards, starters, software versions). */
    static final int MAX_NAME_CHARS = 256;
    /** Bound on a command text. */
    static final int MAX_COMMAND_CHARS = 64 * 1024;
    /** Bound on detail texts. */
    static final int MAX_DETAIL_CHARS = 4 * 1024;
    /** Bound on nonces and signatures. */
    static final int MAX_BLOB_BYTES = 512;

    private final JsonNode body;
    private final String kind;

    Fields(JsonNode body, String kind) throws MessageException {
        if (body == null || !body.isObject()) {
            throw new MessageException(kind + ": body is not a map");
        }
        this.body = body;
        this.kind = kind;
    }

    String text(String name, int maxChars) throws MessageException {
        JsonNode n = body.get(name);
        if (n == null || !n.isString()) {
            throw new MessageException(kind + "." + name + ": missing or not text");
        }
        String v = n.stringValue();
        if (v.length() > maxChars) {
            throw new MessageException(kind + "." + name + ": over " + maxChars + " characters");
        }
        return v;
    }

    String optionalText(String name, int maxChars) throws MessageException {
        JsonNode n = body.get(name);
        return n == null || n.isNull() ? null : text(name, maxChars);
    }

    byte[] bytes(String name, int exactLength, int maxLength) throws MessageException {
        JsonNode n = body.get(name);
        if (n == null || !n.isBinary()) {
            throw new MessageException(kind + "." + name + ": missing or not bytes");
        }
        byte[] v = n.binaryValue();
        if (exactLength >= 0 ? v.length != exactLength : v.length > maxLength) {
            throw new MessageException(kind + "." + name + ": wrong length " + v.length);
        }
        return v;
    }

    byte[] id(String name) throws MessageException {
        return bytes(name, Id88.BYTES, Id88.BYTES);
    }

    long number(String name, long min, long max) throws MessageException {
        JsonNode n = body.get(name);
        if (n == null || !n.isIntegralNumber() || !(n.isInt() || n.isLong())) {
            throw new MessageException(kind + "." + name + ": missing or not an integer");
        }
        long v = n.longValue();
        if (v < min || v > max) {
            throw new MessageException(kind + "." + name + ": " + v + " outside [" + min + ", " + max + "]");
        }
        return v;
    }

    Long optionalNumber(String name, long min, long max) throws MessageException {
        JsonNode n = body.get(name);
        return n == null || n.isNull() ? null : number(name, min, max);
    }

    boolean flag(String name) throws MessageException {
        JsonNode n = body.get(name);
        if (n == null || !n.isBoolean()) {
            throw new MessageException(kind + "." + name + ": missing or not a boolean");
        }
        return n.booleanValue();
    }

    <E extends Enum<E>> E choice(String name, Class<E> type) throws MessageException {
        String v = text(name, MAX_NAME_CHARS);
        for (E e : type.getEnumConstants()) {
            if (MessageCodec.wireName(e).equals(v)) {
                return e;
            }
        }
        throw new MessageException(kind + "." + name + ": unknown value '" + v + "'");
    }
}
