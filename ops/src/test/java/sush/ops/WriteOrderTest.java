package sush.ops;

import sush.ops.wire.SignedRequests;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import sush.ops.cli.RackAccess;
import sush.ops.cli.RackCommand;
import sush.ops.daemon.RackFile;
import sush.projections.fixtures.Jobs;
import sush.projections.job.SignedJob;
import sush.projections.job.SignerKey;
import tools.jackson.databind.JsonNode;

/**
 * The physical order of the boundary writes, seen from outside the JVM (issue 21): one real daemon
 * under {@code strace -f} runs one job. For each slot the temp file is fsynced, then renamed over
 * the record, then the directory fsynced; both slots complete before the job's first
 * {@code execve}; the outcome write after the ending keeps the same order. A store that fails
 * half way (the second slot cannot take its temp file) is followed by no {@code execve} at all.
 */
class WriteOrderTest extends ProcessRack {
    private static final List<String> TRACED = List.of("openat", "close", "write", "fsync", "fdatasync", "rename",
            "renameat", "renameat2", "execve");

    @Test
    void bothSlotsAreDurableInOrderBeforeTheJobStartsAndAfterItEnds() throws Exception {
        Path trace = runOneJob(false);
        List<Call> calls = parse(trace);
        List<Long> execs = jobExecs(calls);
        assertFalse(execs.isEmpty(), "the job was started (an execve after the daemon's own)");
        long exec = execs.get(0);
        // The job is started by vfork and exec (DaemonCommand.launchByVfork), not through the
        // JDK's spawn helper: one exec fewer per job (issue 17).
        assertTrue(calls.stream().noneMatch(c -> c.name().equals("execve") && c.args().contains("jspawnhelper")),
                "a job started through jspawnhelper: " + calls.stream().filter(c -> c.name().equals("execve")).map(c ->
                        c.args().substring(0, Math.min(120, c.args().length()))).toList());
        // Where glibc can (D-038), the job's first process is spawned as a session leader: no
        // setsid exec between the daemon and the job's shell.
        if (sush.pipeline.exec.ProcessLauncher.sessions().startsWith("posix_spawn")) {
            assertTrue(calls.stream().noneMatch(c -> c.name().equals("execve") && c.args().contains("setsid")),
                    "a job started through setsid: " + calls.stream().filter(c -> c.name().equals("execve")).map(c ->
                            c.args().substring(0, Math.min(120, c.args().length()))).toList());
        }
        for (Path slot : rack.sleds().get(0).m2()) {
            List<long[]> cycles = cycles(calls, slot);
            assertFalse(cycles.isEmpty(), "writes to " + slot);
            for (long[] c : cycles) {
                // c: temp opened, temp fsynced (exit), rename (entry, exit), directory fsync (entry, exit)
                assertTrue(c[0] < c[1] && c[1] < c[2] && c[2] <= c[3] && c[3] < c[4] && c[4] <= c[5],
                        slot + ": temp fsync, then rename, then directory fsync: " + java.util.Arrays.toString(c));
                assertFalse(c[0] < exec && c[5] > exec, slot + ": a write was in flight when the job started");
            }
            assertTrue(cycles.stream().anyMatch(c -> c[5] < exec), slot + " was durable before the job's execve");
            assertTrue(cycles.stream().anyMatch(c -> c[0] > exec), slot + ": the outcome was written after it ended");
        }
    }

    @Test
    void aStoreThatFailsHalfWayStartsNoProcess() throws Exception {
        Path trace = runOneJob(true);
        List<Call> calls = parse(trace);
        assertEquals(List.of(), jobExecs(calls), "no execve after a failed store: " + calls.stream().filter(c ->
                c.name().equals("execve")).map(c -> c.args().substring(0, Math.min(120, c.args().length()))).toList());
        Path first = rack.sleds().get(0).m2().get(0);
        assertFalse(cycles(calls, first).isEmpty(), "the first slot was written: the store failed half way");
    }

    @Test
    void aCloseSplitByAnotherThreadsOpenOfTheSameNumberDoesNotHideTheTempFilesFsync() throws Exception {
        // Thread 101 closes descriptor 37 while thread 100 opens the temp file and gets 37.
        Path slot = dir.resolve("m2-a");
        Path trace = dir.resolve("split.strace");
        Files.write(trace, List.of(
                "101 close(37 <unfinished ...>",
                "100 openat(AT_FDCWD, \"" + slot.resolve("boundary.tmp") + "\", O_WRONLY|O_CREAT|O_TRUNC, 0600) = 37",
                "101 <... close resumed>) = 0",
                "100 fsync(37) = 0",
                "100 close(37) = 0",
                "100 rename(\"" + slot.resolve("boundary.tmp") + "\", \"" + slot.resolve("boundary") + "\") = 0",
                "100 openat(AT_FDCWD, \"" + slot + "\", O_RDONLY|O_DIRECTORY) = 38",
                "100 fsync(38) = 0",
                "100 close(38) = 0"));
        List<long[]> cycles = cycles(parse(trace), slot);
        assertEquals(1, cycles.size());
        assertEquals(3, cycles.get(0)[1], "the temp file's fsync, seen: " + Arrays.toString(cycles.get(0)));
    }

