package io.varve.stress.lifecycle;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * What this process holds, read from {@code /proc/self} (Linux): open descriptors and file mappings whose path
 * lies in a directory, and live threads by name prefix. Each returns the offending entries, so that a leak
 * names what leaked.
 */
final class ProcessResources {

    private ProcessResources() {
    }

    static boolean available() {
        return Files.isDirectory(Path.of("/proc/self/fd"));
    }

    /** Targets of this process's open descriptors that lie under {@code dir}. */
    static List<String> descriptorsUnder(Path dir) throws IOException {
        String prefix = dir.toAbsolutePath().normalize().toString();
        List<String> found = new ArrayList<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith(prefix)) {
                        found.add(target);
                    }
                } catch (IOException e) {
                    // closed between the listing and the read (the listing's own descriptor, for one)
                }
            }
        }
        return found;
    }

    /** Every open descriptor. */
    static long descriptorCount() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }

    /** Lines of {@code /proc/self/maps} that map a file under {@code dir} (deleted files included). */
    static List<String> mappingsUnder(Path dir) throws IOException {
        String prefix = dir.toAbsolutePath().normalize().toString();
        List<String> found = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
            if (line.contains(prefix)) {
                found.add(line);
            }
        }
        return found;
    }

    /** Live threads whose name starts with {@code prefix}, except those in {@code ignore}. */
    static List<Thread> threadsNamed(String prefix, List<Thread> ignore) {
        List<Thread> found = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith(prefix) && !ignore.contains(t)) {
                found.add(t);
            }
        }
        return found;
    }
}
