package sush.ops.bench;

import java.util.Arrays;

/** The benches' command-line options. */
final class BenchArgs {
    private BenchArgs() {
    }

    /** The number after {@code name} in {@code args}, or {@code otherwise} when it is not given. */
    static int intOption(String[] args, String name, int otherwise) {
        int at = Arrays.asList(args).indexOf(name);
        return at >= 0 && at + 1 < args.length ? Integer.parseInt(args[at + 1]) : otherwise;
    }

    /** The word after {@code name} in {@code args}, or {@code otherwise} when it is not given. */
    static String option(String[] args, String name, String otherwise) {
        int at = Arrays.asList(args).indexOf(name);
        return at >= 0 && at + 1 < args.length ? args[at + 1] : otherwise;
    }
}
