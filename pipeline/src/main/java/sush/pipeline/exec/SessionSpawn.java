package sush.pipeline.exec;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntConsumer;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import com.sun.jna.StringArray;

/**
 * Starts a job's first process as the leader of a new session with glibc's {@code posix_spawn}
 * ({@code POSIX_SPAWN_SETSID}), instead of the JDK starting {@code setsid}, which then execs the
 * job (D-038): one exec fewer per job and sled, the largest avoidable CPU of a launch. What the
 * child gets is what the JDK's start gave it: stdin from {@code /dev/null}, stdout and stderr on
 * pipes read by the sled, the given directory and environment, no other descriptor of the daemon
 * ({@code posix_spawn_file_actions_addclosefrom_np}), an empty signal mask and every signal at its
 * default. Needs glibc 2.34 or later on Linux ({@link #available()}); elsewhere the launcher
 * keeps the {@code setsid} exec.
 */
final class SessionSpawn {
    private SessionSpawn() {
    }

    /** The C library calls, through JNA (errno as {@link LastErrorException} where it is set). */
    interface LibC extends Library {
        LibC C = Native.load("c", LibC.class);

        int posix_spawn_file_actions_init(Pointer actions);

        int posix_spawn_file_actions_destroy(Pointer actions);

        int posix_spawn_file_actions_adddup2(Pointer actions, int fd, int newfd);

        int posix_spawn_file_actions_addopen(Pointer actions, int fd, String path, int flags, int mode);

        int posix_spawn_file_actions_addchdir_np(Pointer actions, String path);

        int posix_spawn_file_actions_addclosefrom_np(Pointer actions, int from);

        int posix_spawnattr_init(Pointer attr);

        int posix_spawnattr_destroy(Pointer attr);

        int posix_spawnattr_setflags(Pointer attr, short flags);

        int posix_spawnattr_setsigmask(Pointer attr, Pointer set);

        int posix_spawnattr_setsigdefault(Pointer attr, Pointer set);

        int sigemptyset(Pointer set);

        int sigfillset(Pointer set);

        int posix_spawn(Pointer pid, String path, Pointer actions, Pointer attr, StringArray argv,
                StringArray envp);

        int pipe2(int[] fds, int flags) throws LastErrorException;

        int close(int fd);

        int waitpid(int pid, int[] status, int options) throws LastErrorException;

        int waitid(int idtype, int id, Pointer info, int options) throws LastErrorException;

        int kill(int pid, int signal) throws LastErrorException;
    }

    private static final short POSIX_SPAWN_SETSIGDEF = 0x04;
    private static final short POSIX_SPAWN_SETSIGMASK = 0x08;
    private static final short POSIX_SPAWN_SETSID = 0x80;
    private static final int O_RDONLY = 0;
    private static final int O_CLOEXEC = 02000000;
    /** Generous sizes for glibc's opaque types (80, 336 and 128 bytes on x86-64 and aarch64). */
    private static final int ACTIONS_BYTES = 512;
    private static final int ATTR_BYTES = 1024;
    private static final int SIGSET_BYTES = 256;
    /** Signals 32 and 33 (SIGCANCEL, SIGSETXID) in the first word of a sigset_t: bit n-1 is signal n. */
    private static final long GLIBC_INTERNAL_SIGNALS = (1L << 31) | (1L << 32);

    private static final Optional<String> MISSING = probe();

    /** Why this host cannot spawn this way, probed once. */
    private static Optional<String> probe() {
        if (Boolean.getBoolean("sush.spawn.jdk")) {
            return Optional.of("-Dsush.spawn.jdk=true");
        }
        if (!System.getProperty("os.name", "").startsWith("Linux")) {
            return Optional.of("not Linux");
        }
        try {
            NativeLibrary c = NativeLibrary.getInstance("c");
            for (String f : List.of("posix_spawn", "posix_spawn_file_actions_addchdir_np",
                    "posix_spawn_file_actions_addclosefrom_np", "pipe2", "waitpid", "waitid")) {
                c.getFunction(f);
            }
            return Optional.empty();
        } catch (UnsatisfiedLinkError | RuntimeException e) {
            return Optional.of("glibc before 2.34 or no JNA: " + e.getMessage());
        }
    }

