package io.varve.stress;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A workload in a child JVM: the current {@code java}, this JVM's class path, a main class and arguments. Its
 * stdout is the acknowledgement channel: each line is handed to a consumer as it arrives (the child flushes
 * after each), so when the child is killed the parent knows everything it acknowledged before. Its stderr
 * goes to a file, for the reproducer.
 *
 * <p>{@link #kill()} is SIGKILL, sent through the process handle ({@link ProcessHandle#destroyForcibly()}): no
 * shutdown hook, no finally block, no flush runs in the child, as with {@code kill -9}. Unsynced data still in
 * the OS page cache survives; only a machine crash would lose it. Not {@link Process#destroyForcibly()}: it
 * also closes the parent's end of the child's stdout, discarding acknowledgements still in the pipe, and the
 * oracle would then miss writes the child made.
 */
public final class ChildJvm implements AutoCloseable {
    private final Process process;
    private final Thread reader;

    private ChildJvm(Process process, Consumer<String> lines) {
        this.process = process;
        this.reader = Thread.ofPlatform().daemon().name("child-stdout-" + process.pid()).start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    lines.accept(line);
                }
            } catch (IOException e) {
                lines.accept("READ-ERROR " + e);
            }
        });
    }

    /** Starts {@code mainClass} with {@code args}; stdout lines go to {@code lines}, stderr to {@code stderr}. */
    public static ChildJvm start(Class<?> mainClass, List<String> args, Path stderr, Consumer<String> lines)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(javaExecutable());
        command.add("-Xmx256m");
        command.add("-XX:+UseSerialGC");
        command.add("--enable-native-access=ALL-UNNAMED");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(args);
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()))
                .start();
        return new ChildJvm(p, lines);
    }

    private static String javaExecutable() {
        return ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Waits at most {@code limit}; whether the child exited in that time. */
    public boolean exitedWithin(Duration limit) throws InterruptedException {
        return process.waitFor(limit.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** SIGKILL, then waits until the process is gone and its stdout fully read. */
    public void kill() throws InterruptedException {
        process.toHandle().destroyForcibly();
        awaitExit(60);
    }

    /** Waits for the child to exit on its own; returns its exit code, or -1 if it did not within the limit. */
    public int awaitExit(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            return -1;
        }
        reader.join(TimeUnit.SECONDS.toMillis(seconds));
        return process.exitValue();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
