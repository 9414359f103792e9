package sush.ops.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

class VersionDrawingTest {
    @Test
    void theRackIsTwoColumnsOfSixteenCubbiesAndOtherBuildsAreMarked() {
        String[] lines = VersionCommand.draw(Map.of(0, "913-0000019:A 0.1.0+abc", 17, "!913-0000019:B 0.0.9+old",
                31, "913-0000019:C 0.1.0+abc")).split("\n");
        assertEquals(16, lines.length);
        assertTrue(lines[0].startsWith("[ 0 913-0000019:A 0.1.0+abc") && lines[0].contains("[16 ."), lines[0]);
        assertTrue(lines[1].startsWith("[ 1 .") && lines[1].contains("[17 !913-0000019:B 0.0.9+old"), lines[1]);
        assertTrue(lines[15].startsWith("[15 .") && lines[15].contains("[31 913-0000019:C"), lines[15]);
        assertEquals(lines[0].length(), lines[15].length(), "cells are of one width");
        String longText = "x".repeat(80);
        assertEquals(lines[0].length(), VersionCommand.draw(Map.of(0, longText)).split("\n")[0].length(),
                "long text is cut to the cell");
    }
}
