package io.varve.jmh.raftlog;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Scratch directories for the stores, under -Dvarve.bench.dir (default: the system temp dir). */
final class BenchDirs {
    private BenchDirs() {
    }

    static Path create(String prefix) throws IOException {
        Path base = Path.of(System.getProperty("varve.bench.dir", System.getProperty("java.io.tmpdir")));
        Files.createDirectories(base);
        return Files.createTempDirectory(base, prefix);
    }

    /**
     * Writes out every dirty page of the machine (the {@code sync} command) before a trial starts. An unsynced
     * trial at 32 KiB hands the kernel gigabytes; without this, the next trial, whichever store it measures,
     * runs while that backlog is written back and is throttled for it, so the order of trials decided the
     * ratio. Skipped (with a note) where no {@code sync} command exists.
     */
    static void settleDirtyPages() {
        try {
            Process sync = new ProcessBuilder("sync").inheritIO().start();
            if (sync.waitFor() != 0) {
                System.err.println("[raftlog-bench] sync exited with " + sync.exitValue());
            }
        } catch (IOException e) {
            System.err.println("[raftlog-bench] could not run sync: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static RaftStore open(String store, Path dir) throws IOException {
        return switch (store) {
            case "varve" -> new VarveRaftStore(dir);
            case "rocksdb" -> new RocksRaftStore(dir);
            default -> throw new IllegalArgumentException("unknown store " + store);
        };
    }

    static long size(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (IOException e) {
                    return 0; // deleted meanwhile
                }
            }).sum();
        }
    }

    static void delete(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
