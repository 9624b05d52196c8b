package io.varve.server.cluster;

import io.varve.core.WriteBatch;
import io.varve.server.command.ClusterView;
import io.varve.server.command.KeySlot;
import io.varve.server.store.Database;
import io.varve.server.store.KeyEncoding;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The slot map against its definition, and routing of commits by their engine keys against KeySlot. */
class SlotMapProperties {

    @Property
    void anEvenMapGivesEverySlotToOneGroupInContiguousRangesOfNearlyEqualSize(
            @ForAll @IntRange(min = 1, max = 300) int groups) {
        SlotMap map = SlotMap.evenly(groups, 1);
        assertEquals(groups, map.groups());
        int covered = 0;
        int smallest = Integer.MAX_VALUE;
        int largest = 0;
        for (int g = 0; g < groups; g++) {
            List<ClusterView.SlotRange> ranges = map.rangesOf(g);
            assertEquals(1, ranges.size(), "one contiguous range per group");
            ClusterView.SlotRange r = ranges.getFirst();
            assertEquals(covered, r.first(), "ranges follow each other in group order");
            for (int slot = r.first(); slot <= r.last(); slot++) {
                assertEquals(g, map.groupOf(slot));
            }
            covered = r.last() + 1;
            smallest = Math.min(smallest, r.count());
            largest = Math.max(largest, r.count());
        }
        assertEquals(KeySlot.SLOTS, covered);
        assertTrue(largest - smallest <= 1, "sizes " + smallest + ".." + largest);
    }

    @Property
    void aCommitBelongsToTheGroupOfItsKeysSlot(@ForAll @Size(max = 40) byte[] key,
                                               @ForAll @Size(max = 8) byte[] field,
                                               @ForAll @IntRange(min = 1, max = 64) int groups) {
        SlotMap map = SlotMap.evenly(groups, 1);
        int expected = map.groupOf(KeySlot.of(key));
        assertEquals(KeySlot.of(key), BatchRouting.slotOf(Database.SLOTTED.metadataKey(key)));
        assertEquals(KeySlot.of(key), BatchRouting.slotOf(Database.SLOTTED.subkey(key, 42, field)));
        assertEquals(KeySlot.of(key), BatchRouting.slotOf(Database.SLOTTED.subkeyPrefix(key, 42)));
        WriteBatch batch = new WriteBatch()
                .put(Database.SLOTTED.metadataKey(key), new byte[] {1})
                .put(Database.SLOTTED.subkey(key, 7, field), new byte[0])
                .put(KeyEncoding.internalKey("version-floor"), new byte[8]);
        assertEquals(expected, BatchRouting.groupOf(batch, map));
        assertEquals(BatchRouting.NO_GROUP,
                BatchRouting.groupOf(new WriteBatch().put(KeyEncoding.internalKey("x"), new byte[0]), map));
    }

    @Property
    void aCommitWithAKeyOfThePlainLayoutIsRefused(@ForAll @Size(max = 40) byte[] key,
                                                  @ForAll @Size(max = 8) byte[] field) {
        SlotMap map = SlotMap.evenly(3, 1);
        for (byte[] plain : List.of(KeyEncoding.metadataKey(key), KeyEncoding.metadataKey(3, key),
                KeyEncoding.subkey(key, 7, field))) {
            assertEquals(-1, BatchRouting.slotOf(plain));
            assertThrows(IllegalStateException.class,
                    () -> BatchRouting.groupOf(new WriteBatch().put(plain, new byte[0]), map));
        }
    }

    @Property
    void aCommitOverKeysOfTwoGroupsIsRefused(@ForAll @Size(max = 20) byte[] a, @ForAll @Size(max = 20) byte[] b,
                                            @ForAll @IntRange(min = 2, max = 64) int groups) {
        SlotMap map = SlotMap.evenly(groups, 1);
        int ga = map.groupOf(KeySlot.of(a));
        int gb = map.groupOf(KeySlot.of(b));
        WriteBatch batch = new WriteBatch().delete(Database.SLOTTED.metadataKey(a))
                .delete(Database.SLOTTED.metadataKey(b));
        assertEquals(ga == gb ? ga : BatchRouting.SEVERAL_GROUPS, BatchRouting.groupOf(batch, map));
    }
}
