package sush.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompletionTest {
    @TempDir
    Path dir;

    @Test
    void theBashScriptCompletesSubcommandsAndOptionsInARealBash() throws Exception {
        PrintStream out = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            assertEquals(0, Main.run("completion", "bash"));
        } finally {
            System.setOut(out);
        }
        Path script = dir.resolve("sush.bash");
        Files.writeString(script, captured.toString(StandardCharsets.UTF_8));
        // Source it in bash and ask it to complete `sush job hi` and `sush job history --li`.
        String probe = "source " + script + "\n"
                + "COMP_WORDS=(sush job hi); COMP_CWORD=2; COMP_LINE='sush job hi'; COMP_POINT=11; _complete_sush; "
                + "echo \"A:${COMPREPLY[*]}\"\n"
                + "COMP_WORDS=(sush job history --li); COMP_CWORD=3; COMP_LINE='sush job history --li'; COMP_POINT=21; "
                + "_complete_sush; echo \"B:${COMPREPLY[*]}\"\n";
        Process p = new ProcessBuilder("bash", "-c", probe).redirectErrorStream(true).start();
        String answer = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), answer);
        assertTrue(answer.contains("A:history"), answer);
        assertTrue(answer.contains("B:--limit"), answer);
        assertEquals(2, Main.run("completion", "fish"), "an unknown shell is refused");
    }
}
