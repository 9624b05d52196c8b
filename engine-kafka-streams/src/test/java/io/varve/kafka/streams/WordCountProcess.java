package io.varve.kafka.streams;

import io.varve.kafka.streams.store.VarveKeyValueStore;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A word count over a Varve key-value store, run as a process of its own so that a test can kill it with
 * SIGKILL: what a stream thread does to its store, with the broker replaced by two files the test keeps.
 *
 * <p>Per input record {@code i} (a word drawn from {@code i}, so every run sees the same input): read the word's
 * count, write the output record, append the new count to the changelog, put it in the store; every
 * {@code commitEvery} records commit the changelog offset to the store (KIP-1035) and print
 * {@code committed <records>}. At start-up it restores as Kafka does for a store that manages its offsets:
 * the changelog records after the store's committed offset go in through the store's batching restore
 * callback, and the input resumes after the last record the changelog holds (the changelog is the committed
 * history; the output file may hold one record more, which the test drops). The changelog is appended before
 * the store is written, so a store is never ahead of it and a replay from any offset the store committed
 * restores it exactly, provided the engine kept every write made before the offset it kept (after a SIGKILL
 * it keeps everything handed to the OS; what the kill tests is recovery at an arbitrary point).
 *
 * <p>Files hold one line per record, {@code index<TAB>word<TAB>count}, each written with a single
 * {@code write}; a line cut short by the kill is dropped at restart.
 */
public final class WordCountProcess {

    static final TopicPartition CHANGELOG = new TopicPartition("word-count-counts-changelog", 0);
    static final String STORE = "counts";
    private static final String[] WORDS = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
        "iota", "kappa", "lambda", "mu", "nu", "xi", "omicron", "pi", "rho"};
    private static final int RESTORE_BATCH = 100;

    private WordCountProcess() {
    }

    static String word(int record) {
        long h = record * 0x9E37_79B9_7F4A_7C15L;
        return WORDS[(int) Long.remainderUnsigned(h ^ (h >>> 29), WORDS.length)];
    }

    /** Settings that make the store rotate, flush and meet the shared budget many times in a short run. */
    static Map<String, Object> appConfigs(boolean writeAheadLog) {
        return Map.of(VarveStoreConfig.WRITE_BUFFER_BYTES, 64 << 10,
                VarveStoreConfig.JVM_WRITE_BUFFER_BYTES, 96 << 10,
                VarveStoreConfig.JVM_BLOCK_CACHE_BYTES, 1 << 20,
                VarveStoreConfig.WRITE_AHEAD_LOG, writeAheadLog);
    }

    /** Args: state directory, changelog file, output file, records, commit interval, write-ahead log on. */
    public static void main(String[] args) throws IOException {
        run(Path.of(args[0]), Path.of(args[1]), Path.of(args[2]), Integer.parseInt(args[3]),
                Integer.parseInt(args[4]), Boolean.parseBoolean(args[5]), System.out);
    }

    static void run(Path stateDir, Path changelogFile, Path outputFile, int records, int commitEvery,
                    boolean writeAheadLog, PrintStream progress) throws IOException {
        List<String[]> changelog = completeLines(changelogFile);
        completeLines(outputFile);
        TestStoreContext context = new TestStoreContext(stateDir, appConfigs(writeAheadLog));
        VarveKeyValueStore store = (VarveKeyValueStore) VarveStores.keyValueStore(STORE).get();
        store.init(context, store);
        try {
            Long committed = store.committedOffset(CHANGELOG);
            restore((BatchingStateRestoreCallback) context.restoreCallback, changelog,
                    committed == null ? 0 : (int) (committed + 1));
            if (!changelog.isEmpty()) {
                store.commit(Map.of(CHANGELOG, (long) changelog.size() - 1));
            }
            int next = changelog.size();
            progress.println("resumed " + next);
            progress.flush();
            try (OutputStream changes = new FileOutputStream(changelogFile.toFile(), true);
                 OutputStream output = new FileOutputStream(outputFile.toFile(), true)) {
                for (int i = next; i < records; i++) {
                    String word = word(i);
                    Bytes key = Bytes.wrap(word.getBytes(StandardCharsets.UTF_8));
                    byte[] old = store.get(key);
                    long count = (old == null ? 0 : ByteBuffer.wrap(old).getLong()) + 1;
                    byte[] line = (i + "\t" + word + "\t" + count + "\n").getBytes(StandardCharsets.UTF_8);
                    output.write(line);
                    changes.write(line);
                    store.put(key, ByteBuffer.allocate(Long.BYTES).putLong(count).array());
                    if ((i + 1) % commitEvery == 0) {
                        store.commit(Map.of(CHANGELOG, (long) i));
                        progress.println("committed " + (i + 1));
                        progress.flush();
                    }
                }
            }
        } finally {
            store.close();
        }
        progress.println("done");
        progress.flush();
    }

    private static void restore(BatchingStateRestoreCallback callback, List<String[]> changelog, int from) {
        List<KeyValue<byte[], byte[]>> batch = new ArrayList<>();
        for (int i = from; i < changelog.size(); i++) {
            String[] record = changelog.get(i);
            batch.add(KeyValue.pair(record[1].getBytes(StandardCharsets.UTF_8),
                    ByteBuffer.allocate(Long.BYTES).putLong(Long.parseLong(record[2])).array()));
            if (batch.size() == RESTORE_BATCH) {
                callback.restoreAll(batch);
                batch = new ArrayList<>();
            }
        }
        if (!batch.isEmpty()) {
            callback.restoreAll(batch);
        }
    }

    /** The file's complete lines, split at tabs; a last line without its newline is cut off the file. */
    static List<String[]> completeLines(Path file) throws IOException {
        List<String[]> lines = new ArrayList<>();
        if (!Files.exists(file)) {
            return lines;
        }
        byte[] bytes = Files.readAllBytes(file);
        int start = 0;
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == '\n') {
                lines.add(new String(bytes, start, i - start, StandardCharsets.UTF_8).split("\t"));
                start = i + 1;
            }
        }
        if (start < bytes.length) {
            try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                raf.setLength(start);
            }
        }
        return lines;
    }
}
