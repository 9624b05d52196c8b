package io.varve.raftlog.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.varve.base.LeakDetector;
import io.varve.base.fs.FaultInjectingFileSystem;
import io.varve.base.fs.FileSystem;
import io.varve.base.fs.MemFileSystem;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The raft log's own leak tracking: against a list of the handles a sequence of opens, failed opens, locks
 * and closes left open, the leak detector holds exactly those, owned by their paths.
 */
class TrackedFileSystemProperties {
    private static final AtomicLong TRIES = new AtomicLong();

    @Provide
    Arbitrary<List<Integer>> steps() {
        return Arbitraries.integers().between(0, 10_000).list().ofMaxSize(40);
    }

    @Property(tries = 200)
    void exactlyTheHandlesNotYetClosedAreRegistered(@ForAll("steps") List<Integer> steps) throws Exception {
        LeakDetector.enable();
        Path dir = Path.of("/tracked-" + TRIES.incrementAndGet());
        MemFileSystem disk = new MemFileSystem();
        disk.createDirectories(dir);
        FaultInjectingFileSystem faults = new FaultInjectingFileSystem(disk);
        FileSystem fs = TrackedFileSystem.of(faults);
        List<AutoCloseable> open = new ArrayList<>();
        int files = 0;
        boolean locked = false;
        for (int step : steps) {
            switch (step % 6) {
                case 0 -> open.add(fs.create(dir.resolve("f" + files++)));
                case 1 -> {
                    if (files > 0) {
                        Path path = dir.resolve("f" + (step / 6 % files));
                        open.add(step % 12 < 6 ? fs.openReadable(path) : fs.openForAppend(path));
                    }
                }
                case 2 -> {
                    if (!open.isEmpty()) {
                        open.remove(step / 6 % open.size()).close();
                    }
                }
                case 3 -> {
                    faults.failAt(1, false);
                    assertThrows(IOException.class, () -> fs.create(dir.resolve("refused")));
                }
                case 4 -> {
                    if (!locked) {
                        open.add(fs.lock(dir.resolve("LOCK")));
                        locked = true;
                    }
                }
                default -> {
                    if (files > 0) {
                        var file = fs.openForOverwrite(dir.resolve("f0"), 0);
                        file.write(ByteBuffer.wrap(new byte[] {1}));
                        open.add(file);
                    }
                }
            }
            assertEquals(open.size(), LeakDetector.openOwnedBy(dir.toString()).size(), "after step " + step);
        }
        for (AutoCloseable c : open) {
            c.close();
        }
        assertEquals(List.of(), LeakDetector.openOwnedBy(dir.toString()));
    }
}
