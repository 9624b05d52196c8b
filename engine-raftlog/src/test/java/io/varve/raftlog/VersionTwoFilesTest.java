package io.varve.raftlog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.WritableFile;
import io.varve.raftlog.format.BatchBuilder;
import io.varve.raftlog.format.ByteSink;
import io.varve.raftlog.format.LogFileFormat;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** A log written in format version 2 (32-byte file header) opens, is appended to, and reopens. */
class VersionTwoFilesTest {
    private static final Path DIR = Path.of("/v2");

    @Test
    void aVersionTwoLogIsReadAndAppendedTo() throws Exception {
        MemFileSystem mem = new MemFileSystem();
        mem.createDirectories(DIR);
        byte[] header = new byte[LogFileFormat.HEADER_SIZE_V2];
        System.arraycopy(LogFileFormat.MAGIC, 0, header, 0, LogFileFormat.MAGIC.length);
        ByteSink.putIntLE(header, LogFileFormat.OFFSET_VERSION, LogFileFormat.VERSION_2);
        header[LogFileFormat.OFFSET_QUEUE] = (byte) LogFileFormat.QUEUE_APPEND;
        ByteSink.putLongLE(header, LogFileFormat.OFFSET_SEQUENCE, 1);
        CRC32C crc = new CRC32C();
        crc.update(header, 0, LogFileFormat.OFFSET_CRC_V2);
        ByteSink.putIntLE(header, LogFileFormat.OFFSET_CRC_V2, (int) crc.getValue());
        BatchBuilder batch = new BatchBuilder();
        batch.addEntries(3, 1, List.of(new byte[] {1}, new byte[] {2, 2}));
        batch.put(3, new byte[] {'k'}, new byte[] {9});
        try (WritableFile f = mem.create(DIR.resolve(String.format("%016d.append", 1)))) {
            f.write(ByteBuffer.wrap(header));
            f.write(ByteBuffer.wrap(batch.encode(Integer.MAX_VALUE).bindTo(LogFileFormat.QUEUE_APPEND, 1)));
            f.sync();
        }
        mem.syncDirectory(DIR);
        RaftLogOptions options = RaftLogOptions.defaults().withFileSystem(mem);
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, options)) {
            assertArrayEquals(new byte[] {2, 2}, engine.entry(3, 2));
            assertArrayEquals(new byte[] {9}, engine.get(3, new byte[] {'k'}));
            engine.write(new LogBatch().addEntries(3, 3, List.of(new byte[] {3})), true);
        }
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, options)) {
            assertEquals(3, engine.lastIndex(3).getAsLong());
            assertArrayEquals(new byte[] {3}, engine.entry(3, 3));
            assertArrayEquals(new byte[] {1}, engine.entry(3, 1));
        }
    }
}
