package sush.gossip.bench;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/** Tiny benchmark helpers: timed samples, medians, and the one-line JSON every bench ends with. */
public final class Measure {
    private Measure() {
    }

    /** A body measured in samples; each returns its own elapsed nanoseconds. */
    @FunctionalInterface
    public interface Sample {
        long runNs() throws Exception;
    }

    /** Runs {@code warmup} unrecorded samples, then {@code samples} recorded ones; sorted nanos. */
    public static long[] samples(int warmup, int samples, Sample body) throws Exception {
        for (int i = 0; i < warmup; i++) {
            body.runNs();
        }
        long[] out = new long[samples];
        for (int i = 0; i < samples; i++) {
            out[i] = body.runNs();
        }
        Arrays.sort(out);
        return out;
    }

    public static double median(long[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
    }

    public static double percentile(long[] sorted, double p) {
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    /**
     * This JVM's CPU time from construction on, over the wall time: how many cores a run kept
     * busy (the whole process: a benchmark reads it while nothing else runs in it).
     */
    public static final class CpuWatch {
        private final long cpuStart = cpuNs();
        private final long wallStart = System.nanoTime();
        private final long[] gcStart = collections();

        public double cores() {
            long wall = System.nanoTime() - wallStart;
            return wall <= 0 ? 0 : (cpuNs() - cpuStart) / (double) wall;
        }

        /** Collections of this JVM's garbage collectors since the watch started. */
        public long gcCount() {
            return collections()[0] - gcStart[0];
        }

        /** Milliseconds this JVM's collectors reported since the watch started (G1: its pauses). */
        public long gcMs() {
            return collections()[1] - gcStart[1];
        }

        private static long[] collections() {
            long count = 0;
            long ms = 0;
            for (java.lang.management.GarbageCollectorMXBean gc
                    : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
                count += Math.max(0, gc.getCollectionCount());
                ms += Math.max(0, gc.getCollectionTime());
            }
            return new long[] {count, ms};
        }

        private static long cpuNs() {
            return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                    .getOperatingSystemMXBean()).getProcessCpuTime();
        }
    }

    public static boolean quick(String[] args) {
        return Arrays.asList(args).contains("--quick");
    }

    /** The closing line: {"bench":name, key: value, ...} with numbers rounded to 0.1. */
    public static String json(String bench, Map<String, ? extends Number> figures) {
        StringJoiner j = new StringJoiner(",", "{", "}");
        j.add("\"bench\":\"" + bench + "\"");
        figures.forEach((k, v) -> j.add("\"" + k + "\":" + format(v)));
        return j.toString();
    }

    private static String format(Number v) {
        if (v instanceof Integer || v instanceof Long) {
            return v.toString();
        }
        double d = v.doubleValue();
        // Ratios and small figures keep three decimals; the rest one.
        return String.format(Locale.ROOT, Math.abs(d) < 10 ? "%.3f" : "%.1f", d);
    }
}
