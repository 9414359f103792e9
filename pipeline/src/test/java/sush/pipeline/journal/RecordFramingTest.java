package sush.pipeline.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import sush.gossip.Entropy;
import sush.gossip.clock.Id;
import sush.gossip.clock.Version;
import sush.gossip.set.NetworkId;
import sush.projections.fold.ChainProjection;
import sush.projections.id.Chain;
import sush.projections.id.SessionId;

/**
 * Every byte of a journal record flipped (issue 21). Sealed records (the default) carry
 * AES-GCM's tag over the record and its position: any flip, anywhere, and any record moved to
 * another position, fails authentication (WRONG_KEY: "wrong journal key, or the journal was
 * altered"); a record cut short is CORRUPT. Plain records have no integrity (the daemon warns that
 * they are unsealed): a flip is either a CORRUPT error or decodes to a different record, never
 * an unchecked exception and never the same record.
 */
class RecordFramingTest {
    private static final SessionId SESSION = new SessionId(new byte[11]);

    private static List<JournalRecord> records() {
        return List.of(
                new JournalRecord.Entered(7, NetworkId.of(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                        16}), "cold boot"),
                new JournalRecord.Delivered(Version.ZERO.tick(Id.ONE), new byte[] {9, 8, 7},
                        JournalRecord.Signature.values()[JournalRecord.Signature.values().length - 1]),
                new JournalRecord.Delivered(Version.ZERO.tick(Id.ONE), new byte[] {1}),
                new JournalRecord.Decision(JournalRecord.Decision.Kind.FLOOR, "subject", "detail"),
                new JournalRecord.Resumed(SESSION, Chain.first(SESSION), Chain.afterBurn(Chain.first(SESSION))),
                new JournalRecord.Passed(Chain.first(SESSION), ChainProjection.Passed.NEVER_RAN));
    }

    @Test
    void everyBitOfASealedRecordFlippedIsCorrupt() throws Exception {
        Sealer sealer = new Sealer(new byte[Sealer.KEY_BYTES], Entropy.seeded(3));
        byte[] position = {0, 0, 0, 0, 0, 0, 0, 42};
        for (JournalRecord r : records()) {
            byte[] sealed = sealer.seal(position, RecordCodec.encode(r));
            assertEquals(r.toString(), RecordCodec.decode(sealer.open(position, sealed)).toString());
            for (int i = 0; i < sealed.length; i++) {
                for (int bit = 0; bit < 8; bit++) {
                    byte[] bad = sealed.clone();
                    bad[i] ^= (byte) (1 << bit);
                    JournalException e = assertThrows(JournalException.class, () -> sealer.open(position, bad),
                            r + " byte " + i + " bit " + bit);
                    // The tag cannot tell an altered record from another key; it says both.
                    assertTrue(e.kind() == JournalException.Kind.WRONG_KEY && e.getMessage().contains("altered"),
                            e.kind() + ": " + e.getMessage());
                }
            }
            byte[] elsewhere = {0, 0, 0, 0, 0, 0, 0, 43};
            assertEquals(JournalException.Kind.WRONG_KEY, assertThrows(JournalException.class,
                    () -> sealer.open(elsewhere, sealed)).kind(), "a record moved to another position");
            assertEquals(JournalException.Kind.CORRUPT, assertThrows(JournalException.class,
                    () -> sealer.open(position, java.util.Arrays.copyOf(sealed, Sealer.NONCE_BYTES))).kind(),
                    "a record cut short");
        }
    }

    @Test
    void everyBitOfAPlainRecordFlippedIsCorruptOrAnotherRecordNeverACrash() throws Exception {
        int corrupt = 0;
        int other = 0;
        for (JournalRecord r : records()) {
            byte[] plain = RecordCodec.encode(r);
            for (int i = 0; i < plain.length; i++) {
                for (int bit = 0; bit < 8; bit++) {
                    byte[] bad = plain.clone();
                    bad[i] ^= (byte) (1 << bit);
                    try {
                        JournalRecord d = RecordCodec.decode(bad);
                        assertTrue(!java.util.Arrays.equals(plain, RecordCodec.encode(d)), r + " byte " + i + " bit "
                                + bit + " decodes to the same record");
                        other++;
                    } catch (JournalException e) {
                        assertEquals(JournalException.Kind.CORRUPT, e.kind());
                        corrupt++;
                    }
                }
            }
            // The tag (first byte) of every record: an unknown tag or a record that does not parse.
            for (int bit = 0; bit < 8; bit++) {
                byte[] bad = plain.clone();
                bad[0] ^= (byte) (1 << bit);
                try {
                    JournalRecord d = RecordCodec.decode(bad);
                    assertNotEquals(r.getClass(), d.getClass(), "a flipped tag decodes as the same kind: " + r);
                } catch (JournalException e) {
                    assertEquals(JournalException.Kind.CORRUPT, e.kind());
                }
            }
        }
        assertTrue(corrupt > 0 && other > 0, corrupt + " corrupt, " + other + " other records");
    }

    @Test
    void anEmptyRecordSealsToExactlyNonceAndTagAndOpens() throws Exception {
        Sealer sealer = new Sealer(new byte[Sealer.KEY_BYTES], Entropy.seeded(4));
        byte[] position = {1};
        byte[] sealed = sealer.seal(position, new byte[0]);
        assertEquals(Sealer.NONCE_BYTES + Sealer.TAG_BITS / 8, sealed.length);
        assertEquals(0, sealer.open(position, sealed).length);
        // Sealing and opening alternate on one sealer: each direction keeps its own cipher.
        for (int i = 0; i < 3; i++) {
            byte[] again = sealer.seal(position, new byte[] {(byte) i});
            assertEquals(i, sealer.open(position, again)[0]);
        }
    }

    @Test
    void deliveriesAreEqualByVersionPayloadAndVerdict() {
        Version v = Version.ZERO.tick(Id.ONE);
        JournalRecord.Delivered a = new JournalRecord.Delivered(v, new byte[] {1, 2});
        JournalRecord.Delivered same = new JournalRecord.Delivered(v, new byte[] {1, 2});
        assertEquals(a, same);
        assertEquals(a.hashCode(), same.hashCode());
        assertNotEquals(a, new JournalRecord.Delivered(v, new byte[] {1, 3}));
        assertNotEquals(a.hashCode(), new JournalRecord.Delivered(v, new byte[] {1, 3}).hashCode());
        assertNotEquals(a, new JournalRecord.Delivered(v.tick(Id.ONE), new byte[] {1, 2}));
        assertNotEquals(a.hashCode(), new JournalRecord.Delivered(v.tick(Id.ONE), new byte[] {1, 2}).hashCode());
        assertNotEquals(a, new JournalRecord.Delivered(v, new byte[] {1, 2}, JournalRecord.Signature.values()[
                JournalRecord.Signature.values().length - 1]));
    }

    /**
     * Opening a record never constrains the next seal: each direction keeps its own cipher, so a
     * seal after opening a record with the same nonce (a sealer drawing what the writer drew) works.
     */
    @Test
    void aSealAfterOpeningARecordOfTheSameNonceWorks() throws Exception {
        byte[] key = new byte[Sealer.KEY_BYTES];
        byte[] position = {0, 1};
        byte[] plain = {1, 2, 3};
        byte[] sealed = new Sealer(key, Entropy.seeded(8)).seal(position, plain);
        Sealer same = new Sealer(key, Entropy.seeded(8));
        assertEquals(java.util.List.of((byte) 1, (byte) 2, (byte) 3), bytes(same.open(position, sealed)));
        assertEquals(bytes(sealed), bytes(same.seal(position, plain)), "the same nonce, key and record");
        assertEquals(bytes(plain), bytes(same.open(position, sealed)));
    }

    private static List<Byte> bytes(byte[] b) {
        List<Byte> out = new java.util.ArrayList<>();
        for (byte x : b) {
            out.add(x);
        }
        return out;
    }
}
