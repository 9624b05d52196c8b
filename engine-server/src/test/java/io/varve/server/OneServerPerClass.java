package io.varve.server;

import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/** Starts one server on a fresh directory for a whole test class, and stops it after the class. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class OneServerPerClass {

    TestServer server;

    @BeforeAll
    void startServer(@TempDir Path dir) throws Exception {
        server = TestServer.start(dir);
    }

    @AfterAll
    void stopServer() {
        server.close();
    }

    /** A client connected with {@code protocol} to an emptied database. */
    Lettuce connect(ProtocolVersion protocol) {
        Lettuce l = Lettuce.connect(server.port(), protocol);
        l.sync().flushdb();
        return l;
    }
}