    /** Whether the trace so far shows, on every slot, a write cycle begun after the job's first exec. */
    private static boolean outcomeTraced(Path trace, RackFile.SledEntry sled) {
        try {
            List<Call> calls = parse(trace);
            List<Long> execs = jobExecs(calls);
            if (execs.isEmpty()) {
                return false;
            }
            for (Path slot : sled.m2()) {
                if (cycles(calls, slot).stream().noneMatch(c -> c[0] > execs.get(0))) {
                    return false;
                }
            }
            return true;
        } catch (java.io.IOException | RuntimeException e) {
            return false; // a line strace is still writing
        }
    }

    /** Whether the trace so far shows a write cycle of {@code slot}. */
    private static boolean written(Path trace, Path slot) {
        try {
            return !cycles(parse(trace), slot).isEmpty();
        } catch (IOException | RuntimeException e) {
            return false; // a line strace is still writing
        }
    }

    /** Starts a 1-sled rack's daemon under strace, runs {@code true}, returns the trace. */
    private Path runOneJob(boolean breakSecondSlot) throws Exception {
        boolean strace = Files.isExecutable(Path.of("/usr/bin/strace"));
        if (!strace) {
            System.out.println("skipped: no strace on this machine (Debian package strace; .ci/run installs it)");
        }
        Assumptions.assumeTrue(strace, "strace");
        rack = RackCommand.create(dir, 1, LocalRack.freePorts(1), sush.projections.fold.Ordering.CAUSAL);
        RackFile.SledEntry sled = rack.sleds().get(0);
        if (breakSecondSlot) {
            // The second slot's temp file cannot be made: a non-empty directory sits in its place.
            Path blocker = sled.m2().get(1).resolve("boundary.tmp");
            Files.createDirectories(blocker);
            Files.writeString(blocker.resolve("keep"), "x");
        }
        Path trace = dir.resolve("daemon.strace");
        Process daemon = RackAccess.start(dir, sled, List.of("strace", "-f", "-qq", "-s", "1024", "-o", trace.toString(),
                "-e", "trace=" + String.join(",", TRACED)));
        processes.add(daemon);
        assertTrue(RackAccess.awaitApi(sled.api()), "the daemon answers under strace");
        Thread.sleep(300);
        boolean attached = Files.exists(trace) && Files.size(trace) > 0;
        if (!attached) {
            System.out.println("skipped: strace could not trace the daemon here (ptrace refused)");
        }
        Assumptions.assumeTrue(attached, "strace can trace a child");
        SignerKey key = SignerKey.fromPem(Files.readString(dir.resolve("signer.key")));
        String sid = client(0).post("/sessions/start", Map.of()).get("session_id").asString();
        await("the session is active", () -> {
            try {
                return sid.equals(client(0).get("/sessions").path("session_id").asString());
            } catch (sush.ops.cli.Client.Failure f) {
                return false;
            }
        });
        JsonNode s = client(0).get("/sessions");
        SignedJob job = Jobs.at(key, sid, s.get("next_job").asString(), "true", "*", false);
        String id = job.request().job().codephrase();
        client(0).post("/jobs/" + id + "/start", SignedRequests.toJson(job));
        if (breakSecondSlot) {
            // The store fails; nothing is to start: the job ends in error, once the trace holds the
            // first slot's write (strace is slow).
            await("the job ended in error", () -> statuses(0, id).containsValue("error"));
            Awaitility.await("the first slot's write traced").atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(100)).until(() -> written(trace, sled.m2().get(0)));
        } else {
            await("the job ended", () -> statuses(0, id).containsValue("stopped"));
            // The outcome write follows the ending (the status may be seen first): until the trace
            // holds, on every slot, a write that began after the job's exec (strace is slow).
            Awaitility.await("the outcome traced").atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(100)).until(() -> outcomeTraced(trace, sled));
        }
        daemon.descendants().forEach(ProcessHandle::destroyForcibly);
        daemon.destroyForcibly();
        daemon.waitFor();
        return trace;
    }

    /** One traced call: where it entered and returned in the trace, its pid, name, arguments and result. */
    record Call(long entry, long exit, long pid, String name, String args, String result) {
    }

    private static final Pattern LINE = Pattern.compile("^(\\d+)\\s+(.*)$");
    private static final Pattern CALL = Pattern.compile("^(\\w+)\\((.*)$");
    private static final Pattern RESUMED = Pattern.compile("^<\\.\\.\\. (\\w+) resumed>(.*)$");

    static List<Call> parse(Path trace) throws java.io.IOException {
        List<Call> calls = new ArrayList<>();
        Map<Long, String[]> pending = new HashMap<>();
        Map<Long, Long> pendingAt = new HashMap<>();
        List<String> lines = Files.readAllLines(trace, java.nio.charset.StandardCharsets.ISO_8859_1);
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = LINE.matcher(lines.get(i));
            if (!m.matches()) {
                continue;
            }
            long pid = Long.parseLong(m.group(1));
            String rest = m.group(2);
            Matcher r = RESUMED.matcher(rest);
            if (r.matches()) {
                String[] p = pending.remove(pid);
                Long at = pendingAt.remove(pid);
                if (p != null) {
                    String all = p[1] + r.group(2);
                    calls.add(new Call(at, i, pid, p[0], all, result(all)));
                }
                continue;
            }
            Matcher c = CALL.matcher(rest);
            if (!c.matches()) {
                continue;
            }
            if (rest.endsWith("<unfinished ...>")) {
                pending.put(pid, new String[] {c.group(1), c.group(2).replace("<unfinished ...>", "")});
                pendingAt.put(pid, (long) i);
            } else {
                calls.add(new Call(i, i, pid, c.group(1), c.group(2), result(c.group(2))));
            }
        }
        calls.sort(java.util.Comparator.comparingLong(Call::exit));
        return calls;
    }

    private static String result(String args) {
        int eq = args.lastIndexOf(" = ");
        return eq < 0 ? "" : args.substring(eq + 3).trim();
    }

    /**
     * Where each job's process was started: the first execve of the process that became the job
     * (its wrapper or {@code setsid}; the JDK may exec its spawn helper first, in the same
     * process, and that counts as the start). The daemon's own execs (the JVM, a library probe
     * like {@code ldconfig -p}) are not jobs.
     */
    static List<Long> jobExecs(List<Call> calls) {
        List<Long> starts = new ArrayList<>();
        for (Call c : calls) {
            if (!c.name().equals("execve")) {
                continue;
            }
            String program = firstString(c.args());
            boolean job = program != null && (program.endsWith("/setsid") || (program.endsWith("/sh")
                    && c.args().contains("cgroup.procs")));
            if (job) {
                long first = calls.stream().filter(x -> x.pid() == c.pid() && x.name().equals("execve"))
                        .mapToLong(Call::entry).min().orElse(c.entry());
                starts.add(first);
            }
        }
        java.util.Collections.sort(starts);
        return starts;
    }

    /**
     * Each complete write of the slot in {@code dir}: [temp opened (exit), temp fsynced (exit),
     * rename entry, rename exit, directory fsync entry, directory fsync exit].
     */
    static List<long[]> cycles(List<Call> calls, Path dir) {
        String d = dir.toString();
        String temp = dir.resolve("boundary.tmp").toString();
        String record = dir.resolve("boundary").toString();
        Map<String, String> fds = new HashMap<>();
        List<long[]> out = new ArrayList<>();
        long[] cur = null;
        // A close frees its descriptor as it enters (another thread's open may get the number
        // before strace prints the close's return): closes are taken in entry order, the rest in
        // exit order. Taken at its exit, a close split by another thread's open once unmapped the
        // temp file just opened under the same number, and its fsync went unseen.
        List<Call> ordered = new ArrayList<>(calls);
        ordered.sort(Comparator.comparingLong(c -> c.name().equals("close") ? c.entry() : c.exit()));
        for (Call c : ordered) {
            switch (c.name()) {
                case "openat": {
                    String path = firstString(c.args());
                    if (path != null && !c.result().startsWith("-")) {
                        fds.put(c.result().split(" ")[0], path);
                        if (path.equals(temp) && c.args().contains("O_CREAT")) {
                            cur = new long[] {c.exit(), -1, -1, -1, -1, -1};
                        }
                    }
                    break;
                }
                case "close":
                    fds.remove(c.args().split("[,)]")[0].trim());
                    break;
                case "fsync":
                case "fdatasync": {
                    String path = fds.get(c.args().split("[,)]")[0].trim());
                    if (cur != null && temp.equals(path) && cur[1] < 0) {
                        cur[1] = c.exit();
                    } else if (cur != null && d.equals(path) && cur[3] >= 0) {
                        cur[4] = c.entry();
                        cur[5] = c.exit();
                        out.add(cur);
                        cur = null;
                    }
                    break;
                }
                case "rename":
                case "renameat":
                case "renameat2":
                    if (cur != null && c.args().contains("\"" + temp + "\"") && c.args().contains("\"" + record + "\"")
                            && c.result().equals("0")) {
                        cur[2] = c.entry();
                        cur[3] = c.exit();
                    }
                    break;
                default:
                    break;
            }
        }
        return out;
    }

    private static String firstString(String args) {
        int a = args.indexOf('"');
        int b = a < 0 ? -1 : args.indexOf('"', a + 1);
        return b < 0 ? null : args.substring(a + 1, b);
    }
}
