package io.varve.jmh.server;

import io.varve.server.RedisServer;
import io.varve.server.ServerConfig;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Heap allocated per command by the server, for the hot commands, pipelined {@value #PIPELINE} deep over one
 * loopback connection to a server in this JVM. Run with {@code -prof gc}: its {@code gc.alloc.rate.norm}
 * counts every thread of the JVM, so divided by the {@value #PIPELINE} commands of an invocation it is what
 * the server (decoder, dispatch, engine, reply) allocates per command. The client side allocates nothing in
 * steady state: the pipeline is encoded once into a direct buffer and replies are read into another and
 * only scanned for the terminating PONG that follows each pipeline.
 *
 * <p>Each pipeline leaves the data set as it found it (LPUSH then LPOP, SET and HSET of the same value,
 * ZADD of the same score), so every invocation does the same work; INCR only grows a counter.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class PipelinedCommandBenchmark {

    static final int PIPELINE = 64;
    private static final byte[] PONG = "+PONG\r\n".getBytes(StandardCharsets.US_ASCII);

    @Param({"GET", "SET", "INCR", "HGET", "HSET", "LPUSH", "LPOP", "ZADD", "ZSCORE"})
    public String command;

    private Path dir;
    private RedisServer server;
    private SocketChannel client;
    private ByteBuffer request;
    private ByteBuffer replies;

    @Setup(Level.Trial)
    public void start() throws IOException {
        dir = Files.createTempDirectory("varve-jmh-server");
        server = RedisServer.builder(ServerConfig.fromArgs(new String[] {"--port", "0", "--dir", dir.toString()}))
                .build().start();
        client = SocketChannel.open(new InetSocketAddress("127.0.0.1", server.port()));
        client.socket().setTcpNoDelay(true);
        replies = ByteBuffer.allocateDirect(1 << 20);
        run(encode(PIPELINE, "SET", "string:key", "value-of-sixteen"));
        run(encode(PIPELINE, "HSET", "hash:key", "field", "value-of-sixteen"));
        run(encode(PIPELINE, "ZADD", "zset:key", "1.5", "member"));
        run(encode(PIPELINE / 2, "LPUSH", "list:key", "element"));
        request = switch (command) {
            case "GET" -> encode(PIPELINE, "GET", "string:key");
            case "SET" -> encode(PIPELINE, "SET", "string:key", "value-of-sixteen");
            case "INCR" -> encode(PIPELINE, "INCR", "counter:key");
            case "HGET" -> encode(PIPELINE, "HGET", "hash:key", "field");
            case "HSET" -> encode(PIPELINE, "HSET", "hash:key", "field", "value-of-sixteen");
            case "LPUSH" -> alternate("LPUSH", "LPOP");
            case "LPOP" -> alternate("LPOP", "LPUSH");
            case "ZADD" -> encode(PIPELINE, "ZADD", "zset:key", "1.5", "member");
            case "ZSCORE" -> encode(PIPELINE, "ZSCORE", "zset:key", "member");
            default -> throw new IllegalArgumentException(command);
        };
    }

    /** Half {@code first}, half {@code second}, interleaved, so the list keeps its length. */
    private static ByteBuffer alternate(String first, String second) {
        StringBuilder wire = new StringBuilder();
        for (int i = 0; i < PIPELINE; i += 2) {
            wire.append(command(first.equals("LPUSH") ? new String[] {"LPUSH", "list:key", "element"}
                    : new String[] {"LPOP", "list:key"}));
            wire.append(command(second.equals("LPUSH") ? new String[] {"LPUSH", "list:key", "element"}
                    : new String[] {"LPOP", "list:key"}));
        }
        return direct(wire.append(command("PING")));
    }

    private static ByteBuffer encode(int count, String... args) {
        return direct(new StringBuilder(command(args).repeat(count)).append(command("PING")));
    }

    private static String command(String... args) {
        StringBuilder wire = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            wire.append('$').append(a.length()).append("\r\n").append(a).append("\r\n");
        }
        return wire.toString();
    }

    private static ByteBuffer direct(CharSequence wire) {
        byte[] bytes = wire.toString().getBytes(StandardCharsets.US_ASCII);
        return ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
    }

    private void run(ByteBuffer pipeline) {
        try {
            pipeline.rewind();
            while (pipeline.hasRemaining()) {
                client.write(pipeline);
            }
            replies.clear();
            while (!endsWithPong()) {
                if (client.read(replies) < 0) {
                    throw new IOException("server closed the connection");
                }
                if (!replies.hasRemaining()) {
                    throw new IOException("replies overflow the buffer");
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private boolean endsWithPong() {
        int end = replies.position();
        if (end < PONG.length) {
            return false;
        }
        for (int i = 0; i < PONG.length; i++) {
            if (replies.get(end - PONG.length + i) != PONG[i]) {
                return false;
            }
        }
        return true;
    }

    @Benchmark
    @OperationsPerInvocation(PIPELINE)
    public void pipeline() {
        run(request);
    }

    @TearDown(Level.Trial)
    public void stop() throws IOException {
        client.close();
        server.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
