package io.varve.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A kill campaign's kills are recorded, written with a reproducer, and replayed from the file. */
class KillScheduleTest {
    private static final Duration MAX_RUN = Duration.ofSeconds(3);

    @TempDir
    Path work;

    @Test
    void replayingTheWrittenScheduleGivesTheSameKillsEvenWithAnotherLongestRun() {
        KillSchedule first = KillSchedule.replaying(null);
        Random random = new Random(19);
        List<KillSchedule.Kill> drawn = List.of(first.next(1, random, MAX_RUN), first.next(2, random, MAX_RUN),
                first.next(3, random, MAX_RUN));
        Path file = first.write(work.resolve("kills").resolve(KillSchedule.FILE_NAME), "engine-kill", 19);

        KillSchedule replay = KillSchedule.replaying(file);
        Random other = new Random(19);
        for (int cycle = 1; cycle <= 3; cycle++) {
            KillSchedule.Kill kill = replay.next(cycle, other, Duration.ofSeconds(4)); // bin/stress's longest run
            assertEquals(drawn.get(cycle - 1), kill, "cycle " + cycle);
            assertTrue(kill.delayMillis() >= 1 && kill.delayMillis() <= MAX_RUN.toMillis(), kill.toString());
        }
        assertEquals(random.nextLong(), other.nextLong(), "replaying draws as much from the random as drawing");
    }

    @Test
    void cyclesPastTheScheduleAreDrawn() throws Exception {
        Path file = Files.write(work.resolve("s.txt"), List.of("# comment", "1 7 250 start"));
        KillSchedule replay = KillSchedule.replaying(file);
        assertEquals(new KillSchedule.Kill(7, 250, true), replay.next(1, new Random(1), MAX_RUN));
        Random random = new Random(5);
        KillSchedule.Kill second = replay.next(2, random, MAX_RUN);
        assertEquals(KillSchedule.replaying(null).next(2, new Random(5), MAX_RUN), second);
        assertEquals(List.of("1 7 250 start", "2 " + second.workloadSeed() + " " + second.delayMillis() + " "
                + (second.fromStart() ? "start" : "open")), replay.lines("engine-kill", 5).subList(1, 3));
    }

    @Test
    void aLineThatIsNoKillIsRefused() throws Exception {
        Path file = Files.write(work.resolve("bad.txt"), List.of("1 7 250 sometime"));
        assertThrows(IllegalArgumentException.class, () -> KillSchedule.replaying(file));
    }

    @Test
    void aReproducerCarriesTheScheduleAndAReplayCommandThatUsesIt() throws Exception {
        KillSchedule kills = KillSchedule.replaying(null);
        kills.next(1, new Random(3), MAX_RUN);
        Path written = Reproducer.write(work.resolve("reproducers"), "raftlog-kill", 3, 1, "lost a batch", List.of(),
                Map.of(), kills);
        Path schedule = written.resolve(KillSchedule.FILE_NAME);
        assertEquals(kills.lines("raftlog-kill", 3), Files.readAllLines(schedule));
        assertTrue(Files.readString(written.resolve("failure.txt"))
                .contains("replay: bin/stress raftlog-kill --seed 3 --cycles 1 --replay " + schedule));
    }
}
