package io.varve.kafka.streams.store;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * The {@link StateStore} half shared by the key-value and versioned stores: each keeps its records in one
 * {@link StoreDatabase} in {@code <task state dir>/varve/<store name>} (so Kafka's task directory management —
 * cleanup, migration, wipe on corruption — covers it), which also holds the changelog offsets the store commits
 * itself ({@link #managesOffsets()}). The subclasses add their records' layout and how changelog records are
 * restored.
 *
 * <p>The database is published by {@link #init} once it is loaded; reads from interactive-query threads see it
 * through a volatile field, and {@link #database()} refuses a store not initialized or closed.
 */
abstract class DatabaseStateStore extends VarveStateStore {

    private final StoreOptions options;
    private volatile StoreDatabase database;

    DatabaseStateStore(String name, StoreOptions options) {
        super(name);
        this.options = Objects.requireNonNull(options, "options");
    }

    /**
     * Opens the database, lets the subclass load what it keeps in memory ({@link #loaded}), publishes the
     * database and registers the store's restore callback with Kafka. A failed load closes the database.
     */
    @Override
    public void init(StateStoreContext context, StateStore root) {
        Path dir = context.stateDir().toPath().resolve(STATE_SUBDIRECTORY).resolve(name());
        StoreDatabase db = StoreDatabase.open(context, name(), dir, options.forApplication(context.appConfigs()));
        try {
            loaded(db, context);
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
        this.database = db;
        attach(context);
        context.register(root, restoreCallback());
    }

    /** Called by {@link #init} with the opened database, before it is published; nothing to do by default. */
    protected void loaded(StoreDatabase db, StateStoreContext context) {
    }

    /** How Kafka's restoration applies changelog records to this store. */
    protected abstract StateRestoreCallback restoreCallback();

    /** The open database; throws Kafka's {@link InvalidStateStoreException} before init or after close. */
    protected final StoreDatabase database() {
        StoreDatabase db = database;
        if (db == null) {
            throw new InvalidStateStoreException("Store " + name() + " is not initialized");
        }
        db.checkOpen();
        return db;
    }

    @Override
    public void flush() {
        database().commit(Map.of());
    }

    @Override
    public void commit(Map<TopicPartition, Long> changelogOffsets) {
        database().commit(changelogOffsets);
    }

    @Override
    public Long committedOffset(TopicPartition partition) {
        return database().committedOffset(partition);
    }

    @Override
    public void close() {
        StoreDatabase db = database;
        if (db != null) {
            db.close();
        }
    }

    @Override
    public boolean isOpen() {
        StoreDatabase db = database;
        return db != null && db.isOpen();
    }
}
