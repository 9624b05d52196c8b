package io.varve.core;

import io.varve.core.internal.DbTestAccess;
import io.varve.core.internal.DbImpl;
import io.varve.base.fs.ForwardingFileSystem;
import io.varve.base.fs.ForwardingWritableFile;
import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.WritableFile;
import io.varve.core.ingest.IngestOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static io.varve.core.IngestFixtures.bytes;
import static io.varve.core.IngestFixtures.external;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a write sees of an ingestion that is being installed (its manifest sync held at a gate): ordered, the
 * write is applied but becomes visible only after the ingestion; with allowWrite it is not held at all.
 */
class IngestOrderingTest {

    private static final Path DIR = Path.of("/db");
    private static final Path EXT = Path.of("/ext");

    /** Once armed, the next manifest sync waits at the gate. */
    private static final class GatedManifest extends ForwardingFileSystem {
        final CountDownLatch arrived = new CountDownLatch(1);
        final CountDownLatch gate = new CountDownLatch(1);
        volatile boolean armed;

        GatedManifest(MemFileSystem disk) {
            super(disk);
        }

        @Override
        public WritableFile create(Path path) throws IOException {
            WritableFile file = delegate.create(path);
            if (!path.getFileName().toString().startsWith("MANIFEST")) {
                return file;
            }
            return new ForwardingWritableFile(file) {
                @Override
                public void sync() throws IOException {
                    if (armed) {
                        armed = false;
                        arrived.countDown();
                        try {
                            gate.await();
                        } catch (InterruptedException e) {
                            throw new IOException(e);
                        }
                    }
                    delegate.sync();
                }
            };
        }
    }

    @Test
    @Timeout(60)
    void aWriteDuringInstallationIsHeldUntilTheIngestionIsVisible() throws Exception {
        runWithGatedInstallation(false);
    }

    @Test
    @Timeout(60)
    void withAllowWriteAWriteDuringInstallationIsNotHeld() throws Exception {
        runWithGatedInstallation(true);
    }

    private static void runWithGatedInstallation(boolean allowWrite) throws Exception {
        MemFileSystem disk = new MemFileSystem();
        disk.createDirectories(EXT);
        GatedManifest fs = new GatedManifest(disk);
        TreeMap<String, String> entries = new TreeMap<>();
        entries.put("i1", "ingested");
        Path file = external(disk, EXT.resolve("f.sst"), "default", entries);
        try (Db db = Db.open(DIR, Options.defaults().withFileSystem(fs))) {
            DbImpl impl = (DbImpl) db;
            ColumnFamily cf = db.defaultColumnFamily();
            db.put(bytes("w0"), bytes("before"));
            AtomicReference<Throwable> failure = new AtomicReference<>();
            fs.armed = true;
            Thread ingester = Thread.ofPlatform().start(() -> {
                try {
                    db.ingestExternalFiles(List.of(file), IngestOptions.defaults().withAllowWrite(allowWrite));
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            fs.arrived.await(); // the ingestion holds its number and waits in the manifest sync
            long visibleWhileInstalling = DbTestAccess.visibleSequence(impl);

            CountDownLatch written = new CountDownLatch(1);
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    db.put(bytes("w1"), bytes("during"));
                    written.countDown();
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            AtomicLong w1Sequence = new AtomicLong(-1);
            if (allowWrite) {
                written.await(); // returns although the ingestion is still stuck in its manifest sync
                assertEquals(1, fs.gate.getCount());
                assertArrayEquals(bytes("during"), db.get(bytes("w1")));
            } else {
                // Wait, without sleeping, until the write is in the memtable and parked awaiting publication.
                while (w1Sequence.get() < 0 || writer.getState() != Thread.State.WAITING) {
                    DbTestAccess.forEachStoredEntry(impl, cf, (key, sequence) -> {
                        if (new String(key).equals("w1")) {
                            w1Sequence.set(sequence);
                        }
                    });
                    assertTrue(writer.isAlive() && failure.get() == null, "the write finished or failed early");
                    Thread.onSpinWait();
                }
                assertEquals(1, written.getCount(), "the write must not return before the ingestion is visible");
                assertEquals(visibleWhileInstalling, DbTestAccess.visibleSequence(impl), "visibility is held at the ingestion");
                assertTrue(w1Sequence.get() > DbTestAccess.visibleSequence(impl));
                assertNull(db.get(bytes("w1")));
                assertNull(db.get(bytes("i1")));
            }
            fs.gate.countDown();
            ingester.join();
            writer.join();
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertArrayEquals(bytes("ingested"), db.get(bytes("i1")));
            assertArrayEquals(bytes("during"), db.get(bytes("w1")));
            if (!allowWrite) {
                assertTrue(DbTestAccess.visibleSequence(impl) >= w1Sequence.get());
            }
        }
    }
}
