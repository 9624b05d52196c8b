package io.varve.kafka.streams.store;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;

import java.util.Map;

/**
 * The {@link StateStore} half shared by the window and session stores: both keep their records in one
 * {@link SegmentedStore}, which owns the database, its offsets and its lifecycle; the subclasses add only how
 * their keys are laid out and searched.
 */
abstract class SegmentedStateStore extends VarveStateStore {

    protected final SegmentedStore segments;

    SegmentedStateStore(String name, SegmentedStore segments) {
        super(name);
        this.segments = segments;
    }

    @Override
    public void init(StateStoreContext context, StateStore root) {
        attach(context);
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
    public Long committedOffset(TopicPartition partition) {
        return segments.committedOffset(partition);
    }

    @Override
    public void close() {
        segments.close();
    }

    @Override
    public boolean isOpen() {
        return segments.isOpen();
    }
}
