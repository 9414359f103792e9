package sush.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import sush.ops.cli.Invocation;

/** {@code sush shell}'s own words (issue 41): {@code set} and the default target it puts on job start, plan and sign. */
class ShellCommandTest {
    private final ShellCommand shell = new ShellCommand(new Invocation(Map.of(), Path.of("."),
            InputStream.nullInputStream(), new PrintStream(PrintStream.nullOutputStream()),
            new PrintStream(PrintStream.nullOutputStream()), false));

    @Test
    void setTargetGoesOnJobStartPlanAndSignUnlessGiven() {
        List<String> start = List.of("job", "start", "--wait", "--", "echo", "--target");
        assertEquals(start, shell.withTarget(start), "nothing set: as typed");
        assertTrue(shell.set(List.of("target", "0,1")).startsWith("target 0,1"));
        // After the subcommand's words; a --target among the job's own arguments is the job's.
        assertEquals(List.of("job", "start", "--target", "0,1", "--wait", "--", "echo", "--target"),
                shell.withTarget(start));
        assertEquals(List.of("job", "plan", "--target", "0,1"), shell.withTarget(List.of("job", "plan")));
        List<String> given = List.of("job", "sign", "--target=3", "--", "uptime");
        assertEquals(given, shell.withTarget(given));
        List<String> status = List.of("job", "status", "some-id");
        assertEquals(status, shell.withTarget(status));
        assertTrue(shell.set(List.of()).endsWith("target 0,1"));
        assertTrue(shell.set(List.of("colour", "red")).startsWith("sush: set url"), "an unknown setting says how");
    }
}
