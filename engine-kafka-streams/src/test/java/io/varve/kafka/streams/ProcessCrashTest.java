package io.varve.kafka.streams;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A word count over a Varve store in a child JVM ({@link WordCountProcess}) is killed with SIGKILL a few commits
 * in, mid-stream, then started again on the same state directory and changelog: it restores what its store's
 * committed offset says is missing, resumes the input, and its outputs and final counts equal those of a run
 * that was never interrupted. The kill follows the child's own progress reports, so it lands wherever the
 * child happens to be after its third commit (in a write, a flush, a commit, a budget stall).
 */
class ProcessCrashTest {

    private static final int RECORDS = 4_000;
    private static final int COMMIT_EVERY = 200;
    private static final int KILL_AFTER_COMMITS = 3;

    @TempDir
    Path temp;

    private static Process start(Path stateDir, Path changelog, Path output, Path stderr, boolean writeAheadLog)
            throws IOException {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), WordCountProcess.class.getName(),
                stateDir.toString(), changelog.toString(), output.toString(), Integer.toString(RECORDS),
                Integer.toString(COMMIT_EVERY), Boolean.toString(writeAheadLog));
        return new ProcessBuilder(command).redirectError(stderr.toFile()).start();
    }

    /** Reads the child's progress lines until one starts with {@code prefix} {@code count} times; returns the last. */
    private static String awaitProgress(BufferedReader progress, String prefix, int count, Path stderr)
            throws IOException {
        int seen = 0;
        String line;
        while ((line = progress.readLine()) != null) {
            if (line.startsWith(prefix) && ++seen == count) {
                return line;
            }
        }
        throw new AssertionError("the child ended before reporting '" + prefix + "' " + count + " times: "
                + Files.readString(stderr));
    }

    /** Each input record's output as the last line written for it, so a record redone after the crash counts once. */
    private static Map<Integer, String> outputs(Path output) throws IOException {
        Map<Integer, String> byRecord = new TreeMap<>();
        for (String[] line : WordCountProcess.completeLines(output)) {
            byRecord.put(Integer.parseInt(line[0]), line[1] + "=" + line[2]);
        }
        return byRecord;
    }

    @ParameterizedTest(name = "write-ahead log {0}")
    @ValueSource(booleans = {false, true})
    @Timeout(180) // a hang guard for a child that never reports
    void aWordCountKilledMidStreamRecoversToTheOutputsOfAnUninterruptedRun(boolean writeAheadLog) throws Exception {
        Path reference = temp.resolve("reference");
        Files.createDirectories(reference);
        ByteArrayOutputStream ignored = new ByteArrayOutputStream();
        WordCountProcess.run(reference.resolve("state"), reference.resolve("changelog"), reference.resolve("output"),
                RECORDS, COMMIT_EVERY, writeAheadLog, new PrintStream(ignored, true, StandardCharsets.UTF_8));
        Map<Integer, String> expected = outputs(reference.resolve("output"));
        assertEquals(RECORDS, expected.size());

        Path crashed = temp.resolve("crashed");
        Files.createDirectories(crashed);
        Path stateDir = crashed.resolve("state");
        Path changelog = crashed.resolve("changelog");
        Path output = crashed.resolve("output");
        Path stderr = crashed.resolve("stderr");

        Process first = start(stateDir, changelog, output, stderr, writeAheadLog);
        try (BufferedReader progress = new BufferedReader(
                new InputStreamReader(first.getInputStream(), StandardCharsets.UTF_8))) {
            awaitProgress(progress, "committed ", KILL_AFTER_COMMITS, stderr);
            first.destroyForcibly(); // SIGKILL on Linux: no shutdown hook, no close, no final log sync
            first.waitFor();
        }
        assertTrue(Files.size(changelog) > 0);

        Process second = start(stateDir, changelog, output, stderr, writeAheadLog);
        String resumed;
        try (BufferedReader progress = new BufferedReader(
                new InputStreamReader(second.getInputStream(), StandardCharsets.UTF_8))) {
            resumed = awaitProgress(progress, "resumed ", 1, stderr);
            awaitProgress(progress, "done", 1, stderr);
            second.waitFor();
        } finally {
            if (second.isAlive()) {
                second.destroyForcibly();
            }
            second.waitFor();
        }
        assertEquals(0, second.exitValue(), Files.readString(stderr));
        int resumedAt = Integer.parseInt(resumed.substring("resumed ".length()));
        assertTrue(resumedAt >= KILL_AFTER_COMMITS * COMMIT_EVERY && resumedAt < RECORDS,
                "killed after the third commit and before the end: resumed at " + resumedAt);

        assertEquals(expected, outputs(output), "outputs after recovery");
        assertEquals(finalCounts(expected), storeContents(stateDir, writeAheadLog), "the store's final counts");
    }

    private static Map<String, Long> finalCounts(Map<Integer, String> outputs) {
        Map<String, Long> counts = new TreeMap<>();
        for (String record : outputs.values()) {
            String[] wordAndCount = record.split("=");
            counts.put(wordAndCount[0], Long.parseLong(wordAndCount[1]));
        }
        return counts;
    }

    private static Map<String, Long> storeContents(Path stateDir, boolean writeAheadLog) {
        TestStoreContext context = new TestStoreContext(stateDir, WordCountProcess.appConfigs(writeAheadLog));
        var store = VarveStores.keyValueStore(WordCountProcess.STORE).get();
        store.init(context, store);
        Map<String, Long> contents = new TreeMap<>();
        try (var all = store.all()) {
            all.forEachRemaining(kv -> contents.put(new String(kv.key.get(), StandardCharsets.UTF_8),
                    ByteBuffer.wrap(kv.value).getLong()));
        } finally {
            store.close();
        }
        return contents;
    }
}
