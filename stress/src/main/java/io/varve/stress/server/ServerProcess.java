package io.varve.stress.server;

import io.varve.server.VarveMain;
import io.varve.stress.ChildJvm;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The Varve server ({@link VarveMain}, as {@code bin/varve} runs it) in a child JVM with {@code appendfsync
 * always} and small memtables, on a port picked free for each start, so that no client of an earlier server
 * can reach a later one.
 */
final class ServerProcess implements AutoCloseable {
    private static final int PORT_ATTEMPTS = 5;

    private final ChildJvm child;
    private final int port;

    private ServerProcess(ChildJvm child, int port) {
        this.child = child;
        this.port = port;
    }

    /**
     * Starts the server on {@code dir} and waits until it answers PING, at most {@code limit}. The port is
     * probed free and released before the child binds it, so something else (an outgoing connection's local
     * end) can take it meanwhile; a child that says it cannot listen is started again on another port.
     */
    static ServerProcess start(Path dir, Path stderr, Duration limit) throws Exception {
        for (int attempt = 1; ; attempt++) {
            long logged = Files.exists(stderr) ? Files.size(stderr) : 0;
            try {
                return startOn(freePort(), dir, stderr, limit);
            } catch (IOException e) {
                if (attempt == PORT_ATTEMPTS || !said(stderr, logged, "cannot listen on")) {
                    throw e;
                }
            }
        }
    }

    private static ServerProcess startOn(int port, Path dir, Path stderr, Duration limit) throws Exception {
        List<String> args = new ArrayList<>(List.of("--port", Integer.toString(port), "--dir", dir.toString(),
                "--appendfsync", "always", "--write-buffer-size", "65536", "--io-threads", "2"));
        ChildJvm child = ChildJvm.start(VarveMain.class, args, stderr, line -> { });
        ServerProcess server = new ServerProcess(child, port);
        long deadline = System.nanoTime() + limit.toNanos();
        while (!server.answersPing()) {
            if (!child.isAlive()) {
                throw new IOException("the server exited while starting (code " + child.awaitExit(10) + ")");
            }
            if (System.nanoTime() > deadline) {
                child.kill();
                throw new IOException("the server did not answer PING within " + limit.toSeconds() + " s");
            }
            // Polling: the server's readiness is visible only as an answering port.
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
        return server;
    }

    private static int freePort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0)) {
            return probe.getLocalPort();
        }
    }

    /** Whether the child wrote {@code text} to {@code stderr} after its first {@code from} bytes. */
    private static boolean said(Path stderr, long from, String text) throws IOException {
        byte[] all = Files.readAllBytes(stderr);
        int start = (int) Math.min(from, all.length);
        return new String(all, start, all.length - start, StandardCharsets.UTF_8).contains(text);
    }

    int port() {
        return port;
    }

    private boolean answersPing() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] reply = in.readNBytes(7);
            return new String(reply, StandardCharsets.US_ASCII).equals("+PONG\r\n");
        } catch (IOException e) {
            return false;
        }
    }

    /** Waits at most {@code limit}; whether the server exited in that time. */
    boolean exitedWithin(Duration limit) throws InterruptedException {
        return child.exitedWithin(limit);
    }

    /** SIGKILL. */
    void kill() throws InterruptedException {
        child.kill();
    }

    @Override
    public void close() throws InterruptedException {
        child.close();
    }
}
