package io.varve.kafka.streams.store;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.internals.StoreQueryUtils;

import java.util.Map;
import java.util.Objects;

/**
 * The {@link StateStore} half shared by the window and session stores: both keep their records in one
 * {@link SegmentedStore}, which owns the database, its offsets and its lifecycle; the subclasses add only how
 * their keys are laid out and searched.
 */
abstract class SegmentedStateStore implements StateStore {

    private final String name;
    protected final SegmentedStore segments;
    private final Position position = Position.emptyPosition();
    private StateStoreContext context;

    SegmentedStateStore(String name, SegmentedStore segments) {
        this.name = Objects.requireNonNull(name, "name");
        this.segments = segments;
    }

    /** Records the current record's offset in the position interactive queries bound their reads by. */
    protected final void updatePosition() {
        StoreQueryUtils.updatePosition(position, context);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void init(StateStoreContext context, StateStore root) {
        this.context = context;
        segments.init(context, root);
    }

    @Override
    public void flush() {
        segments.commit(Map.of());
    }

    @Override
    public void commit(Map<TopicPartition, Long> changelogOffsets) {
        segments.commit(changelogOffsets);
    }

    @Override
    public boolean managesOffsets() {
        return true;
    }

    @Override
    public Long committedOffset(TopicPartition partition) {
        return segments.committedOffset(partition);
    }

    @Override
    public void close() {
        segments.close();
    }

    @Override
    public boolean persistent() {
        return true;
    }

    @Override
    public boolean isOpen() {
        return segments.isOpen();
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
