package io.varve.server.types;

import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.server.store.KeyEncoding;
import io.varve.server.store.Keyspace;
import io.varve.server.store.Metadata;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.function.Consumer;

/**
 * Counts and lists the live keys of the current database in a set of hash slots: DBSIZE of a cluster node
 * (the keys of its served slots) and CLUSTER COUNTKEYSINSLOT/GETKEYSINSLOT. Each walks the slots' metadata
 * records at one snapshot ({@link Keyspace#metadataIterator(ReadOptions, BitSet, byte[])}: in a cluster
 * node's slotted layout only those slots' key ranges); the list stops at its limit.
 */
public final class ServedKeys {

    private static final byte[] ANY = new byte[0];

    private ServedKeys() {
    }

    public static long count(Keyspace keyspace, BitSet slots) {
        long[] counted = {0};
        walk(keyspace, slots, Long.MAX_VALUE, key -> counted[0]++);
        return counted[0];
    }

    public static List<byte[]> list(Keyspace keyspace, BitSet slots, long limit) {
        List<byte[]> found = new ArrayList<>();
        walk(keyspace, slots, limit, found::add);
        return found;
    }

    private static void walk(Keyspace keyspace, BitSet slots, long limit, Consumer<byte[]> sink) {
        long now = keyspace.now();
        long taken = 0;
        try (Snapshot snapshot = keyspace.snapshot();
             DbIterator it = keyspace.metadataIterator(ReadOptions.at(snapshot), slots, ANY)) {
            for (it.seekToFirst(); it.valid() && taken < limit; it.next()) {
                if (!Metadata.decodeHeader(it.value()).isExpired(now)) {
                    sink.accept(KeyEncoding.userKeyOfMetadata(it.key()));
                    taken++;
                }
            }
        }
    }
}
