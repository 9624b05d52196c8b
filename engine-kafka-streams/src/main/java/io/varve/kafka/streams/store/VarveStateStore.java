package io.varve.kafka.streams.store;

import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.internals.StoreQueryUtils;

import java.util.Objects;

/**
 * What every Varve state store shares: its name, the position interactive queries bound their reads by, and
 * Kafka's basic queries answered against it. Every Varve store is persistent and keeps the changelog offsets
 * it commits itself. {@link DatabaseStateStore} (one database per store) and {@link SegmentedStateStore} (time
 * segments) add where the records live.
 */
abstract class VarveStateStore implements StateStore {

    /** The folder under a task's state directory that holds the databases of Varve stores. */
    public static final String STATE_SUBDIRECTORY = "varve";

    private final String name;
    private final Position position = Position.emptyPosition();
    private StateStoreContext context;

    VarveStateStore(String name) {
        this.name = Objects.requireNonNull(name, "name");
    }

    @Override
    public String name() {
        return name;
    }

    /** Called by the subclass's {@link #init} once the store can serve: queries and positions use it from then. */
    protected final void attach(StateStoreContext context) {
        this.context = context;
    }

    /** The context the store was initialized with (null before). */
    protected final StateStoreContext context() {
        return context;
    }

    /** Records the current record's offset in the position interactive queries bound their reads by. */
    protected final void updatePosition() {
        StoreQueryUtils.updatePosition(position, context);
    }

    @Override
    public boolean managesOffsets() {
        return true;
    }

    @Override
    public boolean persistent() {
        return true;
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
