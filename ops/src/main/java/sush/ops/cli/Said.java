package sush.ops.cli;

/**
 * A field of a sled's answer as the CLI shows it when the sled left it out or said null: empty
 * text, zero, false (what the CLI showed when it read answers as JSON trees).
 */
final class Said {
    private Said() {
    }

    static String text(String s) {
        return s == null ? "" : s;
    }

    static String text(String s, String otherwise) {
        return s == null ? otherwise : s;
    }

    static long number(Long n) {
        return n == null ? 0 : n;
    }

    static int number(Integer n) {
        return n == null ? 0 : n;
    }

    static int number(Integer n, int otherwise) {
        return n == null ? otherwise : n;
    }

    static double number(Double n) {
        return n == null ? 0 : n;
    }

    static boolean flag(Boolean b) {
        return b != null && b;
    }
}
