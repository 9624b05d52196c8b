package io.varve.kafka.streams;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.query.KeyQuery;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.RangeQuery;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.KeyValueStoreTestDriver;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** IQv2 key and range queries reach a Varve store through Kafka's metered layers, as on RocksDB. */
class InteractiveQueryTest {

    private final KeyValueStoreTestDriver<String, String> driver =
            KeyValueStoreTestDriver.create(String.class, String.class);
    private KeyValueStore<String, String> store;

    @BeforeEach
    void open() {
        store = Stores.keyValueStoreBuilder(VarveStores.keyValueStore("queried"), Serdes.String(), Serdes.String())
                .withCachingDisabled()
                .build();
        store.init(driver.context(), store);
        store.put("a", "1");
        store.put("b", "2");
        store.put("c", "3");
    }

    @AfterEach
    void close() {
        store.close();
        driver.clear();
    }

    @Test
    void keyQueryAnswersTheValue() {
        QueryResult<String> result = store.query(KeyQuery.withKey("b"), PositionBound.unbounded(),
                new QueryConfig(false));
        assertTrue(result.isSuccess(), result::toString);
        assertEquals("2", result.getResult());
    }

    @Test
    void rangeQueryAnswersTheRangeInOrder() {
        QueryResult<KeyValueIterator<String, String>> result = store.query(RangeQuery.withRange("b", "c"),
                PositionBound.unbounded(), new QueryConfig(false));
        assertTrue(result.isSuccess(), result::toString);
        List<KeyValue<String, String>> entries = new ArrayList<>();
        try (KeyValueIterator<String, String> it = result.getResult()) {
            it.forEachRemaining(entries::add);
        }
        assertEquals(List.of(KeyValue.pair("b", "2"), KeyValue.pair("c", "3")), entries);
    }
}
