package io.varve.core;

import io.varve.core.internal.DbTestAccess;
import io.varve.core.internal.DbFiles;
import io.varve.base.CorruptionException;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.ReadableFile;
import io.varve.base.fs.WritableFile;
import io.varve.core.ingest.IngestOptions;
import io.varve.core.sst.SstFileWriter;
import io.varve.core.sst.TableOptions;
import io.varve.core.internal.sst.TableReader;
import io.varve.core.internal.sst.TableWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;

import static io.varve.core.IngestFixtures.bytes;
import static io.varve.core.IngestFixtures.external;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every kind of bad input to ingestion gets a clear exception and leaves the database as it was: same
 * contents, same visible sequence, no file left in its directory, the caller's files untouched.
 */
class IngestBadInputTest {

    private static final Path DIR = Path.of("/db");
    private static final Path EXT = Path.of("/ext");

    private MemFileSystem fs;
    private Db db;

    @BeforeEach
    void setUp() throws IOException {
        fs = new MemFileSystem();
        fs.createDirectories(EXT);
        db = Db.open(DIR, options().withFileSystem(fs).withWriteBufferSize(64 << 10));
        db.put(bytes("k05"), bytes("stored"));
        db.flush();
        db.put(bytes("zz"), bytes("in a memtable"));
    }

    /** The options every test opens with; a subclass reruns the tests with others. */
    Options options() {
        return Options.defaults();
    }

    @AfterEach
    void tearDown() {
        db.close();
    }

    /** A sound external file with keys {@code k<from>..k<to>} and small, equal-size data blocks. */
    private Path file(String name, int from, int to) throws IOException {
        Path path = EXT.resolve(name);
        try (SstFileWriter writer = new SstFileWriter(fs, path,
                TableOptions.defaults().withCompression(false).withBlockSize(128).withBloomBitsPerKey(0))) {
            for (int i = from; i <= to; i++) {
                writer.put(bytes(String.format("k%02d", i)), bytes(String.format("value-%02d", i)));
            }
            writer.finish();
        }
        return path;
    }

    /** Runs the call, which must throw {@code type}; checks nothing changed; returns the exception. */
    private <T extends Throwable> T refused(Class<T> type, List<Path> sources, Executable call) throws Exception {
        TreeMap<String, String> contents = TestStates.contents(db);
        long visible = DbTestAccess.visibleSequence(db);
        List<String> files = tables();
        List<byte[]> sourceBytes = new java.util.ArrayList<>();
        for (Path source : sources) {
            sourceBytes.add(fs.exists(source) ? readAll(source) : null);
        }
        T thrown = assertThrows(type, call);
        assertEquals(contents, TestStates.contents(db), "contents changed");
        assertEquals(visible, DbTestAccess.visibleSequence(db), "visible sequence changed");
        assertEquals(files, tables(), "tables left in the database directory");
        for (int i = 0; i < sources.size(); i++) {
            if (sourceBytes.get(i) != null) {
                assertArrayEquals(sourceBytes.get(i), readAll(sources.get(i)), "the caller's file changed");
            }
        }
        db.put(bytes("after"), bytes("works"));
        db.delete(bytes("after"));
        return thrown;
    }

    @Test
    void aMissingFileIsNamed() throws Exception {
        Path present = file("present.sst", 1, 3);
        Path missing = EXT.resolve("missing.sst");
        for (boolean move : new boolean[] {false, true}) {
            NoSuchFileException e = refused(NoSuchFileException.class, List.of(present, missing),
                    () -> db.ingestExternalFiles(List.of(present, missing), IngestOptions.defaults().withMoveFiles(move)));
            assertTrue(e.getMessage().contains("missing.sst"), e.getMessage());
        }
    }

    @Test
    void aDamagedFileIsReportedWithItsNameAndOffset() throws Exception {
        Path path = file("damaged.sst", 10, 60);
        long offset = dataBlockOffset(path, 1);
        byte[] bytes = readAll(path);
        bytes[(int) offset + 3] ^= 0x10;
        overwrite(path, bytes);
        CorruptionException e = refused(CorruptionException.class, List.of(path),
                () -> db.ingestExternalFiles(List.of(path), IngestOptions.defaults().withMoveFiles(true)));
        assertEquals(path, e.file());
        assertEquals(offset, e.offset());
    }

    @Test
    void anUnsortedFileIsRefused() throws Exception {
        Path path = file("unsorted.sst", 10, 60);
        int i = 0;
        while (dataBlockOffset(path, i + 1) - dataBlockOffset(path, i) != dataBlockOffset(path, i + 2) - dataBlockOffset(path, i + 1)) {
            i++; // find two neighbouring blocks of equal size
        }
        long first = dataBlockOffset(path, i);
        long second = dataBlockOffset(path, i + 1);
        // Swap two whole blocks (each keeps a valid checksum): only the key order is wrong.
        byte[] bytes = readAll(path);
        int length = (int) (second - first);
        byte[] block = java.util.Arrays.copyOfRange(bytes, (int) first, (int) second);
        System.arraycopy(bytes, (int) second, bytes, (int) first, length);
        System.arraycopy(block, 0, bytes, (int) second, length);
        overwrite(path, bytes);
        CorruptionException e = refused(CorruptionException.class, List.of(path),
                () -> db.ingestExternalFiles(List.of(path), IngestOptions.defaults()));
        assertEquals(path, e.file());
        assertEquals(first, e.offset());
    }

