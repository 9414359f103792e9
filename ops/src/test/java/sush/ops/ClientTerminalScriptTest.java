package sush.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import sush.ops.cli.JobCommandAccess;
import sush.ops.cli.RackCommand;

/**
 * Issue 18's end-to-end checks that need the CLI as its own process ({@code
 * src/test/resources/e2e/client-terminal.sh}): the real entry point and argument path, and an
 * interactive job on a real terminal (script(1) and tmux give the CLI one). One JVM per command,
 * as an operator runs it, against {@link ClientRack}; every other check of the client runs in
 * this JVM ({@link ClientInProcessTest}).
 */
class ClientTerminalScriptTest extends ClientRack {
    @Test
    void theRealCliRunsAnInteractiveJobOnARealTerminal() throws Exception {
        startClientRack();
        Path work = Files.createDirectories(dir.resolve("work"));
        Path cli = dir.resolve("sush");
        List<String> java = new ArrayList<>();
        java.add(ProcessHandle.current().info().command().orElse("java"));
        java.addAll(RackCommand.JVM_FLAGS);
        // Client JVMs start fast: one compiler tier, a small heap.
        java.addAll(List.of("-XX:TieredStopAtLevel=1", "-Xshare:auto", "-Xmx256m", "-cp",
                System.getProperty("java.class.path"), "sush.ops.Main"));
        StringBuilder launcher = new StringBuilder("#!/usr/bin/env bash\nexec");
        java.forEach(w -> launcher.append(' ').append(JobCommandAccess.shellQuote(w)));
        Files.writeString(cli, launcher.append(" \"$@\"\n").toString());
        cli.toFile().setExecutable(true);
        Path script = Path.of("src/test/resources/e2e/client-terminal.sh").toAbsolutePath();
        ProcessBuilder pb = new ProcessBuilder("bash", script.toString()).directory(work.toFile())
                .redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().putAll(cliEnvironment());
        pb.environment().put("SUSH", cli.toString());
        pb.environment().put("WORK", work.toString());
        pb.environment().put("URL_A", url(0));
        pb.environment().put("URL_B", url(1));
        pb.environment().put("SLED_A", sled(0));
        pb.environment().put("SLED_B", sled(1));
        Process p = pb.start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), said);
        assertTrue(said.endsWith("all ok\n"), said);
    }
}
