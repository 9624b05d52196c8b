package org.apache.kafka.streams.state.internals;

import io.varve.kafka.streams.VarveStores;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Kafka's own session store contract against Varve's session store, holding it to the expectations the contract
 * has of Kafka's RocksDB session store (segment-granular expiry). In Kafka's package because the contract's
 * factory methods are package-private. Each store built gets a name of its own, for the reason given in
 * {@link VarveWindowStoreContractTest}.
 */
class VarveSessionStoreContractTest extends AbstractSessionBytesStoreTest {

    private static final AtomicInteger STORES = new AtomicInteger();

    @Override
    <K, V> SessionStore<K, V> buildSessionStore(long retentionPeriod, Serde<K> keySerde, Serde<V> valueSerde) {
        return Stores.sessionStoreBuilder(
                        VarveStores.sessionStore("varve-session-store-" + STORES.incrementAndGet(), Duration.ofMillis(retentionPeriod)),
                        keySerde, valueSerde)
                .build();
    }

    /** The store type whose expectations the running case holds Varve's store to. */
    private StoreType expectationsOf = StoreType.RocksDBSessionStore;

    @Override
    StoreType storeType() {
        return expectationsOf;
    }

    /**
     * Held to what the contract expects of Kafka's time-ordered session store: Varve's session store finds the
     * sessions of every key by end time (emitting on window close needs it), which Kafka's key-ordered RocksDB
     * session store refuses.
     */
    @Test
    @Override
    public void shouldFindSessionsForTimeRange() {
        expectationsOf = StoreType.RocksDBTimeOrderedSessionStoreWithoutIndex;
        super.shouldFindSessionsForTimeRange();
    }

    /**
     * Excluded: after {@code close()} it expects reads to answer nothing and a restoration to be accepted and
     * readable, which Kafka's RocksDB session store does only because it reopens segment databases lazily. A
     * closed Varve store refuses every use, like Kafka's key-value stores. Restoration is covered by
     * {@code VarveSessionStoreProperties} and by the key-value contract's {@code testRestore}.
     */
    @Test
    @Disabled("a closed store refuses use; see the comment on this method")
    @Override
    public void shouldRestore() {
    }
}
