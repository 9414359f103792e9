package sush.pipeline.sled;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;

import org.junit.jupiter.api.Test;

import sush.gossip.clock.Version;
import sush.pipeline.Rack;

/**
 * The once-per-entry bookkeeping of {@link EntryState} (issue 37's mutation run): what it answers
 * decides whether a commit resets the executed join, and whether a fill, an eviction count or a
 * chain's fill is reported again.
 */
class EntryStateTest {
    private static EntryState entry(long seq) {
        return new EntryState(seq, SledHarness.universe(1), null, Optional.empty(), Optional.empty(), Version.ZERO, 0);
    }

    @Test
    void anEntryKeepsItsSequenceNumber() {
        assertEquals(7, entry(7).seq());
    }

    @Test
    void aCommitIsAboveTheFloorOnlyOnceAFloorIsRaisedAndUntilTheNextOne() {
        EntryState at = entry(1);
        assertFalse(at.committedAboveFloor());
        at.committed();
        assertFalse(at.committedAboveFloor(), "no floor: nothing is above it");
        at.raiseFloor(Version.ZERO);
        assertFalse(at.committedAboveFloor(), "a new floor: no commit above it yet");
        at.committed();
        assertTrue(at.committedAboveFloor());
        at.raiseFloor(Version.ZERO);
        assertFalse(at.committedAboveFloor(), "a raised floor starts over");
    }

    @Test
    void theSetsFillIsReportedOncePerThreshold() {
        EntryState at = entry(1);
        assertFalse(at.fillReached(0));
        assertTrue(at.fillReached(80));
        assertFalse(at.fillReached(80));
        assertTrue(at.fillReached(100));
        assertFalse(at.fillReached(80));
    }

    @Test
    void aChainsFillIsReportedOncePerThresholdAndSessionAndANewSessionStartsOver() {
        EntryState at = entry(1);
        assertTrue(at.chainFillReached(Rack.session(1), 80));
        assertFalse(at.chainFillReached(Rack.session(1), 80), "the same session's chain: said once");
        assertTrue(at.chainFillReached(Rack.session(1), 100));
        assertFalse(at.chainFillReached(Rack.session(1), 100));
        assertTrue(at.chainFillReached(Rack.session(2), 80), "another session's chain starts from 0");
        assertFalse(at.chainFillReached(Rack.session(2), 0));
    }

    @Test
    void evictionsAreReportedWhenTheirTotalChanges() {
        EntryState at = entry(1);
        assertFalse(at.evictionsChanged(0), "nothing evicted, nothing to say");
        assertTrue(at.evictionsChanged(3));
        assertFalse(at.evictionsChanged(3));
        assertTrue(at.evictionsChanged(4));
    }
}
