package io.varve.server.command;

import io.varve.server.store.Keyspace;
import io.varve.server.store.ScanCursors;
import io.varve.server.types.DataTypes;

import io.varve.server.resp.RedisError;

import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/** What commands may ask of the server they run in. Implemented by the server; tests may fake it. */
public interface ServerContext {

    /**
     * The keyspace bound to database 0; {@link Keyspace#in} binds it to another. Commands use
     * {@link CommandCall#keyspace}, bound to their connection's database.
     */
    Keyspace keyspace();

    /** The Redis types over {@link #keyspace()} ({@link DataTypes#in} for another database). */
    DataTypes types();

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

    /** Where commands may run: a replica of a Raft group redirects some of them (default: standalone). */
    default ReplicaRouting routing() {
        return ReplicaRouting.STANDALONE;
    }

    /** Starts an orderly shutdown in the background (SHUTDOWN). */
    void requestShutdown();

    /** The server's version as reported by HELLO and INFO. */
    String version();

    /**
     * CONFIG SET: applies every name/value pair or none; throws a RedisError naming the parameter refused.
     * Servers without run-time configuration refuse it.
     */
    default void configSet(Map<String, String> settings) {
        throw new RedisError("ERR CONFIG SET is not supported by this server");
    }

    /** CONFIG REWRITE: writes the running configuration to the file the server started with. */
    default void configRewrite() {
        throw new RedisError("ERR The server is running without a config file");
    }

    /** CONFIG RESETSTAT: zeroes the statistics INFO reports. */
    default void resetStats() {
    }

    /**
     * Closes the connections {@code which} selects and returns how many. {@code caller} is closed only after
     * its reply, if selected.
     */
    default int killClients(Predicate<Connection> which, Connection caller) {
        return 0;
    }
}
