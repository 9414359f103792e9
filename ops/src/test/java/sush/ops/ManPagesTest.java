package sush.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import picocli.CommandLine.Model.CommandSpec;
import sush.ops.cli.Invocation;
import sush.ops.cli.ManCommand;

/**
 * Every option and parameter of every command says what it is (issue 18), and the man pages
 * written from the command tree render with groff without a warning.
 */
class ManPagesTest {
    @TempDir
    Path dir;

    private static void walk(CommandSpec c, List<CommandSpec> out) {
        if (out.contains(c)) {
            return;
        }
        out.add(c);
        c.subcommands().values().forEach(s -> walk(s.getCommandSpec(), out));
    }

    @Test
    void everyOptionAndParameterHasADescription() {
        List<CommandSpec> all = new ArrayList<>();
        walk(Main.commandLine(Invocation.system()).getCommandSpec(), all);
        List<String> bare = new ArrayList<>();
        for (CommandSpec c : all) {
            if (String.join("", c.usageMessage().description()).isBlank()) {
                bare.add(c.qualifiedName() + " (the command)");
            }
            c.options().stream().filter(o -> !o.hidden() && String.join("", o.description()).isBlank())
                    .forEach(o -> bare.add(c.qualifiedName() + " " + o.longestName()));
            c.positionalParameters().stream().filter(p -> !p.hidden() && String.join("", p.description()).isBlank())
                    .forEach(p -> bare.add(c.qualifiedName() + " " + p.paramLabel()));
        }
        assertEquals(List.of(), bare);
    }

    @Test
    void everyCommandsPageRendersWithoutAWarning() throws Exception {
        int n = ManCommand.write(Main.commandLine(Invocation.system()).getCommandSpec(), dir);
        List<Path> pages;
        try (var s = Files.list(dir)) {
            pages = s.sorted().toList();
        }
        assertEquals(n, pages.size());
        assertTrue(pages.contains(dir.resolve("sush-job-output.1")), pages.toString());
        for (Path p : pages) {
            Process g = new ProcessBuilder("groff", "-man", "-Tutf8", "-ww", "-z", p.toString()).redirectErrorStream(true)
                    .start();
            String said = new String(g.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, g.waitFor(), p + ": " + said);
            assertEquals("", said, p + " renders with warnings");
        }
        ProcessBuilder man = new ProcessBuilder("man", "-l", dir.resolve("sush-job-output.1").toString())
                .redirectErrorStream(true);
        man.environment().put("MANWIDTH", "100");
        man.environment().put("MANPAGER", "cat");
        Process m = man.start();
        String page = new String(m.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, m.waitFor(), page);
        for (String want : new String[] {"SUSH-JOB-OUTPUT(1)", "NAME", "A sled's recorded output of a job",
            "--range=FIRST-LAST", "-o FILE, --output=FILE", "ID     the job's codephrase", "130  interrupted",
            "sush-job(1)"}) {
            assertTrue(page.contains(want), want + " in\n" + page);
        }
    }
}
