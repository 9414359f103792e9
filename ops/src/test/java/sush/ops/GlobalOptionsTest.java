package sush.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;
import sush.ops.cli.Invocation;

class GlobalOptionsTest {
    private static String[] hoist(String... args) {
        return GlobalOptions.hoist(Main.commandLine(Invocation.system()).getCommandSpec(), args);
    }

    @Test
    void globalOptionsBeforeOrAmongTheSubcommandsWordsMoveAfterThem() {
        assertArrayEquals(new String[] {"session", "start", "--json"}, hoist("--json", "session", "start"));
        assertArrayEquals(new String[] {"job", "status", "--url", "http://x:1", "ID"},
                hoist("--url", "http://x:1", "job", "status", "ID"));
        assertArrayEquals(new String[] {"job", "status", "--url=http://x:1", "--json", "ID", "--wait"},
                hoist("--url=http://x:1", "job", "--json", "status", "ID", "--wait"));
        assertArrayEquals(new String[] {"job", "start", "--key", "k.pem", "--", "printf", "--json"},
                hoist("--key", "k.pem", "job", "start", "--", "printf", "--json"), "a job's arguments never move");
        assertArrayEquals(new String[] {"job", "status", "ID", "--json"}, hoist("job", "status", "ID", "--json"),
                "the subcommand form stays as it is");
    }

    @Test
    void bothPositionsParseAndACommandWithoutTheOptionRefusesIt() {
        // Parsed, not run: the option lands on the subcommand that takes it.
        CommandLine cl = Main.commandLine(Invocation.system());
        CommandLine.ParseResult r = cl.parseArgs(hoist("--json", "--url", "http://127.0.0.1:1", "session", "status"));
        CommandLine.ParseResult leaf = r.subcommand().subcommand();
        assertEquals(true, leaf.matchedOptionValue("--json", false));
        assertEquals("http://127.0.0.1:1", leaf.matchedOptionValue("--url", ""));
        assertEquals(2, Main.run("--json", "keygen", "--no-such"), "usage errors exit 2");
    }
}
