package io.varve.server.apps;

import io.varve.server.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * BullMQ (Node) against an in-process server: runs the core steps of bench/bullmq-check.mjs (bullmq-check.sh
 * runs them all against bin/varve) and expects every one to pass. It needs node on the PATH and bullmq installed in
 * ~/.cache/varve-bullmq (bullmq-check.sh installs it; -Dvarve.bullmq.cache=DIR names another place), and
 * skips with a message otherwise, so a build without Node or without the npm registry is not held up.
 */
class BullMqTest {

    private static final Path SCRIPT = Path.of("bench", "bullmq-check.mjs");
    /**
     * Adding, processing, retrying and delaying jobs through a worker; bullmq-check.sh runs the other steps
     * (events, flows, rate limits, schedulers, ...), which would add seconds to every build that has Node.
     */
    private static final List<String> STEPS = List.of("connect", "addAndProcess", "retry", "delay");

    @Test
    void everyStepPasses(@TempDir Path dir) throws Exception {
        Optional<Path> node = onPath("node");
        assumeTrue(node.isPresent(), "node is not on the PATH: BullMQ check skipped");
        Path cache = Path.of(System.getProperty("varve.bullmq.cache",
                System.getProperty("user.home") + "/.cache/varve-bullmq"));
        assumeTrue(Files.isDirectory(cache.resolve("node_modules/bullmq"))
                        && Files.isDirectory(cache.resolve("node_modules/ioredis")),
                "bullmq is not installed in " + cache + " (engine-server/bench/bullmq-check.sh installs it): skipped");
        assumeTrue(Files.isRegularFile(SCRIPT), SCRIPT.toAbsolutePath() + " not found: skipped");

        try (TestServer server = TestServer.startOnWallClock(dir.resolve("data"))) {
            Path output = dir.resolve("bullmq.out");
            Process check = new ProcessBuilder(node.get().toString(), SCRIPT.toString(),
                    String.valueOf(server.port()), cache.toString(), String.join(",", STEPS))
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start();
            boolean finished;
            try {
                finished = check.waitFor(5, TimeUnit.MINUTES);
            } finally {
                check.destroyForcibly();
            }
            String lines = Files.readString(output, StandardCharsets.UTF_8);
            assertTrue(finished, "bullmq-check.mjs did not finish:\n" + lines);
            assertEquals(0, check.exitValue(), lines);
            for (String step : STEPS) {
                assertTrue(lines.lines().anyMatch(l -> l.startsWith("PASS " + step + " ")), step + ":\n" + lines);
            }
        }
    }

    private static Optional<Path> onPath(String program) {
        String path = System.getenv("PATH");
        if (path == null) return Optional.empty();
        return Stream.of(path.split(File.pathSeparator))
                .filter(d -> !d.isEmpty())
                .map(d -> Path.of(d, program))
                .filter(Files::isExecutable)
                .findFirst();
    }
}
