package sush.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import sush.ops.cli.Invocation;

/**
 * Issue 18's end-to-end checks of the operator's client, the CLI run in this JVM ({@link
 * Main#run(Invocation, String...)}) as an operator runs it from a scratch directory, against
 * {@link ClientRack}: the same command lines, exit codes and checks of what they print and write
 * as the script they came from. What needs the CLI as its own process (its entry point, a real
 * terminal) is {@link ClientTerminalScriptTest}'s.
 */
class ClientInProcessTest extends ClientRack {
    /** The properties that would take the place of the environment's cache and state directories. */
    private static final List<String> OVERRIDES = List.of("sush.cache", "sush.state", "sush.rack");
    private final Map<String, String> overridden = new HashMap<>();
    private Map<String, String> env;
    private Path work;
    private String first;
    private String big;

    /** What one command printed: its standard output's bytes, its standard error. */
    private record Ran(byte[] out, String err) {
        String text() {
            return new String(out, StandardCharsets.UTF_8);
        }
    }

    /** The CLI reads its cache and state where its environment says, as a process of its own does. */
    @BeforeEach
    void withoutTheTestsDirectoryProperties() {
        for (String p : OVERRIDES) {
            overridden.put(p, System.getProperty(p));
            System.clearProperty(p);
        }
    }

    @AfterEach
    void propertiesBack() {
        overridden.forEach((p, v) -> {
            if (v == null) {
                System.clearProperty(p);
            } else {
                System.setProperty(p, v);
            }
        });
    }

    @Test
    void theClientWorksEndToEndInProcess() throws Exception {
        startClientRack();
        work = Files.createDirectories(dir.resolve("work"));
        env = cliEnvironment();
        globalOptionsWorkBeforeAndAfterTheSubcommand();
        anArgumentVectorArrivesIntact();
        sledBsOutputIsFetchedThroughSledA();
        statusesCarryEachSledsTimes();
        historyPagesNewestFirst();
        eachLimitEndsTheJobNamingIt();
        aRequestAboveADaemonMaximumIsRefused();
        anInteractiveJobRunsOnOneSledOnly();
        aStreamingJobsOutputArrivesWholeAndVerified();
        completionAndHelp();
    }

    /** {@code --url} and {@code --json} before the subcommand and after it. */
    private void globalOptionsWorkBeforeAndAfterTheSubcommand() {
        Ran r = run(0, "--url", url(0), "--json", "job", "start", "--wait", "--", "true");
        has("out", r.text(), "\"job_id\"");
        first = jobOf(r);
        r = run(0, "job", "status", first, "--json", "--url", url(1));
        has("out", r.text(), "\"job_id\":\"" + first + "\"");
        has("out", r.text(), "\"" + sled(0) + "\"");
    }

    /** Quotes, spaces, {@code $} and {@code *} in a job's arguments run exactly. */
    private void anArgumentVectorArrivesIntact() {
        Ran r = run(0, "--url", url(0), "--json", "job", "start", "--wait", "--", "printf", "%s|\\n", "a b", "it's",
                "$HOME", "*");
        String argv = jobOf(r);
        r = run(0, "--url", url(0), "job", "output", argv, "--sled", sled(1));
        assertArrayEquals("a b|\nit's|\n$HOME|\n*|\n".getBytes(StandardCharsets.UTF_8), r.out(),
                "argv output differs: " + r.text());
    }

