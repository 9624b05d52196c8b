package io.varve.jmh.data;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Fresh database directories under {@code -Dvarve.bench.dir} (bin/bench points it at jmh/target/bench-data,
 * on the same disk as the project; the default is the system temp dir). It must be a real disk, not tmpfs,
 * or synced writes measure nothing.
 */
public final class BenchDirs {

    private BenchDirs() {
    }

    public static Path root() {
        String configured = System.getProperty("varve.bench.dir");
        return configured != null ? Paths.get(configured)
                : Paths.get(System.getProperty("java.io.tmpdir"), "varve-bench");
    }

    public static Path fresh(String prefix) {
        try {
            Path root = root();
            Files.createDirectories(root);
            return Files.createTempDirectory(root, prefix + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static void delete(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
