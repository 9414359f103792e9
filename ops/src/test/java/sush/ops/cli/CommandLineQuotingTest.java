package sush.ops.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

class CommandLineQuotingTest {
    /** What bash hands printf when it runs {@code line}: one argument per line. */
    private static String run(String line) throws Exception {
        Process p = new ProcessBuilder("bash", "-c", line).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        return out;
    }

    @Test
    void severalArgumentsArriveExactlyAndOneIsAShellCommandAsItIs() throws Exception {
        List<String> argv = List.of("printf", "[%s]\\n", "a b", "it's", "$HOME", "`x`", "\"q\"", "", "*", "tab\there",
                "line\nbreak", "--flag=1", "ü");
        assertEquals("[a b]\n[it's]\n[$HOME]\n[`x`]\n[\"q\"]\n[]\n[*]\n[tab\there]\n[line\nbreak]\n[--flag=1]\n[ü]\n",
                run(JobRequests.commandLine(argv)));
        assertEquals("printf '[%s]\\n' 'a b'", JobRequests.commandLine(List.of("printf", "[%s]\\n", "a b")));
        assertEquals("echo a b | wc -w", JobRequests.commandLine(List.of("echo a b | wc -w")), "one argument: as it is");
        assertEquals("2\n", run(JobRequests.commandLine(List.of("echo a b | wc -w"))).strip() + "\n");
    }
}
