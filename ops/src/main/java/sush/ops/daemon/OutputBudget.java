package sush.ops.daemon;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Job output directories within a byte budget (issue 16) and a count of jobs (issue 39): past
 * either the directories of finished jobs are deleted, the oldest finished first; a running job's
 * directory is never touched. The count keeps this budget's own memory (one entry per directory
 * kept) and the disk's directories bounded over a long life of tiny outputs. What
 * keeps a job from running twice is the boundary record, not its directory: deleting an output
 * only means {@code job output} answers 404 for it.
 *
 * <p>The directories are listed and measured once, at the first call; after that each ending
 * measures only its own job's directory, so keeping the budget costs the same at the
 * 20,000th job as at the first (the soak benchmark found a walk of every directory after every
 * ending growing the round trip with the sled's history). A running job's bytes count from its
 * ending. One thread at a time: the daemon calls it from its housekeeping, serialized.
 */
final class OutputBudget {
    /** The default budget of all job outputs of a sled: 8 GiB ({@code --output-max-bytes}). */
    static final long DEFAULT_MAX_BYTES = 8L << 30;
    /** The default bound on finished jobs' output directories kept: 10,000 ({@code --output-max-jobs}). */
    static final int DEFAULT_MAX_JOBS = 10_000;

    /** One job's directory, its bytes, and when it last changed (its ending). */
    record JobDir(Path dir, long bytes, long modifiedMillis) {
    }

    private static final Comparator<JobDir> OLDEST_FIRST = Comparator.comparingLong(JobDir::modifiedMillis)
            .thenComparing(j -> j.dir().toString());

    private final Path jobsDir;
    private final long maxBytes;
    private final int maxJobs;
    private final Map<Path, JobDir> known = new HashMap<>();
    private final TreeSet<JobDir> byAge = new TreeSet<>(OLDEST_FIRST);
    private long total;
    private boolean listed;
    /** Bound on the deleted directories remembered (so that their jobs' outputs answer "deleted", not "none"). */
    static final int MAX_DELETED_REMEMBERED = 65_536;
    /** The fewest deleted directories remembered, however few jobs' outputs are kept. */
    static final int MIN_DELETED_REMEMBERED = 1_024;
    /**
     * The jobs whose directories this budget deleted, the most recent ones: as many as it keeps
     * (at least {@link #MIN_DELETED_REMEMBERED}, at most {@link #MAX_DELETED_REMEMBERED}). Past it
     * the oldest deletion is forgotten: that job's output then answers "none" (404) instead of
     * "deleted" (410); its length and hash stay in its status either way.
     */
    private final Set<String> deleted;

    OutputBudget(Path jobsDir, long maxBytes) {
        this(jobsDir, maxBytes, DEFAULT_MAX_JOBS);
    }

    OutputBudget(Path jobsDir, long maxBytes, int maxJobs) {
        if (maxJobs <= 0) {
            throw new IllegalArgumentException("keeping outputs of " + maxJobs + " jobs");
        }
        this.jobsDir = jobsDir;
        this.maxBytes = maxBytes;
        this.maxJobs = maxJobs;
        int remembered = Math.min(MAX_DELETED_REMEMBERED, Math.max(MIN_DELETED_REMEMBERED, maxJobs));
        this.deleted = Collections.newSetFromMap(new LinkedHashMap<String, Boolean>() {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                return size() > remembered;
            }
        });
    }

    /** Whether this budget deleted {@code job}'s output directory (one of the most recent it deleted). */
    synchronized boolean wasDeleted(String job) {
        return deleted.contains(job);
    }

    /** The bytes of all directories it knows (tests, metrics). */
    synchronized long total() throws IOException {
        listOnce();
        return total;
    }

    /** The directories it knows (tests, metrics). */
    synchronized int directories() throws IOException {
        listOnce();
        return known.size();
    }

    /**
     * Counts {@code job}'s directory (it just ended), then deletes finished jobs' directories,
     * oldest first, while all of them hold more than the budget or there are more than its count. {@code running} is asked only
     * when something must go: the directories to keep whatever their age. Returns the directories
     * deleted.
     */
    synchronized List<Path> ended(String job, Supplier<Set<String>> running) throws IOException {
        listOnce();
        Path dir = jobsDir.resolve(job);
        if (Files.isDirectory(dir)) {
            // Its age is its ending: now.
            put(new JobDir(dir, measure(dir).bytes(), System.currentTimeMillis()));
        }
        // The job that just ended is kept too, whatever its size: its operator is about to read
        // it. The outputs stay within the budget plus that one job.
        return keep(() -> {
            Set<String> keep = new HashSet<>(running.get());
            keep.add(job);
            return keep;
        });
    }

    private boolean over() {
        return total > maxBytes || known.size() > maxJobs;
    }

    private List<Path> keep(Supplier<Set<String>> running) throws IOException {
        if (!over()) {
            return List.of();
        }
        Set<String> keep = running.get();
        List<Path> gone = new ArrayList<>();
        List<JobDir> kept = new ArrayList<>();
        while (over() && !byAge.isEmpty()) {
            JobDir oldest = byAge.pollFirst();
            if (keep.contains(oldest.dir().getFileName().toString())) {
                kept.add(oldest);
                continue;
            }
            known.remove(oldest.dir());
            total -= oldest.bytes();
            delete(oldest.dir());
            gone.add(oldest.dir());
            deleted.add(oldest.dir().getFileName().toString());
        }
        byAge.addAll(kept);
        return gone;
    }

    /**
     * As a sled would at start: every directory under {@code jobsDir} measured, then the oldest
     * finished deleted until the rest fit in {@code maxBytes} (tests; the daemon keeps one
     * instance and calls {@link #ended}).
     */
    static List<Path> prune(Path jobsDir, long maxBytes, Set<String> running) throws IOException {
        OutputBudget b = new OutputBudget(jobsDir, maxBytes);
        b.listOnce();
        return b.keep(() -> running);
    }

    private void listOnce() throws IOException {
        if (listed) {
            return;
        }
        listed = true;
        if (!Files.isDirectory(jobsDir)) {
            return;
        }
        try (Stream<Path> listing = Files.list(jobsDir)) {
            for (Path d : (Iterable<Path>) listing::iterator) {
                if (Files.isDirectory(d)) {
                    put(measure(d));
                }
            }
        }
    }

    private void put(JobDir j) {
        JobDir before = known.put(j.dir(), j);
        if (before != null) {
            byAge.remove(before);
            total -= before.bytes();
        }
        byAge.add(j);
        total += j.bytes();
    }

    private static JobDir measure(Path dir) throws IOException {
        long[] sum = {0};
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                sum[0] += attrs.size();
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
                return FileVisitResult.CONTINUE;
            }
        });
        return new JobDir(dir, sum[0], Files.getLastModifiedTime(dir).toMillis());
    }

    private static void delete(Path dir) throws IOException {
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    Files.deleteIfExists(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (NoSuchFileException gone) {
            // Already gone (an operator cleaned up): nothing of it is counted any more either way.
        }
    }
}
