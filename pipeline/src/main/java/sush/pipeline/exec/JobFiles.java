package sush.pipeline.exec;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import sush.projections.id.IdException;
import sush.projections.id.SessionId;
import sush.projections.job.JobLimits;
import sush.projections.job.JobMode;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A job's directory under {@code <output>/jobs/} and the files its launch opens there: created
 * owner-only (directory 0700, files 0600) and never overwritten, {@code job.json} written before
 * the spawn, then {@code stdout} and {@code stderr} open for its copiers.
 */
record JobFiles(Path dir, FileChannel out, FileChannel err) {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /**
     * Creates the job's directory {@code dir} (and {@code jobsDir} if need be), writes its
     * {@code job.json} (and, for a streaming job, the note that its stdout is not kept), and opens
     * its output files. A directory that exists fails with {@code FileAlreadyExistsException}.
     */
    static JobFiles create(Path jobsDir, Path dir, LaunchRequest r) throws IOException {
        Files.createDirectories(jobsDir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        writeOwnerOnly(dir.resolve("job.json"), JSON.writeValueAsBytes(describe(r, dir)));
        if (r.mode() == JobMode.STREAMING) {
            writeOwnerOnly(dir.resolve(ProcessLauncher.STREAMED), "its stdout went to its client; it is not kept here\n"
                    .getBytes(StandardCharsets.UTF_8));
        }
        FileChannel out = openOwnerOnly(dir.resolve("stdout"));
        FileChannel err = openOwnerOnly(dir.resolve("stderr"));
        return new JobFiles(dir, out, err);
    }

    /** Closes both output files, for a launch that failed after opening them. */
    void closeOutputs() {
        closeQuietly(out);
        closeQuietly(err);
    }

    /**
     * The session of an interactive job, read from the {@code job.json} in {@code dir}; empty for
     * any other job, or if the file cannot be read.
     */
    static Optional<SessionId> interactiveSession(Path dir) {
        try {
            JsonNode d = JSON.readTree(Files.readAllBytes(dir.resolve("job.json")));
            if (!JobMode.INTERACTIVE.wire().equals(d.path("mode").asString(""))) {
                return Optional.empty();
            }
            return Optional.of(SessionId.parse(d.path("session").asString("")));
        } catch (IOException | RuntimeException | IdException e) {
            return Optional.empty();
        }
    }

    private static Map<String, Object> describe(LaunchRequest r, Path dir) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("job", r.job().codephrase());
        m.put("session", r.session().codephrase());
        m.put("command", r.command());
        m.put("target", r.target());
        m.put("output_dir", dir.toString());
        m.put("wall_time_ms", r.limits().wallTime().toMillis());
        m.put("output_limit_bytes", r.limits().outputBytes());
        m.put("mode", r.mode().wire());
        JobLimits j = r.limits().job();
        if (!j.isNone()) {
            m.put("asked_limits", Map.of("wall_time_ms", j.wallTimeMs(), "output_bytes_per_stream", j.outputBytes(),
                    "cpu_seconds", j.cpuSeconds(), "address_space_bytes", j.addressSpaceBytes(), "file_size_bytes",
                    j.fileSizeBytes()));
        }
        return m;
    }

    /** Writes {@code bytes} to the new file {@code file}, owner-only. */
    static void writeOwnerOnly(Path file, byte[] bytes) throws IOException {
        try (FileChannel ch = openOwnerOnly(file)) {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                ch.write(b);
            }
        }
    }

    private static FileChannel openOwnerOnly(Path file) throws IOException {
        return FileChannel.open(file, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    }

    static void closeQuietly(FileChannel c) {
        try {
            c.close();
        } catch (IOException e) {
            // Closing an unused file fails only if the disk is gone; the launch already failed.
        }
    }
}
