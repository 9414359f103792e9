package sush.projections.message;

import java.util.Arrays;

import sush.projections.id.Id88;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;

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

    /** Bound on the fields of one body. */
    static final int MAX_FIELDS = 32;

    /**
     * The body's names and values, in the order read: a flat array, not a map, because bodies
     * have a handful of fields and every delivered message is read once (D-018).
     */
    private String[] names;
    private Object[] values;
    private int size;
    private final String kind;

    Fields(String kind) {
        this(kind, 8);
    }

    /** Room for {@code expected} fields to start with (it grows up to {@link #MAX_FIELDS}). */
    Fields(String kind, int expected) {
        this.kind = kind;
        this.names = new String[Math.max(1, Math.min(expected, MAX_FIELDS))];
        this.values = new Object[names.length];
    }

    /** Adds a field; false (and nothing added) if the body already has it or is full. */
    boolean add(String name, Object value) {
        if (get(name) != null) {
            return false;
        }
        return addNew(name, value);
    }

    /** Adds a field the caller knows is not there yet; false (nothing added) if the body is full. */
    boolean addNew(String name, Object value) {
        if (size >= MAX_FIELDS) {
            return false;
        }
        if (size == names.length) {
            names = Arrays.copyOf(names, size * 2);
            values = Arrays.copyOf(values, size * 2);
        }
        names[size] = name;
        values[size++] = value;
        return true;
    }

    int size() {
        return size;
    }

    String kind() {
        return kind;
    }

    private Object get(String name) {
        // Names read directly are the very literals the readers ask for: try identity first.
        for (int i = 0; i < size; i++) {
            if (names[i] == name) {
                return values[i];
            }
        }
        for (int i = 0; i < size; i++) {
            if (names[i].equals(name)) {
                return values[i];
            }
        }
        return null;
    }

    String text(String name, int maxChars) throws MessageException {
        Object v = get(name);
        if (!(v instanceof String)) {
            throw new MessageException(kind + "." + name + ": missing or not text");
        }
        String t = (String) v;
        if (t.length() > maxChars) {
            throw new MessageException(kind + "." + name + ": over " + maxChars + " characters");
        }
        // CBOR text is UTF-8: an unpaired surrogate is not text, and could not be re-encoded.
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < t.length() && Character.isLowSurrogate(t.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new MessageException(kind + "." + name + ": unpaired surrogate in text");
            }
        }
        return t;
    }

    byte[] bytes(String name, int exactLength, int maxLength) throws MessageException {
        Object v = get(name);
        if (!(v instanceof byte[])) {
            throw new MessageException(kind + "." + name + ": missing or not bytes");
        }
        byte[] b = (byte[]) v;
        if (exactLength >= 0 ? b.length != exactLength : b.length > maxLength) {
            throw new MessageException(kind + "." + name + ": wrong length " + b.length);
        }
        return b;
    }

    byte[] id(String name) throws MessageException {
        return bytes(name, Id88.BYTES, Id88.BYTES);
    }

    long number(String name, long min, long max) throws MessageException {
        Object v = get(name);
        if (!(v instanceof Long)) {
            throw new MessageException(kind + "." + name + ": missing or not an integer");
        }
        long n = (Long) v;
        if (n < min || n > max) {
            throw new MessageException(kind + "." + name + ": " + n + " outside [" + min + ", " + max + "]");
        }
        return n;
    }

    String optionalText(String name, int maxChars) throws MessageException {
        Object v = get(name);
        return v != null && v != NULL ? text(name, maxChars) : null;
    }

    Long optionalNumber(String name, long min, long max) throws MessageException {
        Object v = get(name);
        return v != null && v != NULL ? number(name, min, max) : null;
    }

    boolean flag(String name) throws MessageException {
        Object v = get(name);
        if (!(v instanceof Boolean)) {
            throw new MessageException(kind + "." + name + ": missing or not a boolean");
        }
        return (Boolean) v;
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

    /** Marks a CBOR null in the field map. */
    static final Object NULL = new Object();

    /**
     * Reads one flat CBOR map (the parser stands on its START_OBJECT) into field values: text,
     * byte strings, 64-bit integers, booleans, null. Nested values and duplicates are refused.
     */
    static Fields read(JsonParser p, String kind) throws MessageException {
        Fields fields = new Fields(kind);
        for (JsonToken t = p.nextToken(); t != JsonToken.END_OBJECT; t = p.nextToken()) {
            if (t != JsonToken.PROPERTY_NAME || fields.size() >= MAX_FIELDS) {
                throw new MessageException(kind + ": body is not a flat map of at most " + MAX_FIELDS + " fields");
            }
            String name = p.currentName();
            Object value = value(p, p.nextToken(), kind + "." + name);
            if (!fields.add(name, value)) {
                throw new MessageException(kind + "." + name + ": field given twice");
            }
        }
        return fields;
    }

    private static Object value(JsonParser p, JsonToken t, String where) throws MessageException {
        if (t == JsonToken.VALUE_STRING) {
            return p.getString();
        } else if (t == JsonToken.VALUE_NUMBER_INT) {
            JsonParser.NumberType type = p.getNumberType();
            if (type != JsonParser.NumberType.INT && type != JsonParser.NumberType.LONG) {
                throw new MessageException(where + ": integer over 64 bits");
            }
            return p.getLongValue();
        } else if (t == JsonToken.VALUE_EMBEDDED_OBJECT) {
            return p.getBinaryValue();
        } else if (t == JsonToken.VALUE_TRUE || t == JsonToken.VALUE_FALSE) {
            return t == JsonToken.VALUE_TRUE;
        } else if (t == JsonToken.VALUE_NULL) {
            return NULL;
        }
        throw new MessageException(where + ": unexpected " + t);
    }
}
