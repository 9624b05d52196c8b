package io.varve.server.command;

import io.varve.server.resp.Reply;
import io.varve.server.store.Keyspace;
import io.varve.server.types.DataTypes;

import java.nio.charset.StandardCharsets;

/** One invocation: the arguments (name first), the calling connection, the server, and where to reply. */
public record CommandCall(CommandSpec spec, byte[][] args, Connection connection, ServerContext server, Reply reply) {

    public int argCount() {
        return args.length;
    }

    public byte[] arg(int i) {
        return args[i];
    }

    public String argText(int i) {
        return new String(args[i], StandardCharsets.UTF_8);
    }

    /** Argument {@code i} compared case-insensitively with an ASCII keyword. */
    public boolean argIs(int i, String keyword) {
        return Args.isKeyword(args[i], keyword);
    }

    public long argLong(int i) {
        return Args.parseLong(args[i]);
    }

    /**
     * The keyspace of the database the connection selected: the physical database its logical number names
     * now. Stable for the whole command, which holds the command gate that SWAPDB takes exclusively.
     */
    public Keyspace keyspace() {
        return server.keyspace().inLogical(connection.database());
    }

    /** The Redis types over {@link #keyspace()}, through which commands read and write keys. */
    public DataTypes types() {
        return server.types().in(server.keyspace().databases().database(connection.database()));
    }
}
