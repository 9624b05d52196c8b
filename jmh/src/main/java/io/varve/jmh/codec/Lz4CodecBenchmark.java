package io.varve.jmh.codec;

import io.varve.base.Varint;
import io.varve.base.lz4.Lz4BlockCompressor;
import io.varve.base.lz4.Lz4BlockDecoder;
import io.varve.base.lz4.Lz4FormatException;
import io.varve.jmh.data.Values;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One 4 KiB table data block through each LZ4 codec, as the table reader and writer use them.
 *
 * <p>Decoding: {@code decodeCopyThenLz4Java} is the reader's former path (copy the compressed bytes out of
 * the mapping into a fresh array, then lz4-java's safe decompressor into a fresh array);
 * {@code decodeFromMapping} is {@link Lz4BlockDecoder} reading the mapping in place into a fresh array.
 * Both decode lz4-java's output, which is what tables written so far hold, from native memory standing in
 * for the mapping. Compression: lz4-java's safe fast compressor against {@link Lz4BlockCompressor}, each
 * into a reused output array.
 *
 * <p>The blocks imitate data blocks of the fill benchmarks: 16-byte keys with an 8-byte trailer, prefix
 * compressed against the previous key with a restart every 16 entries, 100-byte values that compress to
 * half (db_bench's default), and the restart array at the end. 64 different blocks are cycled so branch
 * predictors cannot learn one block.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class Lz4CodecBenchmark {

    private static final int BLOCK_SIZE = 4096;
    private static final int BLOCKS = 64;
    private static final LZ4SafeDecompressor LZ4_JAVA_DECODER = LZ4Factory.safeInstance().safeDecompressor();
    private static final LZ4Compressor LZ4_JAVA_COMPRESSOR = LZ4Factory.safeInstance().fastCompressor();

    private Arena arena;
    /** Every block as the table stores it, one after another: | uncompressed length varint | LZ4 block |. */
    private MemorySegment mapping;
    private long[] storedOffset;
    private int[] storedSize;
    private byte[][] raw;
    private byte[] compressOutput;
    private final Lz4BlockCompressor compressor = new Lz4BlockCompressor();
    private int next;

    @Setup(Level.Trial)
    public void setUp() throws Lz4FormatException {
        Values values = new Values(100, 7);
        raw = new byte[BLOCKS][];
        byte[][] stored = new byte[BLOCKS][];
        long total = 0;
        for (int b = 0; b < BLOCKS; b++) {
            raw[b] = dataBlock(values, b * 1000L);
            byte[] compressed = LZ4_JAVA_COMPRESSOR.compress(raw[b]);
            byte[] header = new byte[Varint.MAX_INT_LENGTH];
            int headerLength = Varint.write(header, 0, raw[b].length);
            stored[b] = new byte[headerLength + compressed.length];
            System.arraycopy(header, 0, stored[b], 0, headerLength);
            System.arraycopy(compressed, 0, stored[b], headerLength, compressed.length);
            total += stored[b].length + 5;
        }
        arena = Arena.ofShared();
        mapping = arena.allocate(total, 8);
        storedOffset = new long[BLOCKS];
        storedSize = new int[BLOCKS];
        long at = 0;
        for (int b = 0; b < BLOCKS; b++) {
            storedOffset[b] = at;
            storedSize[b] = stored[b].length;
            MemorySegment.copy(stored[b], 0, mapping, ValueLayout.JAVA_BYTE, at, stored[b].length);
            at += stored[b].length + 5;
        }
        compressOutput = new byte[Lz4BlockCompressor.maxCompressedLength(BLOCK_SIZE * 2)];
        // Both decoders must agree before anything is timed.
        for (int b = 0; b < BLOCKS; b++) {
            if (!Arrays.equals(copyThenLz4Java(b), raw[b]) || !Arrays.equals(fromMapping(b), raw[b])) {
                throw new IllegalStateException("decoders disagree on block " + b);
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public byte[] decodeCopyThenLz4Java() {
        return copyThenLz4Java(nextBlock());
    }

    @Benchmark
    public byte[] decodeFromMapping() throws Lz4FormatException {
        return fromMapping(nextBlock());
    }

    private byte[] copyThenLz4Java(int b) {
        long header = Varint.decodeInt(mapping, storedOffset[b], storedOffset[b] + storedSize[b]);
        int headerLength = Varint.length(header);
        byte[] source = mapping.asSlice(storedOffset[b] + headerLength, storedSize[b] - headerLength)
                .toArray(ValueLayout.JAVA_BYTE);
        byte[] target = new byte[Varint.value(header)];
        LZ4_JAVA_DECODER.decompress(source, 0, source.length, target, 0, target.length);
        return target;
    }

    private byte[] fromMapping(int b) throws Lz4FormatException {
        long header = Varint.decodeInt(mapping, storedOffset[b], storedOffset[b] + storedSize[b]);
        int headerLength = Varint.length(header);
        byte[] target = new byte[Varint.value(header)];
        Lz4BlockDecoder.decode(mapping, storedOffset[b] + headerLength, storedSize[b] - headerLength,
                target, 0, target.length);
        return target;
    }

    @Benchmark
    public int compressLz4Java() {
        byte[] block = raw[nextBlock()];
        return LZ4_JAVA_COMPRESSOR.compress(block, 0, block.length, compressOutput, 0, compressOutput.length);
    }

    @Benchmark
    public int compressVarve() {
        byte[] block = raw[nextBlock()];
        return compressor.compress(block, 0, block.length, compressOutput, 0);
    }

    private int nextBlock() {
        int b = next;
        next = (b + 1) & (BLOCKS - 1);
        return b;
    }

    /** About {@value #BLOCK_SIZE} bytes laid out like a table data block (see the class comment). */
    private static byte[] dataBlock(Values values, long firstKey) {
        byte[] out = new byte[BLOCK_SIZE * 2];
        int[] restarts = new int[256];
        int restartCount = 0;
        int at = 0;
        byte[] previous = new byte[0];
        for (int i = 0; at < BLOCK_SIZE - 200; i++) {
            byte[] key = String.format("%016d", firstKey + i * 7L).getBytes(StandardCharsets.US_ASCII);
            byte[] internalKey = new byte[key.length + 8];
            System.arraycopy(key, 0, internalKey, 0, key.length);
            internalKey[key.length] = 1;
            int shared = 0;
            if (i % 16 == 0) {
                restarts[restartCount++] = at;
            } else {
                while (shared < previous.length && previous[shared] == internalKey[shared]) {
                    shared++;
                }
            }
            byte[] value = values.get(firstKey + i);
            at = Varint.write(out, at, shared);
            at = Varint.write(out, at, internalKey.length - shared);
            at = Varint.write(out, at, value.length);
            System.arraycopy(internalKey, shared, out, at, internalKey.length - shared);
            at += internalKey.length - shared;
            System.arraycopy(value, 0, out, at, value.length);
            at += value.length;
            previous = internalKey;
        }
        for (int r = 0; r < restartCount; r++) {
            at = writeFixed32(out, at, restarts[r]);
        }
        at = writeFixed32(out, at, restartCount);
        return Arrays.copyOf(out, at);
    }

    private static int writeFixed32(byte[] out, int at, int value) {
        out[at] = (byte) value;
        out[at + 1] = (byte) (value >>> 8);
        out[at + 2] = (byte) (value >>> 16);
        out[at + 3] = (byte) (value >>> 24);
        return at + 4;
    }
}
