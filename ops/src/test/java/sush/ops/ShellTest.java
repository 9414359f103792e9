package sush.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import sush.ops.cli.JobCommandAccess;
import sush.ops.cli.RackCommand;

/**
 * Issue 41's bar for {@code sush shell}, through a real terminal (tmux gives the shell one, as the
 * interactive tests do): two racks of real daemons named in a racks file; in one shell, with one
 * login per rack, a session, three jobs waited for, a status, an output, {@code set rack}, a
 * second rack's session and job, {@code quit}; every answer is checked on the screen.
 */
class ShellTest {
    private static final String TMUX = "sush-shell-test";
    private static final Pattern JOB_ID = Pattern.compile("(?m)^([a-z]+(?:-[a-z]+){7})\\s*$");

    @TempDir
    Path dir;

    private static String run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return out;
    }

    private static String screen() throws IOException, InterruptedException {
        return run("tmux", "-L", TMUX, "capture-pane", "-p", "-J", "-S", "-2000", "-t", "shell");
    }

    /** Types {@code line} and waits until the screen shows {@code want} after it (at most 60 s). */
    private static String type(String line, String want) throws Exception {
        int before = screen().length();
        run("tmux", "-L", TMUX, "send-keys", "-t", "shell", "-l", line);
        run("tmux", "-L", TMUX, "send-keys", "-t", "shell", "Enter");
        long until = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < until) {
            String s = screen();
            int at = s.lastIndexOf(line);
            if (at >= 0 && s.indexOf(want, at + line.length()) >= 0) {
                return s.substring(at + line.length());
            }
            Thread.sleep(100);
        }
        fail("after '" + line + "' no '" + want + "' on the screen (" + before + " chars before):\n" + screen());
        return null;
    }

    /** Waits until the screen shows {@code text} (at most 60 s); the screen. */
    private static String awaitScreen(String text) throws Exception {
        return awaitScreen(Pattern.compile(Pattern.quote(text)));
    }

    /** Waits until the screen matches {@code p} (at most 60 s); the screen. */
    private static String awaitScreen(Pattern p) throws Exception {
        long until = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < until) {
            String s = screen();
            if (p.matcher(s).find()) {
                return s;
            }
            Thread.sleep(100);
        }
        fail("no '" + p + "' on the screen:\n" + screen());
        return null;
    }

    private static int identities(LocalRack r) throws Exception {
        return r.client(0).get("/iam").get("identities").size();
    }

    @Test
    void aScriptedShellSessionOnTwoRacksWithOneLoginEach() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/tmux")), "tmux");
        try (LocalRack one = new LocalRack(dir.resolve("one"), 2); LocalRack two = new LocalRack(dir.resolve("two"), 2)) {
            one.converge();
            two.converge();
            // The operator of rack one is an operator of rack two too: one key for both.
            Path key = dir.resolve("one").resolve(RackCommand.OPERATOR_KEY);
            Files.writeString(two.rack.operators(), Files.readString(key.resolveSibling(RackCommand.OPERATOR_KEY
                    + ".pub")), java.nio.file.StandardOpenOption.APPEND);
            for (var d : two.daemons) {
                d.authority().reload();
            }
            int oneBefore = identities(one);
            int twoBefore = identities(two);
            Path config = Files.createDirectories(dir.resolve("config").resolve("sush"));
            Files.writeString(config.resolve("racks.json"), "{\"racks\": {\"one\": {\"rack\": \"" + dir.resolve("one")
                    .resolve("rack.json") + "\"}, \"two\": {\"rack\": \"" + dir.resolve("two").resolve("rack.json")
                    + "\"}}}");
            List<String> cmd = new ArrayList<>();
            cmd.add(ProcessHandle.current().info().command().orElse("java"));
            cmd.addAll(RackCommand.JVM_FLAGS);
            cmd.addAll(List.of("-XX:TieredStopAtLevel=1", "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                    "sush.ops.Main", "shell"));
            StringBuilder launcher = new StringBuilder("#!/usr/bin/env bash\ncd " + JobCommandAccess.shellQuote(
                    dir.toString()) + "\nexport XDG_CONFIG_HOME=" + JobCommandAccess.shellQuote(dir.resolve("config")
                            .toString()) + " XDG_STATE_HOME=" + JobCommandAccess.shellQuote(dir.resolve("state").toString())
                    + " XDG_CACHE_HOME=" + JobCommandAccess.shellQuote(dir.resolve("cache").toString())
                    + " SUSH_OPERATOR_KEY=" + JobCommandAccess.shellQuote(key.toString()) + " SUSH_SIGNER_KEY="
                    + JobCommandAccess.shellQuote(dir.resolve("one").resolve("signer.key").toString()) + " SUSH_RACK_NAME=one"
                    + " TERM=xterm\n");
            cmd.forEach(w -> launcher.append(JobCommandAccess.shellQuote(w)).append(' '));
            launcher.append("\necho \"shell exited $?\"\nsleep 60\n");
            Path script = dir.resolve("shell.sh");
            Files.writeString(script, launcher.toString());
            run("tmux", "-L", TMUX, "kill-server");
            run("tmux", "-L", TMUX, "new-session", "-d", "-s", "shell", "-x", "200", "-y", "50", "bash " + script);
            try {
                long until = System.nanoTime() + 60_000_000_000L;
                while (!screen().contains("sush one> ") && System.nanoTime() < until) {
                    Thread.sleep(100);
                }
                assertTrue(screen().contains("sush one> "), screen());
                type("session start", "sush one> ");
                List<String> ids = new ArrayList<>();
                for (String word : List.of("first", "second", "third")) {
                    // One argument is a bash command line, as on the command line (quoted for the shell's parser).
                    String said = type("job start --wait -- 'echo " + word + "-$((6*7))'", "sush one> ");
                    assertTrue(said.contains("stopped exit 0"), said);
                    Matcher m = JOB_ID.matcher(said);
                    assertTrue(m.find(), said);
                    ids.add(m.group(1));
                }
                String status = type("job status " + ids.get(2), "sush one> ");
                assertTrue(status.contains("stopped exit 0"), status);
                String sled = one.rack.sleds().get(1).baseboard();
                String output = type("job output " + ids.get(2) + " --sled " + sled, "sush one> ");
                assertTrue(output.contains("third-42"), output);
                // Completion: a command, and the session's job ids where one goes.
                run("tmux", "-L", TMUX, "send-keys", "-t", "shell", "-l", "vers");
                run("tmux", "-L", TMUX, "send-keys", "-t", "shell", "Tab");
                awaitScreen("sush one> version");
                run("tmux", "-L", TMUX, "send-keys", "-t", "shell", "C-u");
                run("tmux", "-L", TMUX, "send-keys", "-t", "shell", "-l", "job status ");
                run("tmux", "-L", TMUX, "send-keys", "-t", "shell", "Tab");
                awaitScreen(ids.get(0));
                awaitScreen(ids.get(1));
                run("tmux", "-L", TMUX, "send-keys", "-t", "shell", "C-u");
                // Ctrl-C stops following a job, never the job: it ends later, stopped exit 0.
                run("tmux", "-L", TMUX, "send-keys", "-t", "shell", "-l", "job start --wait -- 'sleep 4; echo late'");
                run("tmux", "-L", TMUX, "send-keys", "-t", "shell", "Enter");
                Pattern lateId = Pattern.compile("sleep 4; echo late'\\s+([a-z]+(?:-[a-z]+){7})\\s");
                Matcher late = lateId.matcher(awaitScreen(lateId));
                assertTrue(late.find(), screen());
                run("tmux", "-L", TMUX, "send-keys", "-t", "shell", "C-c");
                awaitScreen("stopped following");
                long endBy = System.nanoTime() + 30_000_000_000L;
                String ended = "";
                while (System.nanoTime() < endBy && !ended.contains("stopped exit 0")) {
                    ended = type("job status " + late.group(1), "sush one> ");
                    Thread.sleep(500);
                }
                assertTrue(ended.contains("stopped exit 0"), ended);
                type("set rack two", "sush two> ");
                type("session start", "sush two> ");
                // Rack two trusts its own signer: --key, as on the command line.
                String there = type("job start --key " + dir.resolve("two").resolve("signer.key") + " --wait -- echo "
                        + "on-rack-two", "sush two> ");
                assertTrue(there.contains("stopped exit 0") && there.contains(two.rack.sleds().get(0).baseboard()),
                        there);
                // A command that fails says its exit code, and the shell goes on.
                String missing = type("job status no-such-job", "sush two> ");
                assertTrue(missing.contains("[exit 2]") || missing.contains("[exit 4]"), missing);
                type("quit", "shell exited 0");
            } finally {
                System.out.println(screen());
                run("tmux", "-L", TMUX, "kill-server");
            }
            // One login per rack for the whole shell (each sled's /iam lists the identities it honours).
            assertEquals(1, identities(one) - oneBefore, "logins at rack one");
            assertEquals(1, identities(two) - twoBefore, "logins at rack two");
            // History in the state directory, the owner's alone.
            Path history = dir.resolve("state").resolve("sush").resolve("shell-history");
            assertTrue(Files.readString(history).contains("set rack two"), Files.readString(history));
            assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(history)));
        }
    }
}
