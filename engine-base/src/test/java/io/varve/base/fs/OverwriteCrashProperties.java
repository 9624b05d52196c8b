package io.varve.base.fs;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link MemFileSystem}'s crash model for overwrites against a model that keeps two arrays: the content as of
 * the last sync and the current one. Whatever a crash leaves must be, byte by byte, one of the two below the
 * synced length, then a part of what was written past it, each byte the written one or a zero (a lost
 * sector); a crash that keeps nothing unsynced leaves exactly the synced content.
 */
class OverwriteCrashProperties {

    /** One step: reopen for overwrite at a fraction of the current size, write n bytes, maybe sync. */
    record Step(double at, int n, boolean sync) {
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        return Combinators.combine(Arbitraries.doubles().between(0, 1), Arbitraries.integers().between(0, 40),
                Arbitraries.of(true, false, false)).as(Step::new).list().ofMaxSize(12);
    }

    @Property(tries = 300)
    void aCrashLeavesOldOrNewBytesAndNeverLessThanWasSynced(@ForAll("steps") List<Step> steps,
            @ForAll long seed, @ForAll boolean keepSome) throws IOException {
        MemFileSystem fs = new MemFileSystem();
        Path dir = Path.of("/d");
        fs.createDirectories(dir);
        Path f = dir.resolve("f");
        fs.create(f).close();
        fs.syncDirectory(dir);
        byte[] synced = new byte[0];
        byte[] current = new byte[0];
        Random bytes = new Random(seed);
        for (Step s : steps) {
            int at = (int) Math.floor(s.at() * current.length);
            byte[] data = new byte[s.n()];
            bytes.nextBytes(data);
            try (WritableFile w = fs.openForOverwrite(f, at)) {
                w.write(ByteBuffer.wrap(data));
                if (s.sync()) {
                    w.sync();
                }
            }
            current = Arrays.copyOf(current, Math.max(current.length, at + data.length));
            System.arraycopy(data, 0, current, at, data.length);
            if (s.sync()) {
                synced = current.clone();
            }
        }
        if (!keepSome) {
            fs.crash();
            assertArrayEquals(synced, OverwriteTest.read(fs, f));
            return;
        }
        fs.crash(new Random(seed ^ 0x5DEECE66DL));
        byte[] after = OverwriteTest.read(fs, f);
        assertTrue(after.length >= synced.length && after.length <= current.length,
                after.length + " bytes after the crash, synced " + synced.length + ", written " + current.length);
        for (int i = 0; i < after.length; i++) {
            boolean ok = after[i] == current[i] || (i < synced.length ? after[i] == synced[i] : after[i] == 0);
            assertTrue(ok, "byte " + i + " is neither the synced nor the written value (nor, unsynced, a zero)");
        }
    }
}
