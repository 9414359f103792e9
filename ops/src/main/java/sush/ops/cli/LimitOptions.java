package sush.ops.cli;

import java.util.Locale;

import picocli.CommandLine.Option;
import sush.projections.job.JobLimits;

/**
 * The limits an operator signs into a job (D-031): each optional; a sled applies its own default
 * for what is not asked and refuses a job asking more than its maximum.
 */
public final class LimitOptions {
    @Option(names = "--wall-time", paramLabel = "DURATION", description = "the longest the job may run on each sled "
            + "(90s, 5m, 2h; a bare number is seconds); past it the job is killed with a wall-time limit error")
    String wallTime;
    @Option(names = "--max-output", paramLabel = "SIZE", description = "the most bytes kept of each output stream "
            + "(64K, 10M, 1G; a bare number is bytes); past it the job is killed with an output-limit error")
    String output;
    @Option(names = "--cpu", paramLabel = "SECONDS", description = "CPU seconds the job's processes may use (each "
            + "process's RLIMIT_CPU); past it a cpu limit error")
    Long cpu;
    @Option(names = "--address-space", paramLabel = "SIZE", description = "the address space each of the job's "
            + "processes may map (RLIMIT_AS): allocations past it fail inside the job")
    String addressSpace;
    @Option(names = "--file-size", paramLabel = "SIZE", description = "the largest file the job may write "
            + "(RLIMIT_FSIZE); past it a file-size limit error")
    String fileSize;

    /** The limits asked; a malformed or non-positive one is a usage error (exit 2). */
    public JobLimits limits() throws Client.Failure {
        if (cpu != null && cpu <= 0) {
            throw new Client.Failure(2, "bad-limit", "--cpu is a positive number of seconds");
        }
        return new JobLimits(wallTime == null ? 0 : millis("--wall-time", wallTime), output == null ? 0
                : bytes("--max-output", output), cpu == null ? 0 : cpu, addressSpace == null ? 0
                        : bytes("--address-space", addressSpace), fileSize == null ? 0 : bytes("--file-size", fileSize));
    }

    /** A duration: a number with s, m or h (a bare number is seconds), in milliseconds. */
    static long millis(String option, String text) throws Client.Failure {
        return scaled(option, text, "s", new String[] {"ms", "s", "m", "h"}, new long[] {1, 1000, 60_000, 3_600_000},
                "a duration such as 90s, 5m or 2h");
    }

    /** A size: a number with K, M, G or T (powers of 1024; a bare number is bytes). */
    static long bytes(String option, String text) throws Client.Failure {
        return scaled(option, text, "", new String[] {"", "k", "m", "g", "t"}, new long[] {1, 1L << 10, 1L << 20,
            1L << 30, 1L << 40}, "a size such as 64K, 10M or 1G");
    }

    private static long scaled(String option, String text, String bare, String[] units, long[] factors, String what)
            throws Client.Failure {
        String t = text.strip().toLowerCase(Locale.ROOT);
        if (t.endsWith("b") && !t.endsWith("ms")) {
            t = t.substring(0, t.length() - 1); // 10MB, 10MiB's "b"
        }
        if (t.endsWith("i")) {
            t = t.substring(0, t.length() - 1);
        }
        int digits = 0;
        while (digits < t.length() && Character.isDigit(t.charAt(digits))) {
            digits++;
        }
        String unit = t.substring(digits).isEmpty() ? bare : t.substring(digits);
        for (int i = 0; i < units.length; i++) {
            if (digits > 0 && units[i].equals(unit)) {
                try {
                    long n = Math.multiplyExact(Long.parseLong(t.substring(0, digits)), factors[i]);
                    if (n > 0) {
                        return n;
                    }
                } catch (ArithmeticException | NumberFormatException e) {
                    break;
                }
            }
        }
        throw new Client.Failure(2, "bad-limit", option + " is " + what + ", not " + text);
    }
}
