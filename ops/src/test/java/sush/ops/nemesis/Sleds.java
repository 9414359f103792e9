package sush.ops.nemesis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import sush.ops.cli.RackAccess;
import sush.ops.daemon.RackFile;

/**
 * The nemesis's sleds: one real daemon per sled, each run in its network namespace, its boundary
 * slots behind {@code --fault-injection}, and its output directory on a small tmpfs of its own
 * that the nemesis can fill. A daemon may be started with its clocks shifted by libfaketime (a
 * fixed offset for its whole life: its wall clock is hours off; its monotonic clock moves by the
 * same constant, which nothing can tell, since only its differences mean anything. Faking the
 * wall clock alone, or changing the offset live, made every clock call of the JVM several times
 * slower under this libfaketime).
 *
 * <p>What happens to each daemon is known here: a daemon that exits while this class did not
 * stop, kill or expect it is a violation ({@link #unexpectedExits}).
 */
final class Sleds implements AutoCloseable {
    static final String FAKETIME_LIB = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";
    /** The size of each sled's output disk. */
    static final String OUTPUT_DISK = "512m";

    private final Path dir;
    private final RackFile rack;
    private final Netns net;
    private final Process[] procs;
    /** Whether the nemesis means daemon i to be down (killed, stopped for a cold boot). */
    private final boolean[] down;
    private final boolean[] paused;
    private final List<String> mounted = new ArrayList<>();
    private final List<String> unexpected = new ArrayList<>();
    /**
     * Every daemon forgets what the rack settled (issue 39: watermarks, settlement, skeleton jumps;
     * a rack's default since D-057), or none does ({@code --no-forgetting}).
     */
    boolean forgetting = true;

    Sleds(Path dir, RackFile rack, Netns net) {
        this.dir = dir;
        this.rack = rack;
        this.net = net;
        this.procs = new Process[rack.sleds().size()];
        this.down = new boolean[procs.length];
        this.paused = new boolean[procs.length];
    }

    int size() {
        return procs.length;
    }

    RackFile.SledEntry entry(int i) {
        return rack.sleds().get(i);
    }

    Path faults(int i) {
        return dir.resolve(String.format("faults%02d", i));
    }

    /** Mounts each output disk and makes each control directory (no slot fault). */
    void prepare() throws IOException {
        for (int i = 0; i < procs.length; i++) {
            Path out = entry(i).output();
            Files.createDirectories(out);
            Shell.run("mount", "-t", "tmpfs", "-o", "size=" + OUTPUT_DISK + ",mode=0700", "tmpfs-nemesis", out.toString());
            mounted.add(out.toString());
            Files.createDirectories(faults(i));
        }
    }

    /** Writes a control file whole (written beside, then renamed: a reader sees the old or the new). */
    void control(int i, String name, String value) throws IOException {
        Path tmp = faults(i).resolve(name + ".tmp");
        Files.writeString(tmp, value + "\n");
        Files.move(tmp, faults(i).resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    void clearControl(int i, String name) throws IOException {
        Files.deleteIfExists(faults(i).resolve(name));
    }

    /** Starts daemon {@code i} in its namespace, its clocks true. */
    void start(int i) throws IOException {
        start(i, 0);
    }

    /** Starts daemon {@code i} in its namespace, its clocks {@code offsetSeconds} off (0: true). */
    void start(int i, long offsetSeconds) throws IOException {
        List<String> prefix = new ArrayList<>(List.of("ip", "netns", "exec", net.ns(i)));
        if (offsetSeconds != 0) {
            prefix.addAll(List.of("env", "LD_PRELOAD=" + FAKETIME_LIB, "FAKETIME=" + (offsetSeconds > 0 ? "+" : "")
                    + offsetSeconds));
        }
        List<String> flags = new ArrayList<>(List.of("--fault-injection", faults(i).toString(), "--max-wall-time", "120"));
        if (!forgetting) {
            flags.add("--no-forgetting");
        }
        procs[i] = RackAccess.start(dir, entry(i), prefix, flags);
        down[i] = false;
        paused[i] = false;
    }

    boolean isDown(int i) {
        return down[i];
    }

    boolean isPaused(int i) {
        return paused[i];
    }

    Optional<Process> process(int i) {
        return Optional.ofNullable(procs[i]);
    }

    /**
     * {@code kill -9} of the daemon; with {@code wholeSled}, of every process in its namespace
     * too (its jobs: a power cut), else its jobs live on as orphans (a crash of the daemon alone).
     */
    void kill(int i, boolean wholeSled) throws InterruptedException, IOException {
        down[i] = true;
        if (procs[i] != null) {
            procs[i].destroyForcibly();
            procs[i].waitFor();
        }
        paused[i] = false;
        if (wholeSled) {
            for (String pid : Shell.run("ip", "netns", "pids", net.ns(i)).split("\\s+")) {
                if (!pid.isBlank()) {
                    Shell.quietly("kill", "-9", pid.trim());
                }
            }
        }
    }

    /** SIGTERM, and its end awaited (up to 30 s, then SIGKILL). */
    void stop(int i) throws InterruptedException {
        down[i] = true;
        if (procs[i] != null && procs[i].isAlive()) {
            if (paused[i]) {
                resume(i);
            }
            procs[i].destroy();
            if (!procs[i].waitFor(30, TimeUnit.SECONDS)) {
                procs[i].destroyForcibly();
                procs[i].waitFor();
            }
        }
    }

    /** SIGSTOP: the JVM freezes, its sockets stay open (a gray failure: a GC, a VM pause, a stuck disk). */
    void pause(int i) {
        if (procs[i] != null && procs[i].isAlive()) {
            Shell.quietly("kill", "-STOP", Long.toString(procs[i].pid()));
            paused[i] = true;
        }
    }

    void resume(int i) {
        if (procs[i] != null) {
            Shell.quietly("kill", "-CONT", Long.toString(procs[i].pid()));
        }
        paused[i] = false;
    }

    /** Fills sled {@code i}'s output disk, leaving {@code leave} bytes free. */
    void fill(int i, long leave) throws IOException {
        Path out = entry(i).output();
        long free = Files.getFileStore(out).getUsableSpace();
        if (free > leave) {
            Shell.run("fallocate", "-l", Long.toString(free - leave), out.resolve("nemesis-filler").toString());
        }
    }

    void unfill(int i) throws IOException {
        Files.deleteIfExists(entry(i).output().resolve("nemesis-filler"));
    }

    /**
     * Checks every daemon the nemesis did not take down still runs; one that exited is noted with
     * its exit status and restarted (a supervisor would), so that the run goes on.
     */
    void watch() throws IOException {
        for (int i = 0; i < procs.length; i++) {
            if (!down[i] && procs[i] != null && !procs[i].isAlive()) {
                unexpected.add("sled " + i + " exited by itself with status " + procs[i].exitValue());
                start(i);
            }
        }
    }

    List<String> unexpectedExits() {
        return unexpected;
    }

    Path log(int i) {
        return entry(i).output().getParent().resolve("daemon.log");
    }

    /** Every daemon stopped (resumed first), every output disk unmounted; failures printed, not thrown. */
    @Override
    public void close() {
        for (int i = 0; i < procs.length; i++) {
            if (procs[i] != null) {
                resume(i);
                procs[i].destroyForcibly();
                try {
                    procs[i].waitFor();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        for (String m : mounted) {
            String why = Shell.quietly("umount", "-l", m);
            if (why != null) {
                System.err.println("nemesis: cleanup left a mount: " + why);
            }
        }
        mounted.clear();
    }

}
