package io.varve.stress;

import io.varve.base.CorruptionException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** What the corruption campaigns share: finding a reported corruption, and copying a directory afresh. */
public final class Corruptions {

    private Corruptions() {
    }

    /**
     * The {@link CorruptionException} that {@code t} is or was caused by (an unchecked exception a read throws
     * may wrap it), or null.
     */
    public static CorruptionException reported(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof CorruptionException e) {
                return e;
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return null;
    }

    /** Whether {@code e} names a file in {@code dir} and a non-negative offset, as the engines promise. */
    public static boolean namesFileAndOffset(CorruptionException e, Path dir) {
        return e.file() != null && e.offset() >= 0
                && e.file().toAbsolutePath().normalize().startsWith(dir.toAbsolutePath().normalize());
    }

    /** Makes {@code target} an exact copy of the regular files of {@code source} (nothing else left in it). */
    public static void copyDirectory(Path source, Path target) throws IOException {
        deleteDirectory(target);
        Files.createDirectories(target);
        try (Stream<Path> files = Files.list(source)) {
            for (Path p : files.toList()) {
                if (Files.isRegularFile(p)) {
                    Files.copy(p, target.resolve(p.getFileName().toString()));
                }
            }
        }
    }

    public static void deleteDirectory(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** The regular files of {@code dir}, sorted by name. */
    public static List<Path> files(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(Files::isRegularFile).sorted().toList();
        }
    }
}
