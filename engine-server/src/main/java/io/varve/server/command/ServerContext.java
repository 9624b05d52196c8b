package io.varve.server.command;

import io.varve.server.store.HashStore;
import io.varve.server.store.Keyspace;
import io.varve.server.store.ScanCursors;

import java.util.List;
import java.util.Map;

/** What commands may ask of the server they run in. Implemented by the server; tests may fake it. */
public interface ServerContext {

    Keyspace keyspace();

    HashStore hashes();

    ScanCursors scanCursors();

    /** The configured password, or null when none is set. */
    String requirePass();

    /** Largest string value a command may create (proto-max-bulk-len). */
    long maxBulkLength();

    /** Every configuration parameter and its current value, for CONFIG GET. */
    Map<String, String> configuration();

    /** The connected clients, for CLIENT LIST. */
    List<Connection> clients();

    /** The INFO text for {@code sections} ("default", "all", "everything" or names), in Redis's format. */
    String info(List<String> sections);

    /** Starts an orderly shutdown in the background (SHUTDOWN). */
    void requestShutdown();

    /** The server's version as reported by HELLO and INFO. */
    String version();
}