    /** Sled B's output through sled A: whole in parallel ranges into a file, suffix and middle ranges. */
    private void sledBsOutputIsFetchedThroughSledA() throws Exception {
        Ran r = run(0, "--url", url(0), "--json", "job", "start", "--wait", "--target", sled(1), "--",
                "head -c 3000000 /dev/urandom");
        big = jobOf(r);
        r = run(0, "--url", url(0), "job", "status", big, "--json");
        has("out", r.text(), "\"stdout_bytes\":3000000");
        r = run(0, "--url", url(0), "job", "output", big, "--sled", sled(1), "-o", "big.bin", "--parallel", "4");
        has("out", r.text(), "3000000 bytes of stdout from " + sled(1) + " written to big.bin (hash verified)");
        Path file = work.resolve("big.bin");
        assertEquals(3000000, Files.size(file), "big.bin's size");
        assertFalse(Files.exists(work.resolve("big.bin.part")), "a .part file was left");
        byte[] whole = Files.readAllBytes(file);
        r = run(0, "--url", url(0), "job", "output", big, "--sled", sled(1), "--range", "-1000");
        assertEquals(1000, r.out().length, "the suffix range's bytes");
        assertArrayEquals(Arrays.copyOfRange(whole, whole.length - 1000, whole.length), r.out(),
                "the suffix range is not the file's last 1000 bytes");
        r = run(0, "--url", url(0), "job", "output", big, "--sled", sled(1), "--range", "10-19");
        assertEquals(10, r.out().length, "range 10-19's bytes");
        assertArrayEquals(Arrays.copyOfRange(whole, 10, 20), r.out(), "range 10-19 differs");
        r = run(2, "--url", url(0), "job", "output", big, "--sled", sled(1), "--range", "5000000-");
        has("err", r.err(), "bad-range");
        r = run(4, "--url", url(0), "job", "output", big, "--sled", sled(0));
        has("err", r.err(), "no status for job " + big + " from sled " + sled(0));
    }

    /** Each sled's own start, end and duration, as text and as JSON. */
    private void statusesCarryEachSledsTimes() {
        Ran r = run(0, "--url", url(1), "job", "status", first);
        has("out", r.text(), "(sled clock: started ");
        has("out", r.text(), ", ended ");
        has("out", r.text(), "; took ");
        r = run(0, "--url", url(1), "--json", "job", "status", first);
        has("out", r.text(), "\"sled_started_at\"");
        has("out", r.text(), "\"duration_ms\"");
    }

    /** {@code --limit} and {@code --offset} page the history, newest first. */
    private void historyPagesNewestFirst() {
        Ran r = run(0, "--url", url(0), "--json", "job", "history", "--limit", "2");
        assertEquals(2, count(r.text(), "\"job_id\""), "--limit 2 listed: " + r.text());
        r = run(0, "--url", url(0), "--json", "job", "history", "--limit", "2", "--offset", "2");
        assertEquals(1, count(r.text(), "\"job_id\""), "--offset 2 listed: " + r.text());
        has("out", r.text(), "\"" + first + "\"");
        r = run(0, "--url", url(0), "job", "history");
        has("out", r.text(), first);
        has("out", r.text(), big);
    }

    /** Wall time, output, CPU and file size end the job naming the limit; the address space is applied. */
    private void eachLimitEndsTheJobNamingIt() {
        Ran r = run(5, "--url", url(0), "--json", "job", "start", "--wait", "--target", sled(0), "--wall-time", "1s",
                "--", "sleep", "30");
        has("out", r.text(), "\"error\":\"limit\"");
        has("out", r.text(), "\"detail\":\"wall-time limit reached\"");
        r = run(5, "--url", url(0), "--json", "job", "start", "--wait", "--target", sled(0), "--max-output", "64K",
                "--", "yes");
        has("out", r.text(), "\"error\":\"output-limit\"");
        r = run(5, "--url", url(0), "--json", "job", "start", "--wait", "--target", sled(0), "--cpu", "1", "--",
                "while :; do :; done");
        has("out", r.text(), "\"error\":\"limit\"");
        has("out", r.text(), "cpu limit reached");
        r = run(5, "--url", url(0), "--json", "job", "start", "--wait", "--target", sled(0), "--file-size", "4K",
                "--", "head -c 100000 /dev/zero > f");
        has("out", r.text(), "file-size limit reached");
        r = run(0, "--url", url(0), "--json", "job", "start", "--wait", "--target", sled(0), "--address-space", "2G",
                "--", "grep 'Max address space' /proc/self/limits");
        String limits = jobOf(r);
        r = run(0, "--url", url(0), "job", "output", limits, "--sled", sled(0));
        has("out", r.text(), "2147483648");
    }

