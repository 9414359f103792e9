package sush.pipeline.exec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How a sled contains everything a job starts (issue 22). A job stays an operator's root shell
 * (it sees and signals every process of the host, mounts what it needs), but whatever it starts
 * belongs to it: a stop, a limit or the end of its first process kills all of it, including
 * children that left its process group or session.
 * <ul>
 * <li>{@link Cgroup}: a cgroup v2 per job under one the daemon creates; the first process joins
 * it before it execs the job (a two-line wrapper), its descendants are born in it, and
 * {@code cgroup.kill} (or SIGKILL to each of {@code cgroup.procs}) ends them all.</li>
 * <li>{@link Marker}, where no cgroup v2 hierarchy is writable: every process that carries the
 * job's {@code SUSH_JOB_ID} in its environment (inherited by every descendant that did not
 * replace its environment) or descends from the job's first process is the job's.</li>
 * </ul>
 * The mechanism in use is reported by the daemon ({@code containment} in {@code /version}).
 */
public interface Containment {
    /** Which mechanism, and where: {@code cgroup2 <dir>} or {@code marker}. */
    String mechanism();

    /** The argument vector that runs {@code command} inside the job's container. */
    List<String> wrap(String job, List<String> command) throws IOException;

    /** Every live process of the job besides {@code leader} (pids). */
    List<Long> members(String job, long leader);

