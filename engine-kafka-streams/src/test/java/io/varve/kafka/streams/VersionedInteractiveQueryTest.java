package io.varve.kafka.streams;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.query.MultiVersionedKeyQuery;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.VersionedKeyQuery;
import org.apache.kafka.streams.state.KeyValueStoreTestDriver;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.VersionedKeyValueStore;
import org.apache.kafka.streams.state.VersionedRecord;
import org.apache.kafka.streams.state.VersionedRecordIterator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * IQv2's versioned queries reach a Varve versioned store through Kafka's builder, metered layer and bytes
 * adapter: the value as of a time, and every version in a time range in either order.
 */
class VersionedInteractiveQueryTest {

    private final KeyValueStoreTestDriver<String, String> driver =
            KeyValueStoreTestDriver.create(String.class, String.class);
    private VersionedKeyValueStore<String, String> store;

    @BeforeEach
    void open() {
        store = Stores.versionedKeyValueStoreBuilder(
                        VarveStores.versionedKeyValueStore("queried-versions", Duration.ofHours(1)),
                        Serdes.String(), Serdes.String())
                .build();
        store.init(driver.context(), store);
        store.put("a", "first", 1_000);
        store.put("a", "second", 2_000);
        store.put("a", "third", 3_000);
        store.put("b", "other", 2_500);
    }

    @AfterEach
    void close() {
        store.close();
        driver.clear();
    }

    @Test
    void versionedKeyQueryAnswersTheValueThatHeldAtTheTime() {
        QueryResult<VersionedRecord<String>> result = store.query(
                VersionedKeyQuery.<String, String>withKey("a").asOf(Instant.ofEpochMilli(2_500)),
                PositionBound.unbounded(), new QueryConfig(false));
        assertTrue(result.isSuccess(), result::toString);
        assertEquals(new VersionedRecord<>("second", 2_000, 3_000).toString(), result.getResult().toString());
    }

    @Test
    void multiVersionedKeyQueryAnswersEveryVersionInTheRangeInTheOrderAsked() {
        MultiVersionedKeyQuery<String, String> query = MultiVersionedKeyQuery.<String, String>withKey("a")
                .fromTime(Instant.ofEpochMilli(1_500)).toTime(Instant.ofEpochMilli(3_000));
        assertEquals("[<third,3000,Optional.empty>, <second,2000,Optional[3000]>, <first,1000,Optional[2000]>]",
                versions(query));
        assertEquals("[<first,1000,Optional[2000]>, <second,2000,Optional[3000]>, <third,3000,Optional.empty>]",
                versions(query.withAscendingTimestamps()));
    }

    /** The versions the query answers, as {@code VersionedRecord} prints them (it has no value equality). */
    private String versions(MultiVersionedKeyQuery<String, String> query) {
        QueryResult<VersionedRecordIterator<String>> result = store.query(query, PositionBound.unbounded(),
                new QueryConfig(false));
        assertTrue(result.isSuccess(), result::toString);
        List<VersionedRecord<String>> found = new ArrayList<>();
        try (VersionedRecordIterator<String> it = result.getResult()) {
            it.forEachRemaining(found::add);
        }
        return found.toString();
    }
}
