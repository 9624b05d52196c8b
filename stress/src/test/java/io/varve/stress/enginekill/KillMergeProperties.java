package io.varve.stress.enginekill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The workload's merge operator against the model's chain ({@link KillMerge#chain}): whatever the engine folds
 * (operands combined by {@code partialMerge} in any grouping, a full merge onto a put, a deleted key or an
 * earlier merged value), the value read names the state the model computes; a misplaced operand or value is
 * refused or unreadable.
 */
class KillMergeProperties {
    private static final int THREAD = 2;
    private static final int FAMILY = 1;
    private static final int INDEX = 5;
    private static final MemorySegment KEY = MemorySegment.ofArray(KillSpace.key(THREAD, INDEX));

    private static MemorySegment operand(long version) {
        return MemorySegment.ofArray(KillMerge.operand(THREAD, FAMILY, INDEX, version));
    }

    /** Folds {@code operands} into runs of random length by partialMerge, as compaction or a memtable may. */
    private static List<MemorySegment> folded(List<MemorySegment> operands, Random random) {
        List<MemorySegment> out = new ArrayList<>();
        for (int i = 0; i < operands.size(); ) {
            int n = 1 + random.nextInt(operands.size() - i);
            List<MemorySegment> run = operands.subList(i, i + n);
            out.add(n == 1 ? run.getFirst() : MemorySegment.ofArray(KillMerge.OPERATOR.partialMerge(KEY, run)));
            i += n;
        }
        return out;
    }

    @Property(tries = 300)
    void anyFoldingOfTheOperandsReadsAsTheModelsChain(@ForAll long seed,
            @ForAll @IntRange(min = 1, max = 30) int merges, @ForAll @IntRange(min = 0, max = 2) int below) {
        Random random = new Random(seed);
        long putVersion = KillSpace.version(4, THREAD, random.nextInt(1000));
        long state = below == 0 ? KillSpace.ABSENT : putVersion;
        MemorySegment existing = below == 0 ? null
                : MemorySegment.ofArray(KillSpace.value(THREAD, FAMILY, INDEX, putVersion));
        int count = 0;
        if (below == 2) {
            // An earlier merge already resolved into a value (by compaction or maxSuccessiveMerges).
            long earlier = KillSpace.version(4, THREAD, 1000 + random.nextInt(1000));
            existing = MemorySegment.ofArray(KillMerge.OPERATOR.fullMerge(KEY, existing, List.of(operand(earlier))));
            state = KillMerge.chain(state, earlier);
            count = 1;
        }
        List<MemorySegment> operands = new ArrayList<>();
        for (int i = 0; i < merges; i++) {
            long version = KillSpace.version(5, THREAD, i);
            operands.add(operand(version));
            state = KillMerge.chain(state, version);
        }
        byte[] value = KillMerge.OPERATOR.fullMerge(KEY, existing, folded(operands, random));
        assertEquals(state, KillSpace.stateOf(THREAD, FAMILY, INDEX, value));
        assertEquals(new KillMerge.Merged(state, count + merges), KillMerge.parseValue(THREAD, FAMILY, INDEX, value));
        if (merges >= 2) {
            List<MemorySegment> lost = new ArrayList<>(operands);
            lost.remove(random.nextInt(merges));
            assertNotEquals(state, KillSpace.stateOf(THREAD, FAMILY, INDEX,
                    KillMerge.OPERATOR.fullMerge(KEY, existing, lost)), "an operand lost");
            List<MemorySegment> twice = new ArrayList<>(operands);
            int i = random.nextInt(merges);
            twice.add(i, operands.get(i));
            assertNotEquals(state, KillSpace.stateOf(THREAD, FAMILY, INDEX,
                    KillMerge.OPERATOR.fullMerge(KEY, existing, twice)), "an operand applied twice");
            List<MemorySegment> swapped = new ArrayList<>(operands);
            swapped.set(i, operands.get((i + 1) % merges));
            swapped.set((i + 1) % merges, operands.get(i));
            assertNotEquals(state, KillSpace.stateOf(THREAD, FAMILY, INDEX,
                    KillMerge.OPERATOR.fullMerge(KEY, existing, swapped)), "two operands swapped");
        }
    }

    @Test
    void aMergedValueReadElsewhereNamesNoState() {
        byte[] value = KillMerge.OPERATOR.fullMerge(KEY, null, List.of(operand(KillSpace.version(1, THREAD, 7))));
        assertEquals(KillMerge.chain(KillSpace.ABSENT, KillSpace.version(1, THREAD, 7)),
                KillSpace.stateOf(THREAD, FAMILY, INDEX, value));
        assertNull(KillSpace.stateOf(THREAD, FAMILY, INDEX + 1, value), "at another key");
        assertNull(KillSpace.stateOf(THREAD, FAMILY + 1, INDEX, value), "in another family");
        assertNull(KillSpace.stateOf(THREAD + 1, FAMILY, INDEX, value), "at another thread's key");
        value[value.length - 1] ^= 1;
        assertNull(KillSpace.stateOf(THREAD, FAMILY, INDEX, value), "a changed byte");
    }

    @Test
    void theOperatorRefusesWhatNoMergeOfThisKeyWrote() {
        MemorySegment otherKey = MemorySegment.ofArray(KillMerge.operand(THREAD, FAMILY, INDEX + 1, 1));
        MemorySegment otherFamily = MemorySegment.ofArray(KillMerge.operand(THREAD, FAMILY + 1, INDEX, 1));
        MemorySegment foreignValue = MemorySegment.ofArray(KillSpace.value(THREAD, FAMILY + 1, INDEX, 9));
        assertThrows(IllegalArgumentException.class, () -> KillMerge.OPERATOR.fullMerge(KEY, null,
                List.of(otherKey)));
        assertThrows(IllegalArgumentException.class, () -> KillMerge.OPERATOR.partialMerge(KEY,
                List.of(operand(1), otherFamily)));
        assertThrows(IllegalArgumentException.class, () -> KillMerge.OPERATOR.fullMerge(KEY, foreignValue,
                List.of(operand(1))));
        assertThrows(IllegalArgumentException.class, () -> KillMerge.OPERATOR.fullMerge(
                MemorySegment.ofArray(KillSpace.key(THREAD, KillSpace.MARKER)), null, List.of(operand(1))));
    }
}