    /** Whether jobs are spawned here (else the JDK starts {@code setsid}). */
    static boolean available() {
        return MISSING.isEmpty();
    }

    /** Why not, when not. */
    static Optional<String> unavailable() {
        return MISSING;
    }

    /** Tests only: runs with the child's pid right after the spawn, before its streams are opened. */
    static volatile IntConsumer afterSpawn;

    /**
     * Starts {@code argv} (its first word looked up in {@code path} unless it names a file) in
     * {@code dir} with exactly {@code env}, as the leader of a new session.
     */
    static Process start(List<String> argv, Path dir, Map<String, String> env, String path) throws IOException {
        String exe = resolve(argv.get(0), path);
        int[] out = new int[2];
        int[] err = new int[2];
        pipe(out);
        try {
            pipe(err);
        } catch (IOException e) {
            closeBoth(out);
            throw e;
        }
        int pid = spawn(exe, argv, dir, env, out, err);
        // The read ends are opened anew (a Java stream on each), then this side keeps only them:
        // EOF once the job's last holder of a write end is gone.
        IntConsumer hook = afterSpawn;
        if (hook != null) {
            hook.accept(pid);
        }
        return streams(pid, out, err);
    }

    /**
     * The {@code posix_spawn} itself, with the pipes' write ends as the child's stdout and stderr:
     * the child's pid. Both pipes are closed if it fails.
     */
    private static int spawn(String exe, List<String> argv, Path dir, Map<String, String> env, int[] out, int[] err)
            throws IOException {
        Memory actions = new Memory(ACTIONS_BYTES);
        Memory attr = new Memory(ATTR_BYTES);
        Memory empty = new Memory(SIGSET_BYTES);
        Memory all = new Memory(SIGSET_BYTES);
        Memory child = new Memory(Integer.BYTES);
        StringArray args = new StringArray(argv.toArray(String[]::new));
        StringArray envp = new StringArray(env.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .toArray(String[]::new));
        actions.clear();
        attr.clear();
        LibC c = LibC.C;
        int pid;
        try {
            check("posix_spawn_file_actions_init", c.posix_spawn_file_actions_init(actions));
            try {
                check("posix_spawnattr_init", c.posix_spawnattr_init(attr));
                try {
                    prepare(actions, attr, empty, all, dir, out, err);
                    int rc = c.posix_spawn(child, exe, actions, attr, args, envp);
                    if (rc != 0) {
                        throw new IOException("Cannot run program \"" + argv.get(0) + "\": error=" + rc + ", "
                                + strerror(rc));
                    }
                    pid = child.getInt(0);
                } finally {
                    c.posix_spawnattr_destroy(attr);
                }
            } finally {
                c.posix_spawn_file_actions_destroy(actions);
            }
        } catch (IOException | RuntimeException e) {
            closeBoth(out);
            closeBoth(err);
            throw e;
        } finally {
            actions.close();
            attr.close();
            empty.close();
            all.close();
            // Freed now, not when a collection and JNA's cleaner thread get to them: the soak of
            // issue 39 saw native memory records pile up by about one per job.
            child.close();
            args.close();
            envp.close();
        }
        return pid;
    }

    /**
     * The child's file actions and attributes: stdin from {@code /dev/null}, the pipes' write ends
     * as stdout and stderr, no other descriptor, {@code dir}, a new session, an empty signal mask
     * and every signal at its default.
     */
    private static void prepare(Memory actions, Memory attr, Memory empty, Memory all, Path dir, int[] out, int[] err)
            throws IOException {
        LibC c = LibC.C;
        check("addopen /dev/null", c.posix_spawn_file_actions_addopen(actions, 0, "/dev/null", O_RDONLY, 0));
        check("adddup2 stdout", c.posix_spawn_file_actions_adddup2(actions, out[1], 1));
        check("adddup2 stderr", c.posix_spawn_file_actions_adddup2(actions, err[1], 2));
        check("addclosefrom", c.posix_spawn_file_actions_addclosefrom_np(actions, 3));
        check("addchdir", c.posix_spawn_file_actions_addchdir_np(actions, dir.toString()));
        c.sigemptyset(empty);
        c.sigfillset(all);
        // glibc's sigfillset leaves out its two internal signals (32 and 33), and its
        // spawn then leaves them ignored in the child, ignored through every exec that
        // follows: named here by their bits, they are reset to default like the rest.
        all.setLong(0, all.getLong(0) | GLIBC_INTERNAL_SIGNALS);
        check("setsigmask", c.posix_spawnattr_setsigmask(attr, empty));
        check("setsigdefault", c.posix_spawnattr_setsigdefault(attr, all));
        check("setflags", c.posix_spawnattr_setflags(attr, (short) (POSIX_SPAWN_SETSID
                | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)));
    }