    /** A request above a daemon's maximum is refused at the API with the reason; a malformed limit is a usage error. */
    private void aRequestAboveADaemonMaximumIsRefused() {
        Ran r = run(2, "--url", url(0), "job", "start", "--cpu", "100", "--", "true");
        has("err", r.err(), "limit-above-maximum");
        has("err", r.err(), "cpu 100 s is above this sled's maximum 60 s");
        r = run(2, "--url", url(0), "job", "start", "--wall-time", "2h", "--", "true");
        has("err", r.err(), "wall-time 7200000 ms is above this sled's maximum 600000 ms");
        r = run(2, "--url", url(0), "job", "start", "--max-output", "12Q", "--", "true");
        has("err", r.err(), "--max-output is a size such as 64K, 10M or 1G, not 12Q");
    }

    /** An interactive job names one sled (the terminal itself is {@link ClientTerminalScriptTest}'s). */
    private void anInteractiveJobRunsOnOneSledOnly() {
        Ran r = run(2, "--url", url(0), "job", "start", "-i", "--", "bash");
        has("err", r.err(), "one-sled-only");
    }

    /**
     * A streaming job's stdout arrives whole and verified and is not kept on the sled; an output
     * small enough to end before its client attaches still arrives (issue 35).
     */
    private void aStreamingJobsOutputArrivesWholeAndVerified() {
        Ran r = run(0, "--url", url(0), "job", "start", "-S", "--target", sled(1), "--", "head", "-c", "5000000",
                "/dev/urandom");
        assertEquals(5000000, r.out().length, "streamed bytes");
        has("err", r.err(), "5000000 bytes streamed, hash verified");
        String streamed = r.err().lines().findFirst().orElse("");
        r = run(4, "--url", url(0), "job", "output", streamed, "--sled", sled(1));
        has("err", r.err(), "not-stored");
        r = run(0, "--url", url(0), "job", "start", "-S", "--target", sled(1), "--", "echo hello");
        assertEquals("hello", r.text().replaceAll("\n+$", ""), "a small streamed output");
    }

    /** The completion script is generated; help lists options and exit codes. */
    private void completionAndHelp() {
        Ran r = run(0, "completion", "bash");
        has("out", r.text(), "complete -F");
        r = run(0, "job", "output", "--help");
        has("out", r.text(), "--range");
        r = run(0, "--help");
        has("out", r.text(), "Exit codes");
    }

    /** Runs one command line in this JVM, in the work directory; it must exit {@code want}. */
    private Ran run(int want, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int got;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            got = Main.run(new Invocation(env, work, InputStream.nullInputStream(), o, e, false), args);
        }
        Ran r = new Ran(out.toByteArray(), err.toString(StandardCharsets.UTF_8));
        if (got != want) {
            fail(String.join(" ", args) + " exited " + got + ", want " + want + "; stdout: " + head(r.text())
                    + "; stderr: " + head(r.err()));
        }
        return r;
    }

    /** {@code where} (out or err) holds {@code text}. */
    private static void has(String where, String said, String text) {
        assertTrue(said.contains(text), where + " lacks '" + text + "': " + head(said));
    }

    /** The job id of a {@code --json job start} answer: the first line naming one. */
    private static String jobOf(Ran r) {
        Pattern id = Pattern.compile(".*\"job_id\":\"([^\"]*)\".*");
        return r.text().lines().map(id::matcher).filter(Matcher::matches).map(m -> m.group(1)).findFirst()
                .orElse("");
    }

    private static int count(String s, String what) {
        int n = 0;
        for (int at = s.indexOf(what); at >= 0; at = s.indexOf(what, at + what.length())) {
            n++;
        }
        return n;
    }

    private static String head(String s) {
        return s.length() <= 2000 ? s : s.substring(0, 2000);
    }
}
