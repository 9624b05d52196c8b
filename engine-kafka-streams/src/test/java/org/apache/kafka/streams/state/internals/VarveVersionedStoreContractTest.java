package org.apache.kafka.streams.state.internals;

import io.varve.kafka.streams.VarveStoreConfig;
import io.varve.kafka.streams.store.VarveVersionedStore;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.ResultOrder;
import org.apache.kafka.streams.state.VersionedRecord;
import org.apache.kafka.streams.state.VersionedRecordIterator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.util.Collection;
import java.util.Map;

/**
 * Kafka's own versioned store test, {@code RocksDBVersionedStoreTest}, run against Varve's versioned store. That
 * test is written for one class, not as a contract: it holds its store in a private field of type
 * {@code RocksDBVersionedStore}. So after its set-up, the store it opened is closed and replaced, in that field,
 * by {@link VarveBacked}: a subclass of Kafka's store whose every method goes to a Varve store initialised on
 * the same context (the RocksDB parts of the superclass are never opened). Its history retention and segment
 * interval are read from the test's own constants. In Kafka's package because the store's constructor and two
 * of its methods are package-private.
 */
class VarveVersionedStoreContractTest extends RocksDBVersionedStoreTest {

    @BeforeEach
    void replaceStoreWithVarve() throws ReflectiveOperationException {
        RocksDBVersionedStore rocks = (RocksDBVersionedStore) field("store").get(this);
        rocks.close();
        StateStoreContext context = (StateStoreContext) field("context").get(this);
        VarveBacked varve = new VarveBacked(constant("HISTORY_RETENTION"), constant("SEGMENT_INTERVAL"));
        varve.init(context, varve);
        field("store").set(this, varve);
    }

    private static Field field(String name) throws NoSuchFieldException {
        Field field = RocksDBVersionedStoreTest.class.getDeclaredField(name);
        field.setAccessible(true);
        return field;
    }

    private static long constant(String name) throws ReflectiveOperationException {
        return field(name).getLong(null);
    }

    /**
     * Excluded: the case builds a {@code RocksDBVersionedStore} of its own with zero retention, so it would test
     * RocksDB. Zero retention is covered by {@code VarveVersionedStoreProperties} and
     * {@code VarveVersionedStoreTest.zeroHistoryRetentionKeepsOnlyTheLatestValue}.
     */
    @Test
    @Disabled("builds a RocksDB store of its own; see the comment on this method")
    @Override
    public void shouldAllowZeroHistoryRetention() {
    }

    /**
     * Excluded: the case builds a {@code RocksDBVersionedStore} of its own to read a position checkpoint file
     * that older RocksDB stores wrote; Varve's stores never wrote one, and keep their position in memory.
     */
    @Test
    @Disabled("RocksDB's position file migration; see the comment on this method")
    @Override
    public void shouldMigrateExistingPositionFromFile() {
    }

    /** Kafka's store class with every method going to a Varve versioned store. */
    static final class VarveBacked extends RocksDBVersionedStore {

        private final VarveVersionedStore varve;

        VarveBacked(long historyRetention, long segmentInterval) {
            super("varve-versioned", "varve", historyRetention, segmentInterval);
            this.varve = new VarveVersionedStore("varve-versioned", historyRetention, segmentInterval,
                    VarveStoreConfig::options);
        }

        @Override
        public void init(StateStoreContext context, StateStore root) {
            varve.init(context, root);
        }

        @Override
        public long put(Bytes key, byte[] value, long timestamp) {
            return varve.put(key, value, timestamp);
        }

        @Override
        public VersionedRecord<byte[]> delete(Bytes key, long timestamp) {
            return varve.delete(key, timestamp);
        }

        @Override
        public VersionedRecord<byte[]> get(Bytes key) {
            return varve.get(key);
        }

        @Override
        public VersionedRecord<byte[]> get(Bytes key, long asOfTimestamp) {
            return varve.get(key, asOfTimestamp);
        }

        @Override
        public VersionedRecordIterator<byte[]> get(Bytes key, long fromTimestamp, long toTimestamp,
                                                   ResultOrder order) {
            return varve.get(key, fromTimestamp, toTimestamp, order);
        }

        @Override
        void restoreBatch(Collection<ConsumerRecord<byte[], byte[]>> records) {
            varve.restoreBatch(records);
        }

        @Override
        public String name() {
            return varve.name();
        }

        @Override
        public void commit(Map<TopicPartition, Long> changelogOffsets) {
            varve.commit(changelogOffsets);
        }

        @Override
        public boolean managesOffsets() {
            return varve.managesOffsets();
        }

        @Override
        public Long committedOffset(TopicPartition partition) {
            return varve.committedOffset(partition);
        }

        @Override
        public void close() {
            varve.close();
        }

        @Override
        public <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
            return varve.query(query, positionBound, config);
        }

        @Override
        public boolean persistent() {
            return varve.persistent();
        }

        @Override
        public boolean isOpen() {
            return varve.isOpen();
        }

        @Override
        public Position getPosition() {
            return varve.getPosition();
        }
    }
}
