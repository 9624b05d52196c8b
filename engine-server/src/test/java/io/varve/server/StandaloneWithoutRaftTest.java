package io.varve.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A standalone server needs neither jraft nor engine-replication: started from a class path without them,
 * it serves commands. If any class on its path referred to jraft eagerly, loading or running it would fail
 * with NoClassDefFoundError.
 */
class StandaloneWithoutRaftTest {

    @Test
    void servesWithRaftAbsentFromTheClassPath(@TempDir Path dir) throws Exception {
        String path = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<URL> urls = new ArrayList<>();
        for (String entry : path.split(File.pathSeparator)) {
            if (entry.contains("jraft") || entry.contains("sofa") || entry.contains("bolt")
                    || entry.contains("engine-replication")) {
                continue;
            }
            urls.add(Path.of(entry).toUri().toURL());
        }
        try (URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new),
                ClassLoader.getPlatformClassLoader())) {
            assertThrows(ClassNotFoundException.class,
                    () -> loader.loadClass("com.alipay.sofa.jraft.Node"), "jraft is off this class path");
            assertThrows(ClassNotFoundException.class,
                    () -> loader.loadClass("io.varve.replication.ReplicatedDb"));
            Class<?> configClass = loader.loadClass("io.varve.server.ServerConfig");
            Object config = configClass.getMethod("defaultConfig").invoke(null);
            Method with = configClass.getMethod("with", String.class, String.class);
            config = with.invoke(config, "port", "0");
            config = with.invoke(config, "dir", dir.toString());
            config = with.invoke(config, "io-threads", "1");
            Class<?> serverClass = loader.loadClass("io.varve.server.RedisServer");
            Object builder = serverClass.getMethod("builder", configClass).invoke(null, config);
            Object server = builder.getClass().getMethod("build").invoke(builder);
            serverClass.getMethod("start").invoke(server);
            try {
                int port = (Integer) serverClass.getMethod("port").invoke(server);
                assertEquals("+OK\r\n", roundTrip(port, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n", 5));
                assertEquals("$1\r\nv\r\n", roundTrip(port, "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", 7));
                String info = roundTrip(port, "*2\r\n$4\r\nINFO\r\n$11\r\nreplication\r\n", -1);
                assertFalse(info.contains("raft_"), info);
            } finally {
                serverClass.getMethod("close").invoke(server);
            }
        }
    }

    /** Sends one request and reads {@code length} bytes of reply (-1: one read). */
    private static String roundTrip(int port, String request, int length) throws Exception {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            if (length < 0) {
                byte[] b = new byte[4096];
                int n = in.read(b);
                return new String(b, 0, n, StandardCharsets.US_ASCII);
            }
            return new String(in.readNBytes(length), StandardCharsets.US_ASCII);
        }
    }
}
