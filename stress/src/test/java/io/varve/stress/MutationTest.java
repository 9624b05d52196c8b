package io.varve.stress;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.base.CorruptionException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The damage the corruption campaigns apply, and their helpers. */
class MutationTest {

    @Property(tries = 500)
    void aMutationIsDeterministicAndStaysInItsKind(@ForAll long seed, @ForAll @IntRange(min = 0, max = 9000) int size) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        Mutation m = Mutation.random(new Random(seed), size);
        byte[] damaged = m.apply(bytes);
        assertArrayEquals(damaged, m.apply(bytes));
        switch (m.kind()) {
            case TRUNCATE -> assertTrue(damaged.length < size);
            case EXTEND_ZEROS, EXTEND_JUNK -> {
                assertTrue(damaged.length > size);
                assertArrayEquals(bytes, Arrays.copyOf(damaged, size));
            }
            default -> {
                assertEquals(size, damaged.length);
                int differing = 0;
                for (int i = 0; i < size; i++) {
                    if (bytes[i] != damaged[i]) {
                        differing++;
                        assertTrue(i >= m.offset() && i < m.offset() + Math.max(1, m.length()), m + " changed " + i);
                    }
                }
                assertTrue(differing > 0 || m.kind() == Mutation.Kind.ZERO_PAGE, m.toString());
                assertEquals(differing > 0, m.changes(bytes));
            }
        }
    }

    @Test
    void everyKindIsDrawn() {
        Set<Mutation.Kind> seen = EnumSet.noneOf(Mutation.Kind.class);
        Random random = new Random(1);
        for (int i = 0; i < 200; i++) {
            seen.add(Mutation.random(random, 10_000).kind());
        }
        assertEquals(EnumSet.allOf(Mutation.Kind.class), seen);
    }

    @Test
    void aReportedCorruptionIsFoundThroughTheUncheckedExceptionThatCarriesIt(@TempDir Path dir) {
        CorruptionException c = new CorruptionException(dir.resolve("x"), 7, "bad");
        assertSame(c, Corruptions.reported(new IllegalStateException(new UncheckedIOException(c))));
        assertEquals(null, Corruptions.reported(new IOException("other")));
        assertTrue(Corruptions.namesFileAndOffset(c, dir));
        assertFalse(Corruptions.namesFileAndOffset(new CorruptionException(Path.of("/elsewhere"), 7, "bad"), dir));
    }

    @Test
    void restoringUndoesChangesCreationsAndDeletions(@TempDir Path dir) throws IOException {
        Path base = dir.resolve("base");
        Path scratch = dir.resolve("scratch");
        Files.createDirectories(base);
        Files.write(base.resolve("a"), new byte[] {1, 2, 3});
        Files.write(base.resolve("b"), new byte[] {4});
        Corruptions.copyDirectory(base, scratch);
        Files.write(scratch.resolve("a"), new byte[] {9, 9, 9});
        Files.delete(scratch.resolve("b"));
        Files.write(scratch.resolve("c"), new byte[] {5});
        Corruptions.restore(base, scratch);
        assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(scratch.resolve("a")));
        assertArrayEquals(new byte[] {4}, Files.readAllBytes(scratch.resolve("b")));
        assertFalse(Files.exists(scratch.resolve("c")));
        assertNotEquals(0, Files.size(scratch.resolve("a")));
    }
}
