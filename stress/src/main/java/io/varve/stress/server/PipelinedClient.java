package io.varve.stress.server;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.varve.stress.Progress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One connection of the server kill campaign: a thread that sends its {@link ConnectionModel}'s commands
 * pipelined (up to {@value #WINDOW} unanswered, flushed to the socket in runs of 1 to 16) until stopped or its
 * connection is lost, and records, per command, whether its reply came and was the expected one. The server answers a connection's
 * commands in order, so the acknowledged commands are a prefix of the sent ones.
 */
final class PipelinedClient {
    private static final int WINDOW = 64;

    /** A sent command and what became of it. */
    static final class Sent {
        final ServerCommand command;
        volatile boolean acknowledged;
        volatile String wrongReply;

        Sent(ServerCommand command) {
            this.command = command;
        }
    }

    private final StatefulRedisConnection<String, String> connection;
    private final ConnectionModel model;
    private final Random random;
    private final long cycle;
    private final Progress progress;
    private final Semaphore window = new Semaphore(WINDOW);
    private final List<Sent> sent = new ArrayList<>();
    private final List<RedisFuture<?>> futures = new ArrayList<>();
    private volatile boolean stop;
    private volatile Throwable crashed;
    private Thread thread;

    PipelinedClient(StatefulRedisConnection<String, String> connection, ConnectionModel model, Random random,
            long cycle, Progress progress) {
        this.progress = progress;
        this.connection = connection;
        this.model = model;
        this.random = random;
        this.cycle = cycle;
    }

    void start(String name) {
        thread = Thread.ofPlatform().daemon().name(name).start(this::run);
    }

    private void run() {
        RedisAsyncCommands<String, String> redis = connection.async();
        connection.setAutoFlushCommands(false);
        try {
            int run = 0;
            int runLength = 1 + random.nextInt(16);
            while (!stop) {
                // A full window after the server died stays full: the stop comes from the campaign.
                if (!window.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    connection.flushCommands();
                    continue;
                }
                ServerCommand command = model.next(random, cycle);
                Sent s = new Sent(command);
                RedisFuture<?> future = command.send(redis);
                synchronized (this) {
                    sent.add(s);
                    futures.add(future);
                }
                future.whenComplete((reply, error) -> {
                    if (error == null && !command.expectsError()) {
                        if (Objects.equals(reply, command.expected())) {
                            s.acknowledged = true;
                            progress.acknowledged();
                        } else {
                            s.wrongReply = "replied " + reply + ", expected " + command.expected();
                        }
                    } else if (error == null) {
                        s.wrongReply = "replied " + reply + ", expected the error " + command.expected();
                    } else if (error instanceof RedisCommandExecutionException e) {
                        if (command.expectsError() && e.getMessage().equals(command.expected())) {
                            s.acknowledged = true;
                            progress.acknowledged();
                        } else {
                            s.wrongReply = "answered the error " + e.getMessage();
                        }
                    } else {
                        stop = true; // the connection is lost: what would follow could not be sent
                    }
                    window.release();
                });
                if (++run == runLength) {
                    connection.flushCommands();
                    run = 0;
                    runLength = 1 + random.nextInt(16);
                }
            }
            connection.flushCommands();
        } catch (Throwable t) {
            crashed = t;
        }
    }

    /** Asks the thread to stop sending. */
    void requestStop() {
        stop = true;
    }

    /** Stops sending and waits for the thread, at most {@code millis}; whether it ended. */
    boolean stop(long millis) throws InterruptedException {
        stop = true;
        thread.join(millis);
        return !thread.isAlive();
    }

    Throwable crashed() {
        return crashed;
    }

    /** Closes the connection and waits for every command to be answered or failed; whether all were. */
    boolean closeAndSettle(long millis) throws InterruptedException {
        connection.close();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        for (RedisFuture<?> f : snapshotFutures()) {
            long left = deadline - System.nanoTime();
            try {
                if (left <= 0 || !f.await(left, TimeUnit.NANOSECONDS)) {
                    return false;
                }
            } catch (CancellationException e) {
                // closing cancels the commands still buffered in the client: never sent, never acknowledged
            }
        }
        return true;
    }

    private synchronized List<RedisFuture<?>> snapshotFutures() {
        return new ArrayList<>(futures);
    }

    synchronized List<Sent> sent() {
        return new ArrayList<>(sent);
    }
}