    /**
     * The spawned process with a Java stream on each pipe's read end; this side's write ends
     * closed. Without a stream to read it by, the process is ended and the start fails.
     */
    private static Process streams(int pid, int[] out, int[] err) throws IOException {
        LibC c = LibC.C;
        InputStream stdout = null;
        try {
            stdout = reopen(out[0]);
            InputStream stderr = reopen(err[0]);
            return new SpawnedProcess(pid, stdout, stderr);
        } catch (IOException e) {
            // No stream to read it by (out of descriptors): the job's process is ended, reaped,
            // and the start fails with the reason.
            if (stdout == null) {
                c.close(err[0]);
            } else {
                stdout.close();
            }
            SpawnedProcess lost = new SpawnedProcess(pid, InputStream.nullInputStream(), InputStream.nullInputStream());
            lost.destroyForcibly();
            throw new IOException("reading the job's output: " + e.getMessage(), e);
        } finally {
            c.close(out[1]);
            c.close(err[1]);
        }
    }

    private static void pipe(int[] fds) throws IOException {
        try {
            LibC.C.pipe2(fds, O_CLOEXEC);
        } catch (LastErrorException e) {
            throw new IOException("pipe2: " + e.getMessage());
        }
    }

    private static void closeBoth(int[] fds) {
        LibC.C.close(fds[0]);
        LibC.C.close(fds[1]);
    }

    /**
     * A Java stream on a pipe's read end: opened anew through /proc (an anonymous pipe opens
     * without waiting for a writer, even once the job has exited), the native descriptor closed.
     */
    private static InputStream reopen(int fd) throws IOException {
        try {
            return new Pipe(new FileInputStream(new File("/proc/self/fd/" + fd)));
        } finally {
            LibC.C.close(fd);
        }
    }

    /**
     * A pipe's read end: only reads. (A {@link FileInputStream} opened by path takes itself for
     * a file and seeks in {@code readAllBytes} and {@code skip}, which a pipe refuses.)
     */
    private static final class Pipe extends FilterInputStream {
        Pipe(InputStream in) {
            super(in);
        }

        @Override
        public byte[] readAllBytes() throws IOException {
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            int n;
            while ((n = in.read(buf)) >= 0) {
                all.write(buf, 0, n);
            }
            return all.toByteArray();
        }

        @Override
        public long skip(long n) throws IOException {
            long left = n;
            byte[] buf = new byte[(int) Math.min(8192, Math.max(1, n))];
            while (left > 0) {
                int r = in.read(buf, 0, (int) Math.min(buf.length, left));
                if (r < 0) {
                    break;
                }
                left -= r;
            }
            return n - left;
        }
    }

    private static void check(String what, int rc) throws IOException {
        if (rc != 0) {
            throw new IOException("posix_spawn: " + what + ": error=" + rc + ", " + strerror(rc));
        }
    }

    private static String strerror(int errno) {
        switch (errno) {
            case 2:
                return "No such file or directory";
            case 13:
                return "Permission denied";
            case 12:
                return "Cannot allocate memory";
            case 11:
                return "Resource temporarily unavailable";
            default:
                return "errno " + errno;
        }
    }

    /** {@code name} as the JDK finds a program: itself if it has a slash, else the first executable on {@code path}. */
    static String resolve(String name, String path) throws IOException {
        if (name.contains("/")) {
            return name;
        }
        for (String d : path.split(":")) {
            if (d.isEmpty()) {
                continue;
            }
            File f = new File(d, name);
            if (f.isFile() && f.canExecute()) {
                return f.getPath();
            }
        }
        throw new IOException("Cannot run program \"" + name + "\": error=2, No such file or directory");
    }
}
