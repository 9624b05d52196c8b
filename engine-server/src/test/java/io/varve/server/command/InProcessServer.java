package io.varve.server.command;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.base.fs.MemFileSystem;
import io.varve.server.resp.Reply;
import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;
import io.varve.server.store.CommitTarget;
import io.varve.server.store.Keyspace;
import io.varve.server.store.KeyspaceCompactionFilter;
import io.varve.server.store.ScanCursors;
import io.varve.server.types.DataTypes;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The command layer without the network: a keyspace on an in-memory file system, opened with the server's
 * compaction filter, a hand-moved clock, and commands run through the real {@link Dispatcher}. Replies are
 * returned as their RESP text, which is enough to compare states exactly.
 */
final class InProcessServer implements AutoCloseable {

    final AtomicLong clock = new AtomicLong(1_700_000_000_000L);
    final MemFileSystem files = new MemFileSystem();
    final KeyspaceCompactionFilter filter = new KeyspaceCompactionFilter(clock::get);
    Db db;
    Keyspace keyspace;
    Dispatcher dispatcher;
    final Connection connection = new Connection(null, null, true);
    /** What CONFIG GET reports; tests put the settings commands read here. */
    final Map<String, String> configuration = new java.util.concurrent.ConcurrentHashMap<>();

    private final int databases;
    /** Whether the keyspace is laid out as a cluster node's (every key carrying its slot). */
    private final boolean slotted;

    InProcessServer() throws IOException {
        this(16);
    }

    /** With {@code databases} logical databases (SELECT's range). */
    InProcessServer(int databases) throws IOException {
        this(databases, false);
    }

    private InProcessServer(int databases, boolean slotted) throws IOException {
        this.databases = databases;
        this.slotted = slotted;
        open();
    }

    /**
     * A server whose keyspace uses a cluster node's slotted layout (one database), committing locally:
     * what the model tests run against to check both layouts.
     */
    static InProcessServer of(boolean slotted) throws IOException {
        return slotted ? new InProcessServer(1, true) : new InProcessServer();
    }

    private void open() throws IOException {
        db = Db.open(Path.of("/db"), Options.defaults().withFileSystem(files)
                .withWriteBufferSize(64 << 10).withCompactionFilter(filter));
        filter.attach(db);
        CommitTarget local = CommitTarget.local(db);
        CommitTarget target = !slotted ? local : new CommitTarget() {
            @Override
            public void write(WriteBatch batch, WriteOptions options) {
                local.write(batch, options);
            }

            @Override
            public boolean local() {
                return true;
            }

            @Override
            public boolean slotsInKeys() {
                return true;
            }
        };
        keyspace = new Keyspace(db, target, false, clock::get, databases);
        filter.physicalDatabases(keyspace.databases().physicalCount());
        dispatcher = new Dispatcher(CommandTable.standard(), new Context(keyspace, configuration), Dispatcher.Observer.NONE);
    }

    /** Closes the database and opens it again from the same in-memory files, as a server restart does. */
    void restart() throws IOException {
        db.close();
        open();
    }

    /** Runs one command and returns its reply as RESP2 text. */
    String call(String... args) {
        return callAs(connection, args);
    }

    /** Runs one command as another connection of the same server. */
    String callAs(Connection client, String... args) {
        ByteBuf out = Unpooled.buffer();
        dispatcher.execute(client, bytes(args), new Reply(out, 2));
        return text(out);
    }

    static byte[][] bytes(String... args) {
        byte[][] a = new byte[args.length][];
        for (int i = 0; i < args.length; i++) {
            a[i] = args[i].getBytes(StandardCharsets.UTF_8);
        }
        return a;
    }

    static String text(ByteBuf out) {
        try {
            return out.toString(StandardCharsets.UTF_8);
        } finally {
            out.release();
        }
    }

    @Override
    public void close() {
        db.close();
    }

    private static final class Context implements ServerContext {
        private final Keyspace keyspace;
        private final DataTypes types;
        private final ScanCursors cursors = new ScanCursors();
        private final Map<String, String> configuration;

        Context(Keyspace keyspace, Map<String, String> configuration) {
            this.keyspace = keyspace;
            this.configuration = configuration;
            this.types = new DataTypes(keyspace, () -> 512L << 20);
        }

        @Override
        public Keyspace keyspace() {
            return keyspace;
        }

        @Override
        public DataTypes types() {
            return types;
        }

        @Override
        public ScanCursors scanCursors() {
            return cursors;
        }

        @Override
        public String requirePass() {
            return null;
        }

        @Override
        public long maxBulkLength() {
            return 512L << 20;
        }

        @Override
        public Map<String, String> configuration() {
            return configuration;
        }

        @Override
        public List<Connection> clients() {
            return List.of();
        }

        @Override
        public String info(List<String> sections) {
            throw new UnsupportedOperationException("INFO needs the whole server");
        }

        @Override
        public void requestShutdown() {
            throw new UnsupportedOperationException("SHUTDOWN needs the whole server");
        }

        @Override
        public String version() {
            return "test";
        }
    }
}
