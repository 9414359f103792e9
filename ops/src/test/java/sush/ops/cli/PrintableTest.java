package sush.ops.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;

import sush.ops.wire.Json;
import sush.ops.wire.SledStatus;

/** Fields from the rack are printed with their control characters escaped (issue 22: terminal escapes). */
class PrintableTest {
    @Test
    void controlCharactersAreShownNotObeyed() {
        assertEquals("\\u001b[2J\\u0007x\\u000ay\\u2028", Client.printable("\u001b[2J\u0007x\ny\u2028"));
        assertEquals("913-0000019:BRM é ✓", Client.printable("913-0000019:BRM é ✓"));
    }

    @Test
    void aStatusLineAndABoardNameCarryNoEscape() {
        String line = JobStatuses.line(Json.read(Json.MAPPER.readTree(
                "{\"status\":\"error\",\"error\":\"io\",\"detail\":\"\\u001b]0;owned\\u0007 disk\"}"),
                SledStatus.class));
        assertFalse(line.chars().anyMatch(Character::isISOControl), line);
        String board = JobStatuses.render(Json.readStatuses(Json.MAPPER.readTree(
                "{\"a\\u001b[2Jb\":{\"status\":\"started\"}}")), false);
        assertFalse(board.chars().anyMatch(c -> c != '\n' && Character.isISOControl(c)), board);
    }
}
