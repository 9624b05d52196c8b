package io.varve.stress;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * When a kill campaign kills, cycle by cycle: the seed of the cycle's workload, the delay before the kill and
 * whether it counts from the child's start or from its open. The campaign draws each cycle's kill from its
 * seeded random and records it; a reproducer carries the record ({@link #FILE_NAME}), and
 * {@code bin/stress <campaign> --replay FILE} kills at the recorded delays instead of drawing new ones. The
 * draws are made in either case, so everything else the campaign takes from its random stays the same.
 *
 * <p>File format: one line per cycle, {@code <cycle> <workload seed> <delay ms> start|open}; lines starting with
 * {@code #} are comments.
 */
public final class KillSchedule {
    public static final String FILE_NAME = "kill-schedule.txt";

    /** One cycle's kill. */
    public record Kill(long workloadSeed, long delayMillis, boolean fromStart) {
        public Duration delay() {
            return Duration.ofMillis(delayMillis);
        }
    }

    private final Map<Long, Kill> replayed;
    private final Map<Long, Kill> chosen = new TreeMap<>();

    private KillSchedule(Map<Long, Kill> replayed) {
        this.replayed = replayed;
    }

    /** A schedule that replays {@code file} (null: draws every kill). */
    public static KillSchedule replaying(Path file) {
        if (file == null) {
            return new KillSchedule(Map.of());
        }
        Map<Long, Kill> kills = new TreeMap<>();
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] w = line.trim().split("\\s+");
                if (w.length != 4 || !(w[3].equals("start") || w[3].equals("open"))) {
                    throw new IllegalArgumentException(file + ": not a kill-schedule line: " + line);
                }
                kills.put(Long.parseLong(w[0]), new Kill(Long.parseLong(w[1]), Long.parseLong(w[2]),
                        w[3].equals("start")));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the kill schedule " + file, e);
        }
        return new KillSchedule(kills);
    }

    /**
     * The kill of {@code cycle}: the recorded one when replaying a schedule that has it, else drawn from
     * {@code random} (a delay in [1, maxRun] ms, from the start in a quarter of the cycles). Draws from
     * {@code random} either way.
     */
    public Kill next(long cycle, Random random, Duration maxRun) {
        Kill drawn = new Kill(random.nextLong(), 1 + random.nextLong(maxRun.toMillis()), random.nextInt(4) == 0);
        Kill kill = replayed.getOrDefault(cycle, drawn);
        chosen.put(cycle, kill);
        return kill;
    }

    /** The kills chosen so far, as the lines of a file {@link #replaying} reads. */
    public List<String> lines(String campaign, long seed) {
        List<String> lines = new ArrayList<>();
        lines.add("# " + campaign + ", seed " + seed + ": cycle, workload seed, delay before the kill (ms), "
                + "counted from the child's start or its open");
        chosen.forEach((cycle, k) -> lines.add(cycle + " " + k.workloadSeed() + " " + k.delayMillis() + " "
                + (k.fromStart() ? "start" : "open")));
        return lines;
    }

    /** Writes {@link #lines} to {@code file} and returns it (null if it could not be written). */
    public Path write(Path file, String campaign, long seed) {
        try {
            Files.createDirectories(file.getParent());
            return Files.write(file, lines(campaign, seed), StandardCharsets.UTF_8);
        } catch (IOException e) {
            System.err.println("stress: could not write the kill schedule " + file + ": " + e);
            return null;
        }
    }
}
