package io.varve.stress;

import io.varve.base.CorruptionException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** What the corruption campaigns share: finding a reported corruption, and copying a directory afresh. */
public final class Corruptions {
    /** The modification time of every copy this class makes: 1970, which no write on this machine sets. */
    private static final FileTime PRISTINE = FileTime.fromMillis(1_000);

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

    /**
     * Makes {@code target} an exact copy of the regular files of {@code source} (nothing else left in it). Each
     * copy's modification time is set to {@link #PRISTINE}, a time no write can give a file, so that
     * {@link #restore} can tell an untouched copy from one rewritten in place at the same size.
     */
    public static void copyDirectory(Path source, Path target) throws IOException {
        deleteDirectory(target);
        Files.createDirectories(target);
        for (Path p : files(source)) {
            copy(p, target.resolve(p.getFileName().toString()));
        }
    }

    private static void copy(Path source, Path target) throws IOException {
        Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
        Files.setLastModifiedTime(target, PRISTINE);
    }

    /**
     * Makes {@code target} equal to {@code source} again after a run changed it, copying only what differs:
     * files the run created are deleted, files it removed or changed (by size, or by a modification time that
     * is no longer {@link #PRISTINE}) are copied back. Much cheaper than a fresh copy when one file was
     * damaged. Comparing with the source's own time instead would miss a file rewritten within the file
     * system's timestamp granularity of the source's last write.
     */
    public static void restore(Path source, Path target) throws IOException {
        if (!Files.isDirectory(target)) {
            copyDirectory(source, target);
            return;
        }
        for (Path p : files(target)) {
            if (!Files.exists(source.resolve(p.getFileName().toString()))) {
                Files.delete(p);
            }
        }
        try (Stream<Path> all = Files.list(target)) {
            for (Path p : all.filter(Files::isDirectory).toList()) {
                deleteDirectory(p);
            }
        }
        for (Path p : files(source)) {
            Path copy = target.resolve(p.getFileName().toString());
            if (!Files.exists(copy) || Files.size(copy) != Files.size(p)
                    || !Files.getLastModifiedTime(copy).equals(PRISTINE)) {
                copy(p, copy);
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
