package sush.ops.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A job's output fetched in ranges at once into a file, checked against the SHA3-256 of the
 * status before the file is given its name (issue 18). Each range is its own signed request
 * (the sled's sequence window takes them in any order); a progress bar is drawn on a terminal.
 */
final class Download {
    /** The smallest range worth a request of its own. */
    static final long MIN_PART_BYTES = 1 << 20;
    /** Bound on ranges in flight (the sled serves 32 downloads at once). */
    static final int MAX_PARALLEL = 16;

    private Download() {
    }

    /** The ranges {@code [first, last]} of a {@code length}-byte file fetched by {@code parallel} requests. */
    static List<long[]> parts(long length, int parallel) {
        List<long[]> out = new ArrayList<>();
        if (length == 0) {
            return out;
        }
        long n = Math.max(1, Math.min(parallel, (length + MIN_PART_BYTES - 1) / MIN_PART_BYTES));
        long size = (length + n - 1) / n;
        for (long first = 0; first < length; first += size) {
            out.add(new long[] {first, Math.min(length, first + size) - 1});
        }
        return out;
    }

    /**
     * Fetches {@code length} bytes of {@code path} into {@code file}, {@code parallel} ranges at
     * once, and checks them against {@code sha3Hex}: on a match the file is moved into place;
     * otherwise nothing is left under the name and the failure is a hash mismatch (exit 6).
     */
    static void fetch(Client c, String path, long length, String sha3Hex, Path file, int parallel, Progress progress)
            throws Client.Failure {
        Path part = file.resolveSibling(file.getFileName() + ".part");
        try {
            try (FileChannel ch = FileChannel.open(part, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                List<long[]> ranges = parts(length, Math.max(1, Math.min(MAX_PARALLEL, parallel)));
                ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, ranges.size()), r -> {
                    Thread t = new Thread(r, "sush-download");
                    t.setDaemon(true);
                    return t;
                });
                try {
                    List<Future<Void>> done = new ArrayList<>();
                    for (long[] r : ranges) {
                        done.add(pool.submit(() -> {
                            one(c, path, r[0], r[1], ch, progress);
                            return null;
                        }));
                    }
                    for (Future<Void> f : done) {
                        await(f);
                    }
                } finally {
                    pool.shutdownNow();
                }
                ch.force(false);
            }
            progress.finish();
            String got = sha3(part);
            if (!got.equals(sha3Hex)) {
                Files.deleteIfExists(part);
                throw new Client.Failure(6, "hash-mismatch", "the output fetched (SHA3-256 " + got + ") does not "
                        + "match the status (" + sha3Hex + "); nothing was written to " + file);
            }
            Files.move(part, file, StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            deleteQuietly(part);
            throw new Client.Failure(1, "write-failed", "cannot write " + file + ": " + e.getMessage());
        } catch (Client.Failure f) {
            deleteQuietly(part);
            throw f;
        }
    }

    private static void one(Client c, String path, long first, long last, FileChannel ch, Progress progress)
            throws Client.Failure, IOException {
        byte[] buf = new byte[64 * 1024];
        long at = first;
        try (InputStream in = c.range(path, first, last)) {
            int n;
            while (at <= last && (n = in.read(buf, 0, (int) Math.min(buf.length, last - at + 1))) >= 0) {
                ByteBuffer b = ByteBuffer.wrap(buf, 0, n);
                while (b.hasRemaining()) {
                    at += ch.write(b, at);
                }
                progress.add(n);
            }
        }
        if (at != last + 1) {
            throw new Client.Failure(3, "short-range", "bytes " + first + "-" + last + " of " + path + " ended at "
                    + at);
        }
    }

    private static void await(Future<Void> f) throws Client.Failure, IOException {
        try {
            f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Client.Failure(130, "interrupted", "interrupted");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Client.Failure) {
                throw (Client.Failure) e.getCause();
            }
            if (e.getCause() instanceof IOException) {
                throw (IOException) e.getCause();
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    static String sha3(Path file) throws IOException {
        MessageDigest d;
        try {
            d = MessageDigest.getInstance("SHA3-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        byte[] buf = new byte[64 * 1024];
        try (InputStream in = Files.newInputStream(file)) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                d.update(buf, 0, n);
            }
        }
        return HexFormat.of().formatHex(d.digest());
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            // What could not be deleted is named .part: never taken for a verified output.
        }
    }

    /** Bytes received so far, drawn as a bar on {@code out} at most every 100 ms when it is a terminal. */
    static final class Progress {
        private final String label;
        private final long total;
        private final PrintStream out;
        private final AtomicLong done = new AtomicLong();
        private final AtomicLong drawnAt = new AtomicLong();

        /** @param out where the bar is drawn; null draws none (not a terminal, or --json) */
        Progress(String label, long total, PrintStream out) {
            this.label = label;
            this.total = total;
            this.out = out;
        }

        void add(long n) {
            long now = done.addAndGet(n);
            long t = System.nanoTime();
            long last = drawnAt.get();
            if (out != null && t - last > TimeUnit.MILLISECONDS.toNanos(100) && drawnAt.compareAndSet(last, t)) {
                draw(now);
            }
        }

        void finish() {
            if (out != null) {
                draw(done.get());
                out.println();
            }
        }

        long done() {
            return done.get();
        }

        private synchronized void draw(long now) {
            out.print("\r" + bar(label, now, total));
            out.flush();
        }

        /** One line: the label, a 30-wide bar, the percentage and the MiB. */
        static String bar(String label, long now, long total) {
            int width = 30;
            int filled = total == 0 ? width : (int) (width * Math.min(now, total) / total);
            StringBuilder b = new StringBuilder(label).append(" [");
            for (int i = 0; i < width; i++) {
                b.append(i < filled ? '=' : i == filled ? '>' : ' ');
            }
            long pct = total == 0 ? 100 : 100 * Math.min(now, total) / total;
            return b.append("] ").append(String.format("%3d%% %.1f/%.1f MiB", pct, now / 1048576.0,
                    total / 1048576.0)).toString();
        }
    }
}
