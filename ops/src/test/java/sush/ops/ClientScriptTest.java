package sush.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import sush.ops.cli.Client;
import sush.ops.cli.RackAccess;
import sush.ops.cli.RackCommand;
import sush.projections.fold.Ordering;

/**
 * Issue 18's end-to-end script ({@code src/test/resources/e2e/client.sh}): the operator's
 * client through the real CLI, one JVM per command as an operator runs it, against a signed
 * 2-sled rack of real daemons whose maxima are set on their command lines.
 */
class ClientScriptTest extends ProcessRack {
    @Test
    void theClientWorksEndToEndThroughTheCli() throws Exception {
        rack = RackCommand.create(dir, 2, LocalRack.freePorts(2), Ordering.SIGNED);
        for (int i = 0; i < 2; i++) {
            processes.add(RackAccess.start(dir, rack.sleds().get(i), List.of(), List.of("--max-cpu-seconds", "60",
                    "--max-wall-time", "600")));
        }
        for (int i = 0; i < 2; i++) {
            assertTrue(RackAccess.awaitApi(rack.sleds().get(i).api()), "sled " + i + " answers");
        }
        // Both sleds know each other (and each other's API) before the script begins.
        await("each sled announced to the other", () -> {
            for (int i = 0; i < 2; i++) {
                try {
                    if (client(i).get("/versions").get("sleds").size() < 2) {
                        return false;
                    }
                } catch (Client.Failure f) {
                    return false;
                }
            }
            return true;
        });
        Path work = Files.createDirectories(dir.resolve("work"));
        Path cli = dir.resolve("sush");
        List<String> java = new ArrayList<>();
        java.add(ProcessHandle.current().info().command().orElse("java"));
        java.addAll(RackCommand.JVM_FLAGS);
        // Client JVMs start fast: one compiler tier, a small heap.
        java.addAll(List.of("-XX:TieredStopAtLevel=1", "-Xshare:auto", "-Xmx256m", "-cp",
                System.getProperty("java.class.path"), "sush.ops.Main"));
        StringBuilder launcher = new StringBuilder("#!/usr/bin/env bash\nexec");
        java.forEach(w -> launcher.append(' ').append(sush.ops.cli.JobCommandAccess.shellQuote(w)));
        Files.writeString(cli, launcher.append(" \"$@\"\n").toString());
        cli.toFile().setExecutable(true);
        Path script = Path.of("src/test/resources/e2e/client.sh").toAbsolutePath();
        ProcessBuilder pb = new ProcessBuilder("bash", script.toString()).directory(work.toFile())
                .redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("SUSH_"));
        pb.environment().put("SUSH", cli.toString());
        pb.environment().put("WORK", work.toString());
        pb.environment().put("URL_A", "http://" + rack.sleds().get(0).api());
        pb.environment().put("URL_B", "http://" + rack.sleds().get(1).api());
        pb.environment().put("SLED_A", rack.sleds().get(0).baseboard());
        pb.environment().put("SLED_B", rack.sleds().get(1).baseboard());
        pb.environment().put("SUSH_SIGNER_KEY", dir.resolve("signer.key").toString());
        pb.environment().put("SUSH_OPERATOR_KEY", dir.resolve(RackCommand.OPERATOR_KEY).toString());
        pb.environment().put("SUSH_RACK", dir.resolve("rack.json").toString());
        pb.environment().put("XDG_CACHE_HOME", dir.resolve("cache").toString());
        pb.environment().put("XDG_STATE_HOME", dir.resolve("state").toString());
        Process p = pb.start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), said);
        assertTrue(said.endsWith("all ok\n"), said);
    }
}
