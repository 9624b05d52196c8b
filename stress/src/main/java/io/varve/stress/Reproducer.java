package io.varve.stress;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;

/**
 * Writes what is needed to replay a failure: the campaign, the seed and cycle, a description, the tail of
 * the operation log, copies of the damaged files (or the whole directory that failed to open), and for a kill
 * campaign the kills it made ({@link KillSchedule}).
 */
public final class Reproducer {

    private Reproducer() {
    }

    /** Returns the directory written, or null if {@code root} is null or writing failed. */
    public static Path write(Path root, String campaign, long seed, long cycle, String what, List<String> opLogTail,
            Map<String, Path> files) {
        return write(root, campaign, seed, cycle, what, opLogTail, files, null);
    }

    /**
     * As above, for a kill campaign: also writes {@code kills} (the kill of every cycle up to the failing one),
     * and the replay command kills at those delays ({@code --replay}) and stops at the failing cycle.
     */
    public static Path write(Path root, String campaign, long seed, long cycle, String what, List<String> opLogTail,
            Map<String, Path> files, KillSchedule kills) {
        return write(root, campaign, seed, cycle, what, opLogTail, files, kills, "");
    }

    /** As above, {@code options} (such as {@code --faults kill,partition}) added to the replay command. */
    public static Path write(Path root, String campaign, long seed, long cycle, String what, List<String> opLogTail,
            Map<String, Path> files, KillSchedule kills, String options) {
        if (root == null) {
            return null;
        }
        Path dir = root.resolve(campaign + "-seed" + seed + "-cycle" + cycle);
        try {
            Files.createDirectories(dir);
            String replay = "bin/stress " + campaign + " --seed " + seed + (options.isEmpty() ? "" : " " + options);
            if (kills != null) {
                Path schedule = dir.resolve(KillSchedule.FILE_NAME);
                Files.write(schedule, kills.lines(campaign, seed), StandardCharsets.UTF_8);
                replay += " --cycles " + cycle + " --replay " + schedule;
            }
            String readme = "campaign " + campaign + "\nseed " + seed + "\ncycle " + cycle + "\nfailure " + what
                    + "\nreplay: " + replay + "\n";
            Files.writeString(dir.resolve("failure.txt"), readme, StandardCharsets.UTF_8);
            Files.write(dir.resolve("oplog-tail.txt"), opLogTail, StandardCharsets.UTF_8);
            for (Map.Entry<String, Path> f : files.entrySet()) {
                copy(f.getValue(), dir.resolve(f.getKey()));
            }
            return dir;
        } catch (IOException e) {
            System.err.println("stress: could not write the reproducer to " + dir + ": " + e);
            return null;
        }
    }

    private static void copy(Path source, Path target) throws IOException {
        if (!Files.exists(source)) {
            return;
        }
        if (!Files.isDirectory(source)) {
            Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
            return;
        }
        Files.createDirectories(target);
        try (var files = Files.list(source)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                copy(p, target.resolve(p.getFileName().toString()));
            }
        }
    }
}
