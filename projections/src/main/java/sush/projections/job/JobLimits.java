package sush.projections.job;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * What the operator allows one job, signed into its request (D-031): wall time, output bytes
 * per stream, CPU seconds, address space and file size. Each is optional (0 here, "not asked":
 * the sled's own default applies); a sled refuses a job asking more than its maximum. A request
 * with no limit hashes and encodes exactly as before limits existed.
 */
public record JobLimits(long wallTimeMs, long outputBytes, long cpuSeconds, long addressSpaceBytes,
        long fileSizeBytes) {
    /** No limit asked: the sled's defaults. */
    public static final JobLimits NONE = new JobLimits(0, 0, 0, 0, 0);

    /** The names of the limits, as the wire, the API and error statuses spell them. */
    public enum Kind {
        WALL_TIME("wall-time"), OUTPUT("output"), CPU("cpu"), ADDRESS_SPACE("address-space"), FILE_SIZE("file-size");

        private final String wire;

        Kind(String wire) {
            this.wire = wire;
        }

        public String wire() {
            return wire;
        }
    }

    public JobLimits {
        if (wallTimeMs < 0 || outputBytes < 0 || cpuSeconds < 0 || addressSpaceBytes < 0 || fileSizeBytes < 0) {
            throw new IllegalArgumentException("a job limit is a positive number (or absent)");
        }
    }

    public boolean isNone() {
        return equals(NONE);
    }

    /** The asked value of {@code k}, 0 when not asked. */
    public long get(Kind k) {
        switch (k) {
            case WALL_TIME:
                return wallTimeMs;
            case OUTPUT:
                return outputBytes;
            case CPU:
                return cpuSeconds;
            case ADDRESS_SPACE:
                return addressSpaceBytes;
            default:
                return fileSizeBytes;
        }
    }

    /**
     * The limits asked above {@code maxima} (a maximum of 0 allows any value), each described
     * with both figures; empty when every asked limit is within them.
     */
    public List<String> above(JobLimits maxima) {
        List<String> out = new ArrayList<>();
        for (Kind k : Kind.values()) {
            long asked = get(k);
            long max = maxima.get(k);
            if (asked > 0 && max > 0 && asked > max) {
                out.add(k.wire() + " " + asked + " " + unit(k) + " is above this sled's maximum " + max + " "
                        + unit(k));
            }
        }
        return out;
    }

    /** The unit of a limit's number. */
    public static String unit(Kind k) {
        return k == Kind.WALL_TIME ? "ms" : k == Kind.CPU ? "s" : "bytes";
    }

    /** The signed bytes of the limits: five 8-byte big-endian numbers in {@link Kind} order. */
    byte[] toBytes() {
        ByteBuffer b = ByteBuffer.allocate(40);
        for (Kind k : Kind.values()) {
            b.putLong(get(k));
        }
        return b.array();
    }
}