    /**
     * Sends SIGTERM to every process of the job; says which ones besides the leader were
     * signalled ({@code pid command-line} each).
     */
    default List<String> terminate(String job, long leader) {
        List<String> signalled = new ArrayList<>();
        ProcessHandle.of(leader).ifPresent(ProcessHandle::destroy);
        for (long pid : members(job, leader)) {
            signalled.add(describe(pid));
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);
        }
        return signalled;
    }

    /**
     * Kills every process of the job (SIGKILL) and says which ones besides the leader were
     * killed: {@code pid command-line} each.
     */
    List<String> killAll(String job, long leader);

    /** Frees what the job's container holds (after {@link #killAll}). */
    void release(String job);

    /** The best mechanism this host allows: cgroup v2 if a hierarchy is writable, else the marker. */
    static Containment detect() {
        if (Boolean.getBoolean("sush.containment.marker")) {
            return new Marker();
        }
        return Cgroup.create().map(c -> (Containment) c).orElseGet(Marker::new);
    }

    /** How {@link #describe} names a process whose command line could not be read any more. */
    String EXITED = " (exited)";
    String GONE = " (gone)";

    /** Whether {@code description} names the command (not only that the process was already ending). */
    static boolean namesCommand(String description) {
        return !description.endsWith(EXITED) && !description.endsWith(GONE);
    }

    /** {@code pid command-line} of a live process, its command line cut at 200 characters. */
    static String describe(long pid) {
        try {
            byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
            String cmd = new String(raw, StandardCharsets.UTF_8).replace('\0', ' ').strip();
            if (cmd.isEmpty()) {
                return pid + EXITED; // a zombie or an exiting process: its command line is gone
            }
            StringBuilder b = new StringBuilder();
            cmd.codePoints().limit(200).forEach(c -> b.appendCodePoint(c < 0x20 || c == 0x7f ? '?' : c));
            return pid + " " + b;
        } catch (IOException e) {
            return pid + GONE;
        }
    }

    /** One cgroup v2 per job, under {@code <daemon's cgroup>/sush-<pid>-<n>}. */
    final class Cgroup implements Containment {
        private static final AtomicInteger INSTANCES = new AtomicInteger();
        private final Path root;

        private Cgroup(Path root) {
            this.root = root;
        }

        /** A container root under the daemon's own cgroup, if cgroup v2 is mounted and writable here. */
        static Optional<Cgroup> create() {
            try {
                Optional<Path> mount = cgroup2Mount();
                if (mount.isEmpty()) {
                    return Optional.empty();
                }
                Path own = mount.get();
                for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
                    if (line.startsWith("0::")) {
                        own = mount.get().resolve(line.substring(3).replaceFirst("^/+", ""));
                    }
                }
                removeStale(own);
                Path root = own.resolve("sush-" + ProcessHandle.current().pid() + "-" + INSTANCES.incrementAndGet());
                Files.createDirectories(root);
                if (!Files.isWritable(root.resolve("cgroup.procs"))) {
                    Files.deleteIfExists(root);
                    return Optional.empty();
                }
                return Optional.of(new Cgroup(root));
            } catch (IOException | RuntimeException e) {
                return Optional.empty();
            }
        }

        /** Where the cgroup v2 hierarchy is mounted (also inside a hybrid v1/v2 layout). */
        static Optional<Path> cgroup2Mount() throws IOException {
            for (String line : Files.readAllLines(Path.of("/proc/self/mounts"))) {
                String[] f = line.split(" ");
                if (f.length > 2 && f[2].equals("cgroup2")) {
                    return Optional.of(Path.of(f[1]));
                }
            }
            return Optional.empty();
        }

        /** Empty container roots left by daemons that died (their pid is gone) are removed. */
        private static void removeStale(Path own) {
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(own, "sush-*-*")) {
                for (Path d : ds) {
                    String[] parts = d.getFileName().toString().split("-");
                    long pid = Long.parseLong(parts[1]);
                    if (ProcessHandle.of(pid).isPresent()) {
                        continue;
                    }
                    try (DirectoryStream<Path> jobs = Files.newDirectoryStream(d, "job-*")) {
                        for (Path j : jobs) {
                            rmdir(j);
                        }
                    }
                    rmdir(d);
                }
            } catch (IOException | RuntimeException e) {
                // Only tidying: a left directory costs nothing.
            }
        }

        private static void rmdir(Path d) {
            try {
                Files.deleteIfExists(d);
            } catch (IOException e) {
                // Not empty: processes still in it; it stays.
            }
        }

        public Path root() {
            return root;
        }

        private Path dir(String job) {
            return root.resolve("job-" + job);
        }

        @Override
        public String mechanism() {
            return "cgroup2 " + root;
        }

        @Override
        public List<String> wrap(String job, List<String> command) throws IOException {
            Path d = dir(job);
            Files.createDirectory(d);
            List<String> argv = new ArrayList<>(List.of("/bin/sh", "-c",
                    "echo 0 > \"$0\" || { echo 'sush: cannot join the job cgroup' >&2; exit 125; }; exec \"$@\"",
                    d.resolve("cgroup.procs").toString()));
            argv.addAll(command);
            return argv;
        }

        @Override
        public List<Long> members(String job, long leader) {
            List<Long> pids = new ArrayList<>();
            try {
                for (String line : Files.readAllLines(dir(job).resolve("cgroup.procs"))) {
                    if (!line.isBlank()) {
                        long pid = Long.parseLong(line.strip());
                        if (pid != leader) {
                            pids.add(pid);
                        }
                    }
                }
            } catch (NoSuchFileException e) {
                // Released.
            } catch (IOException | RuntimeException e) {
                // Unreadable: nothing to name; killAll still writes cgroup.kill.
            }
            return pids;
        }

        @Override
        public List<String> killAll(String job, long leader) {
            List<String> killed = new ArrayList<>();
            members(job, leader).forEach(pid -> killed.add(describe(pid)));
            Path kill = dir(job).resolve("cgroup.kill");
            boolean done = false;
            if (Files.exists(kill)) {
                try {
                    Files.writeString(kill, "1");
                    done = true;
                } catch (IOException e) {
                    done = false;
                }
            }
            if (!done) {
                // Kernels before 5.14: SIGKILL each member until none is left (a fork between
                // reading and killing is caught by the next round).
                for (int round = 0; round < 50; round++) {
                    List<Long> left = members(job, -1);
                    if (left.isEmpty()) {
                        break;
                    }
                    left.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
                }
            }
            return killed;
        }

        @Override
        public void release(String job) {
            Path d = dir(job);
            // The kernel empties a killed cgroup asynchronously; a few tries, then it stays.
            for (int i = 0; i < 100 && Files.exists(d); i++) {
                try {
                    Files.delete(d);
                    return;
                } catch (NoSuchFileException e) {
                    return;
                } catch (IOException e) {
                    try {
                        Thread.sleep(10);
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
        }

        /** Removes the container root once every job is released. */
        public void close() {
            rmdir(root);
        }
    }

    /**
     * Without cgroups: a process is the job's if it descends from the job's first process or
     * carries {@code SUSH_JOB_ID=<job>} in its environment (as root every process's environment
     * is readable). A process that replaced its environment and left the tree escapes this; the
     * cgroup does not let it.
     */
    final class Marker implements Containment {
        @Override
        public String mechanism() {
            return "marker";
        }

        @Override
        public List<String> wrap(String job, List<String> command) {
            return command;
        }

        @Override
        public List<Long> members(String job, long leader) {
            Set<Long> pids = new LinkedHashSet<>();
            ProcessHandle.of(leader).ifPresent(h -> h.descendants().forEach(d -> pids.add(d.pid())));
            byte[] marker = ("SUSH_JOB_ID=" + job + "\0").getBytes(StandardCharsets.UTF_8);
            long self = ProcessHandle.current().pid();
            try (DirectoryStream<Path> proc = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
                for (Path p : proc) {
                    long pid;
                    try {
                        pid = Long.parseLong(p.getFileName().toString());
                    } catch (NumberFormatException e) {
                        continue;
                    }
                    if (pid == leader || pid == self) {
                        continue;
                    }
                    try {
                        byte[] env = Files.readAllBytes(p.resolve("environ"));
                        if (indexOf(env, marker) >= 0) {
                            pids.add(pid);
                        }
                    } catch (IOException e) {
                        // Gone, or not ours to read.
                    }
                }
            } catch (IOException e) {
                // No /proc: the descendants are all there is.
            }
            pids.remove(leader);
            return new ArrayList<>(pids);
        }

        private static int indexOf(byte[] hay, byte[] needle) {
            outer:
            for (int i = 0; i + needle.length <= hay.length; i++) {
                if (i > 0 && hay[i - 1] != 0) {
                    continue;
                }
                for (int j = 0; j < needle.length; j++) {
                    if (hay[i + j] != needle[j]) {
                        continue outer;
                    }
                }
                return i;
            }
            return -1;
        }

        @Override
        public List<String> killAll(String job, long leader) {
            List<String> killed = new ArrayList<>();
            ProcessHandle.of(leader).ifPresent(ProcessHandle::destroyForcibly);
            for (int round = 0; round < 10; round++) {
                List<Long> left = members(job, leader);
                if (left.isEmpty()) {
                    break;
                }
                for (long pid : left) {
                    if (round == 0) {
                        killed.add(describe(pid));
                    }
                    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                }
            }
            return killed;
        }

        @Override
        public void release(String job) {
            // Nothing held.
        }
    }
}
