package io.varve.server.command;

import io.varve.core.WriteBatch;
import io.varve.server.resp.RedisError;
import io.varve.server.store.Databases;
import io.varve.server.store.KeyEncoding;
import io.varve.server.store.Keyspace;
import io.varve.base.concurrent.LockStripes;
import io.varve.server.store.Metadata;

/**
 * SELECT, SWAPDB and MOVE over the logical databases of {@link Databases}. The dispatcher binds each command
 * to its connection's physical database, so every other command works in the selected one unchanged.
 * Clients blocked on a key stay in the logical database they selected: SWAPDB moves them with it and serves
 * those whose database now holds their key, and MOVE serves those waiting in the target database, as Redis
 * does ({@link io.varve.server.store.BlockingKeys}).
 */
final class DatabaseCommands {

    private DatabaseCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("select", 2, "loading stale fast", DatabaseCommands::select);
        b.add("swapdb", 3, "write fast", (CoordinatedHandler) DatabaseCommands::swapdb);
        b.add("move", 3, "write fast touches_key_in_target_database", 1, 1, 1, DatabaseCommands::move);
    }

    /** The database index in argument {@code i}, or the error Redis gives for it. */
    private static int index(CommandCall c, int i, String notANumber) {
        long n;
        try {
            n = Args.parseLong(c.arg(i));
        } catch (RedisError e) {
            throw new RedisError(notANumber);
        }
        if (n < 0 || n >= c.keyspace().databases().count()) {
            throw new RedisError("ERR DB index is out of range");
        }
        return (int) n;
    }

    private static void select(CommandCall c) {
        c.connection().database(index(c, 1, "ERR value is not an integer or out of range"));
        c.reply().ok();
    }

    private static void swapdb(CommandCall c, Dispatcher d) {
        int a = index(c, 1, "ERR invalid first DB index");
        int b = index(c, 2, "ERR invalid second DB index");
        // Exclusive: no command is between choosing its physical database and using it while the map changes,
        // and no EXEC runs on the swapped contents before their watchers are marked.
        try (CommandGate.Held exclusive = d.gate().exclusive()) {
            if (a != b) {
                Databases databases = c.keyspace().databases();
                int physicalA = databases.physical(a);
                int physicalB = databases.physical(b);
                databases.swap(a, b);
                c.keyspace().blocking().swapDatabases(physicalA, physicalB);
                d.watches().touchDatabase(a);
                d.watches().touchDatabase(b);
            }
        }
        c.reply().ok();
    }

    private static void move(CommandCall c) {
        int target = index(c, 2, "ERR value is not an integer or out of range");
        if (target == c.connection().database()) {
            throw new RedisError("ERR source and destination objects are the same");
        }
        Keyspace ks = c.keyspace();
        byte[] key = c.arg(1);
        int destination = ks.databases().physical(target);
        try (LockStripes.Held held = ks.lock(key)) {
            Metadata meta = ks.lookup(key);
            if (meta == null) {
                c.reply().integer(0);
                return;
            }
            byte[] existing = ks.db().get(KeyEncoding.metadataKey(destination, key));
            if (existing != null && !Metadata.decodeHeader(existing).isExpired(ks.now())) {
                c.reply().integer(0);
                return;
            }
            // A collection's subkeys carry no database: moving its metadata moves it whole.
            WriteBatch batch = new WriteBatch();
            ks.deleteMetadata(batch, key);
            ScopedValue.where(KeyEncoding.DATABASE, destination).run(() -> ks.putMetadata(batch, key, meta));
            ks.commit(batch);
        }
        ks.blocking().signal(destination, key);
        c.reply().integer(1);
    }
}
