package io.varve.server.types;

import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.server.store.KeyEncoding;
import io.varve.server.store.Keyspace;
import io.varve.server.store.Metadata;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Counts and lists the live keys of the current database that a predicate on the user key accepts: DBSIZE of
 * a cluster node (the keys of its served slots) and CLUSTER COUNTKEYSINSLOT/GETKEYSINSLOT. The keyspace is
 * not laid out by slot, so each walks every metadata record at one snapshot; the list stops at its limit.
 */
public final class ServedKeys {

    private ServedKeys() {
    }

    public static long count(Keyspace keyspace, Predicate<byte[]> keys) {
        long[] counted = {0};
        walk(keyspace, keys, Long.MAX_VALUE, key -> counted[0]++);
        return counted[0];
    }

    public static List<byte[]> list(Keyspace keyspace, Predicate<byte[]> keys, long limit) {
        List<byte[]> found = new ArrayList<>();
        walk(keyspace, keys, limit, found::add);
        return found;
    }

    private static void walk(Keyspace keyspace, Predicate<byte[]> keys, long limit,
                             java.util.function.Consumer<byte[]> sink) {
        long now = keyspace.now();
        long taken = 0;
        try (Snapshot snapshot = keyspace.snapshot();
             DbIterator it = keyspace.metadataIterator(ReadOptions.at(snapshot))) {
            for (it.seekToFirst(); it.valid() && taken < limit; it.next()) {
                byte[] key = KeyEncoding.userKeyOfMetadata(it.key());
                if (keys.test(key) && !Metadata.decodeHeader(it.value()).isExpired(now)) {
                    sink.accept(key);
                    taken++;
                }
            }
        }
    }
}
