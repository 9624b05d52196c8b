package io.varve.kafka.streams.store;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.internals.StoreQueryUtils;

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
abstract class DatabaseStateStore implements StateStore {

    /** The folder under a task's state directory that holds the databases of Varve stores. */
    public static final String STATE_SUBDIRECTORY = "varve";

    private final String name;
    private final StoreOptions options;
    private final Position position = Position.emptyPosition();
    private StateStoreContext context;
    private volatile StoreDatabase database;

    DatabaseStateStore(String name, StoreOptions options) {
        this.name = Objects.requireNonNull(name, "name");
        this.options = Objects.requireNonNull(options, "options");
    }

    @Override
    public String name() {
        return name;
    }

    /**
     * Opens the database, lets the subclass load what it keeps in memory ({@link #loaded}), publishes the
     * database and registers the store's restore callback with Kafka. A failed load closes the database.
     */
    @Override
    public void init(StateStoreContext context, StateStore root) {
        Path dir = context.stateDir().toPath().resolve(STATE_SUBDIRECTORY).resolve(name);
        StoreDatabase db = StoreDatabase.open(context, name, dir, options.forApplication(context.appConfigs()));
        try {
            loaded(db, context);
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
        this.database = db;
        this.context = context;
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
            throw new InvalidStateStoreException("Store " + name + " is not initialized");
        }
        db.checkOpen();
        return db;
    }

    /** The context {@link #init} was given (null before). */
    protected final StateStoreContext context() {
        return context;
    }

    /** Records the current record's offset in the position interactive queries bound their reads by. */
    protected final void updatePosition() {
        StoreQueryUtils.updatePosition(position, context);
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
    public boolean managesOffsets() {
        return true;
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
    public boolean persistent() {
        return true;
    }

    @Override
    public boolean isOpen() {
        StoreDatabase db = database;
        return db != null && db.isOpen();
    }

    @Override
    public <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
        return StoreQueryUtils.handleBasicQueries(query, positionBound, config, this, position, context);
    }

    @Override
    public Position getPosition() {
        return position;
    }
}
