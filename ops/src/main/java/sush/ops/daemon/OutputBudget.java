package sush.ops.daemon;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Job output directories within a byte budget (issue 16): past it the directories of finished
 * jobs are deleted, the oldest finished first; a running job's directory is never touched. What
 * keeps a job from running twice is the boundary record, not its directory: deleting an output
 * only means {@code job output} answers 404 for it.
 */
final class OutputBudget {
    /** The default budget of all job outputs of a sled: 8 GiB ({@code --output-max-bytes}). */
    static final long DEFAULT_MAX_BYTES = 8L << 30;

    private OutputBudget() {
    }

    /** One job's directory, its bytes, and when it last changed (its ending). */
    record JobDir(Path dir, long bytes, long modifiedMillis) {
    }

    /**
     * Deletes finished jobs' directories under {@code jobsDir}, oldest first, while all of them
     * hold more than {@code maxBytes}. {@code running} names directories to keep whatever their
     * age. Returns the directories deleted.
     */
    static List<Path> prune(Path jobsDir, long maxBytes, Set<String> running) throws IOException {
        List<JobDir> dirs = new ArrayList<>();
        long total = 0;
        if (!Files.isDirectory(jobsDir)) {
            return List.of();
        }
        try (Stream<Path> listing = Files.list(jobsDir)) {
            for (Path d : (Iterable<Path>) listing::iterator) {
                if (!Files.isDirectory(d)) {
                    continue;
                }
                JobDir j = new JobDir(d, bytes(d), Files.getLastModifiedTime(d).toMillis());
                total += j.bytes();
                if (!running.contains(d.getFileName().toString())) {
                    dirs.add(j);
                }
            }
        }
        dirs.sort(Comparator.comparingLong(JobDir::modifiedMillis).thenComparing(j -> j.dir().toString()));
        List<Path> deleted = new ArrayList<>();
        for (JobDir j : dirs) {
            if (total <= maxBytes) {
                break;
            }
            delete(j.dir());
            total -= j.bytes();
            deleted.add(j.dir());
        }
        return deleted;
    }

    private static long bytes(Path dir) throws IOException {
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
        return sum[0];
    }

    private static void delete(Path dir) throws IOException {
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
    }
}