    @Test
    void overlappingFilesAndRepeatedFilesAreRefused() throws Exception {
        Path a = file("a.sst", 1, 5);
        Path b = file("b.sst", 5, 9);
        IllegalArgumentException overlap = refused(IllegalArgumentException.class, List.of(a, b),
                () -> db.ingestExternalFiles(List.of(a, b), IngestOptions.defaults()));
        assertTrue(overlap.getMessage().contains("overlap"), overlap.getMessage());
        refused(IllegalArgumentException.class, List.of(a),
                () -> db.ingestExternalFiles(List.of(a, a), IngestOptions.defaults()));
        refused(IllegalArgumentException.class, List.of(),
                () -> db.ingestExternalFiles(List.of(), IngestOptions.defaults()));
    }

    @Test
    void filesForAnotherFamilyOrNotWrittenForIngestionAreRefused() throws Exception {
        TreeMap<String, String> entries = new TreeMap<>();
        entries.put("k01", "x");
        Path other = external(fs, EXT.resolve("other.sst"), "other", entries);
        IllegalArgumentException family = refused(IllegalArgumentException.class, List.of(other),
                () -> db.ingestExternalFiles(List.of(other), IngestOptions.defaults()));
        assertTrue(family.getMessage().contains("'other'"), family.getMessage());

        Path sequenced = EXT.resolve("sequenced.sst");
        try (TableWriter writer = new TableWriter(fs.create(sequenced), TableOptions.defaults())) {
            writer.add(MemorySegment.ofArray(bytes("k01")), InternalKey.trailer(7, ValueKind.PUT),
                    MemorySegment.ofArray(bytes("x")));
            writer.finish();
            writer.sync();
        }
        IllegalArgumentException notExternal = refused(IllegalArgumentException.class, List.of(sequenced),
                () -> db.ingestExternalFiles(List.of(sequenced), IngestOptions.defaults()));
        assertTrue(notExternal.getMessage().contains("not an external table"), notExternal.getMessage());

        Path noFamily = EXT.resolve("nofamily.sst");
        try (TableWriter writer = new TableWriter(fs.create(noFamily), TableOptions.defaults())) {
            writer.add(MemorySegment.ofArray(bytes("k01")), InternalKey.trailer(0, ValueKind.PUT),
                    MemorySegment.ofArray(bytes("x")));
            writer.finish();
            writer.sync();
        }
        refused(IllegalArgumentException.class, List.of(noFamily),
                () -> db.ingestExternalFiles(List.of(noFamily), IngestOptions.defaults()));
    }

    @Test
    void aDroppedFamilyAndUnorderedWritesWithoutAllowWriteAreRefused() throws Exception {
        ColumnFamily dropped = db.createColumnFamily("gone", ColumnFamilyOptions.defaults());
        db.dropColumnFamily(dropped);
        TreeMap<String, String> entries = new TreeMap<>();
        entries.put("k01", "x");
        Path gone = external(fs, EXT.resolve("gone.sst"), "gone", entries);
        refused(IllegalArgumentException.class, List.of(gone),
                () -> db.ingestExternalFiles(dropped, List.of(gone), IngestOptions.defaults()));

        db.close();
        db = Db.open(DIR, Options.defaults().withFileSystem(fs).withUnorderedWrite(true));
        Path file = file("unordered.sst", 1, 2);
        refused(UnsupportedOperationException.class, List.of(file),
                () -> db.ingestExternalFiles(List.of(file), IngestOptions.defaults()));
        db.ingestExternalFiles(List.of(file), IngestOptions.defaults().withAllowWrite(true));
        assertArrayEquals(bytes("value-01"), db.get(bytes("k01")));
    }

    /** Table files only: obsolete logs are deleted in the background at any time. */
    private List<String> tables() throws IOException {
        return fs.list(DIR).stream().filter(name -> name.endsWith(DbFiles.TABLE_SUFFIX)).toList();
    }

    private long dataBlockOffset(Path path, int block) throws IOException {
        TableReader reader = TableReader.open(fs.openReadable(path), path, 1, null);
        try {
            return io.varve.core.internal.sst.TableTestAccess.dataBlockOffset(reader, block);
        } finally {
            reader.release();
        }
    }

    private byte[] readAll(Path path) throws IOException {
        try (ReadableFile file = fs.openReadable(path)) {
            ByteBuffer buffer = ByteBuffer.allocate((int) file.size());
            file.readFully(buffer, 0);
            return buffer.array();
        }
    }

    private void overwrite(Path path, byte[] bytes) throws IOException {
        try (WritableFile file = fs.create(path)) {
            file.write(ByteBuffer.wrap(bytes));
            file.sync();
        }
    }
}
