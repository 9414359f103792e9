package sush.pipeline.exec;

import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import sush.pipeline.exec.SessionSpawn.LibC;

/**
 * A process {@link SessionSpawn} started, reaped by its own waiter as soon as it exits (the JDK's
 * reaper never sees it): what the launcher sees of it is what a JDK {@link Process} shows, its
 * streams the pipes' read ends, its exit as the JDK reports one, signals never sent after the reap.
 */
final class SpawnedProcess extends Process {
    private static final int EINTR = 4;
    private static final int P_PID = 1;
    private static final int WEXITED = 4;
    private static final int WNOWAIT = 0x01000000;
    private static final int SIGINFO_BYTES = 128;
    /** The exit of a process whose status was lost (reaped by another waiter). */
    static final int UNKNOWN_EXIT = 255;

    /** Waits for the spawned processes: one blocking {@code waitpid} each, on daemon threads. */
    private static final ExecutorService REAPERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "sush-reaper");
        t.setDaemon(true);
        return t;
    });

    private final int pid;
    private final InputStream stdout;
    private final InputStream stderr;
    private final CompletableFuture<Integer> exit = new CompletableFuture<>();

    SpawnedProcess(int pid, InputStream stdout, InputStream stderr) {
        this.pid = pid;
        this.stdout = stdout;
        this.stderr = stderr;
        REAPERS.execute(this::reap);
    }

    /**
     * Waits for the exit without reaping, then reaps under the lock that signals take: a
     * signal is never sent to the pid once it is free for another process.
     */
    private void reap() {
        try (Memory info = new Memory(SIGINFO_BYTES)) {
            while (true) {
                try {
                    LibC.C.waitid(P_PID, pid, info, WEXITED | WNOWAIT);
                    break;
                } catch (LastErrorException e) {
                    if (e.getErrorCode() != EINTR) {
                        break; // ECHILD: the waitpid below says so
                    }
                }
            }
        }
        int[] status = new int[1];
        synchronized (this) {
            try {
                LibC.C.waitpid(pid, status, 0);
            } catch (LastErrorException e) {
                // Reaped by someone else (SIGCHLD ignored): its status is lost.
                exit.complete(UNKNOWN_EXIT);
                return;
            }
            int s = status[0];
            // As the JDK reports it: the exit status, or 0x80 + the signal that ended it.
            exit.complete((s & 0x7f) == 0 ? (s >> 8) & 0xff : 0x80 + (s & 0x7f));
        }
    }

    @Override
    public OutputStream getOutputStream() {
        return OutputStream.nullOutputStream();
    }

    @Override
    public InputStream getInputStream() {
        return stdout;
    }

    @Override
    public InputStream getErrorStream() {
        return stderr;
    }

    @Override
    public int waitFor() throws InterruptedException {
        try {
            return exit.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    @Override
    public boolean waitFor(long timeout, TimeUnit unit) throws InterruptedException {
        try {
            exit.get(timeout, unit);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    @Override
    public int exitValue() {
        Integer v = exit.getNow(null);
        if (v == null) {
            throw new IllegalThreadStateException("process " + pid + " has not exited");
        }
        return v;
    }

    @Override
    public void destroy() {
        signal(15);
    }

    @Override
    public Process destroyForcibly() {
        signal(9);
        return this;
    }

    /** Never after the reap: the pid may be another process's by then. */
    private synchronized void signal(int sig) {
        if (!exit.isDone()) {
            try {
                LibC.C.kill(pid, sig);
            } catch (LastErrorException e) {
                // Already gone.
            }
        }
    }

    @Override
    public boolean supportsNormalTermination() {
        return true; // destroy() sends SIGTERM
    }

    @Override
    public boolean isAlive() {
        return !exit.isDone();
    }

    @Override
    public long pid() {
        return pid;
    }

    @Override
    public CompletableFuture<Process> onExit() {
        return exit.thenApply(v -> this);
    }

    @Override
    public ProcessHandle toHandle() {
        return ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException("process " + pid + " is gone"));
    }
}
