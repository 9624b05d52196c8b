package io.varve.server;

import java.nio.file.Path;

/**
 * The program {@code bin/varve} runs: the Redis-protocol server (see {@link ServerConfig#usage()}), or with
 * {@code --demo} the embedded-engine walkthrough. SIGTERM and SIGINT stop the server in order through a
 * shutdown hook; SHUTDOWN from a client does the same and the program exits.
 */
public final class VarveMain {

    private VarveMain() {
    }

    public static void main(String[] args) throws Exception {
        // Netty must use its pure-Java paths, not the JDK-internal Unsafe class (JDK 25 warns on its memory access).
        if (System.getProperty("io.netty.noUnsafe") == null) {
            System.setProperty("io.netty.noUnsafe", "true");
        }
        // With the jar's Add-Opens of sun.nio.ch, this lets Netty swap the selector's key set for an array it
        // walks without iterator garbage: fewer cycles per ready socket, which counts with thousands of clients.
        if (System.getProperty("io.netty.tryReflectionSetAccessible") == null) {
            System.setProperty("io.netty.tryReflectionSetAccessible", "true");
        }
        // Replicated mode: jraft's RPC layer (bolt) must use NIO, not Netty's native epoll (not shipped).
        if (System.getProperty("bolt.netty.epoll.switch") == null) {
            System.setProperty("bolt.netty.epoll.switch", "false");
        }
        // Keep logging alive until the server's own shutdown hook has logged its last line.
        if (System.getProperty("java.util.logging.manager") == null) {
            System.setProperty("java.util.logging.manager", ShutdownSafeLogManager.class.getName());
        }
        for (String a : args) {
            if (a.equals("--help") || a.equals("-h")) {
                System.out.print(ServerConfig.usage());
                return;
            }
        }
        if (args.length > 0 && args[0].equals("--demo")) {
            Path dir = Path.of("data");
            if (args.length == 3 && args[1].equals("--dir")) {
                dir = Path.of(args[2]);
            } else if (args.length != 1) {
                System.err.println("usage: bin/varve --demo [--dir DIR]");
                System.exit(2);
            }
            EmbeddedDemo.run(dir);
            return;
        }
        ServerConfig config;
        try {
            config = ServerConfig.fromArgs(args);
        } catch (IllegalArgumentException e) {
            System.err.println("varve: " + e.getMessage());
            System.exit(2);
            return;
        }
        RedisServer server = RedisServer.builder(config).build();
        try {
            server.start();
        } catch (Exception e) {
            System.err.println("varve: could not start: " + e.getMessage());
            System.exit(1);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "varve-shutdown-hook"));
        server.awaitTermination();
    }
}
