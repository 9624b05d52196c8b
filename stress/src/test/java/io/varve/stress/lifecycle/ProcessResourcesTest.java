package io.varve.stress.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lifecycle campaign's leak checks see a descriptor, a mapping and a thread while they exist, and not after. */
class ProcessResourcesTest {

    @Test
    void descriptorsAndMappingsUnderADirectoryAreSeenUntilReleased(@TempDir Path dir) throws Exception {
        assumeTrue(ProcessResources.available(), "needs /proc (Linux)");
        Path file = dir.resolve("table.sst");
        Files.write(file, new byte[8192]);
        try (Arena arena = Arena.ofShared()) {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                assertEquals(List.of(file.toAbsolutePath().toString()), ProcessResources.descriptorsUnder(dir));
                channel.map(FileChannel.MapMode.READ_ONLY, 0, 8192, arena);
            }
            assertTrue(ProcessResources.descriptorsUnder(dir).isEmpty(), "the channel is closed");
            assertEquals(1, ProcessResources.mappingsUnder(dir).size(), "the mapping outlives its channel");
        }
        assertTrue(ProcessResources.mappingsUnder(dir).isEmpty(), "unmapped with its arena");
    }

    @Test
    void threadsAreFoundByNamePrefix() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Thread t = Thread.ofPlatform().name("varve-test-leak").start(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertEquals(List.of(t), ProcessResources.threadsNamed("varve-test-", List.of()));
        assertTrue(ProcessResources.threadsNamed("varve-test-", List.of(t)).isEmpty(), "ignored threads");
        release.countDown();
        t.join();
        assertTrue(ProcessResources.threadsNamed("varve-test-", List.of()).isEmpty());
    }
}
