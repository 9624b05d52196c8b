package io.varve.core;

import io.varve.base.fs.MemFileSystem;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * When close returns, no thread of the database is alive: not the flush or compaction threads, not the log
 * worker, not the reclaimer. (An executor's awaitTermination alone can return while its last thread is still
 * finishing, which callers counting threads see as a leak.)
 */
class CloseJoinsThreadsTest {

    @Test
    void noThreadOfTheDatabaseOutlivesClose() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        for (int cycle = 0; cycle < 30; cycle++) {
            String name = "threads-" + cycle;
            try (Db db = Db.open(Path.of("/" + name), Options.defaults().withFileSystem(fs)
                    .withWriteBufferSize(64 << 10))) {
                for (int i = 0; i < 2000; i++) {
                    db.put(("key-" + i).getBytes(), new byte[64]); // rotates logs: the log worker has work
                }
                db.flush();
            }
            List<String> alive = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.isAlive() && t.getName().startsWith("varve-") && t.getName().endsWith(" " + name))
                    .map(Thread::getName).toList();
            assertEquals(List.of(), alive, "threads alive after close in cycle " + cycle);
        }
    }
}
