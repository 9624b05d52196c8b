package io.varve.server;

import io.varve.server.command.Connection;
import io.varve.server.command.ReplicaRouting;
import io.varve.server.command.ServerContext;
import io.varve.server.store.Keyspace;
import io.varve.server.store.ScanCursors;
import io.varve.server.types.DataTypes;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/** What commands see of the running {@link RedisServer}: a narrow view, read at each call. */
final class CommandContext implements ServerContext {

    private final RedisServer server;

    CommandContext(RedisServer server) {
        this.server = server;
    }

    @Override
    public Keyspace keyspace() {
        return server.keyspace();
    }

    @Override
    public DataTypes types() {
        return server.types();
    }

    @Override
    public ScanCursors scanCursors() {
        return server.scanCursors();
    }

    @Override
    public String requirePass() {
        return server.config().requirePass();
    }

    @Override
    public long maxBulkLength() {
        return server.config().protoMaxBulkLength();
    }

    @Override
    public Map<String, String> configuration() {
        return server.config().asMap();
    }

    @Override
    public List<Connection> clients() {
        return server.sessions().stream().map(ClientSession::connection)
                .sorted(Comparator.comparingLong(Connection::id)).toList();
    }

    @Override
    public ReplicaRouting routing() {
        return server.routing();
    }

    @Override
    public String info(List<String> sections) {
        return server.info(sections);
    }

    @Override
    public void requestShutdown() {
        server.requestShutdown();
    }

    @Override
    public String version() {
        return RedisServer.VERSION;
    }

    @Override
    public void configSet(Map<String, String> settings) {
        server.configSet(settings);
    }

    @Override
    public void resetStats() {
        server.resetStats();
    }

    @Override
    public void configRewrite() {
        server.configRewrite();
    }

    /** Closes the selected connections; the caller's own only after its reply. */
    @Override
    public int killClients(Predicate<Connection> which, Connection caller) {
        int killed = 0;
        for (ClientSession s : server.sessions()) {
            Connection c = s.connection();
            if (!which.test(c)) {
                continue;
            }
            killed++;
            if (c == caller) {
                c.requestCloseAfterReply();
            } else {
                s.channel().close();
            }
        }
        return killed;
    }
}
