package sush.projections.targets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class TargetTest {
    private static final Sled A = new Sled("913-0000019:BRM42220001", 0);
    private static final Sled B = new Sled("913-0000019:BRM42220002", 7);
    private static final Sled C = new Sled("913-0000023:BRM42220003", 31);

    @Test
    void starTargetsEverySled() throws TargetException {
        Target t = Target.parse(" * ");
        assertTrue(List.of(A, B, C).stream().allMatch(t::runsOn));
    }

    @Test
    void cubbiesBaseboardsAndSerialsMixInOneList() throws TargetException {
        Target t = Target.parse("7, 913-0000023:BRM42220003");
        assertFalse(t.runsOn(A));
        assertTrue(t.runsOn(B));
        assertTrue(t.runsOn(C));
        assertTrue(Target.parse("BRM42220001").runsOn(A));
        assertFalse(Target.parse("BRM42220001").runsOn(B));
        assertEquals("7,913-0000023:BRM42220003", t.text());
    }

    @Test
    void anEmptyCubbyTargetsNoOne() throws TargetException {
        Target t = Target.parse("12");
        assertTrue(List.of(A, B, C).stream().noneMatch(t::runsOn));
    }

    @Test
    void malformedTargetsAreRefused() {
        for (String bad : List.of("", "32", "007", "1,,2", "a:", ":b", "a:b:c", "1,*")) {
            assertThrows(TargetException.class, () -> Target.parse(bad), bad);
        }
        assertThrows(IllegalArgumentException.class, () -> new Sled("noserial", 1));
        assertThrows(IllegalArgumentException.class, () -> new Sled("p:s", 32));
    }

    @Test
    void onlyAsciiDigitsAreCubbiesAndOtherNonAsciiTextIsRefused() throws TargetException {
        for (String lookAlike : new String[] {"\u0665", "\uff13", "1\u0661", "\u0968", "913-0000019:BRM\u0660",
            "BRM\u00e9", "1,\u200b2"}) {
            TargetException e = org.junit.jupiter.api.Assertions.assertThrows(TargetException.class,
                    () -> Target.parse(lookAlike), lookAlike);
            org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("ASCII"), e.getMessage());
        }
        org.junit.jupiter.api.Assertions.assertTrue(Target.parse("5").runsOn(new Sled("p:s", 5)));
        org.junit.jupiter.api.Assertions.assertFalse(Target.parse("5").runsOn(new Sled("p:s", 6)));
    }

    @Test
    void aListAtTheItemBoundParsesAndOneMoreDoesNot() throws TargetException {
        String atBound = String.join(",", java.util.Collections.nCopies(Target.MAX_ITEMS, "7"));
        assertTrue(Target.parse(atBound).runsOn(B));
        assertThrows(TargetException.class, () -> Target.parse(atBound + ",7"));
    }
}
