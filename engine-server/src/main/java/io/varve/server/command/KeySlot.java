package io.varve.server.command;

import io.varve.server.store.HashSlot;

/**
 * The Redis Cluster hash slot of a key, as routing sees it ({@link HashSlot} computes it: a cluster node's
 * engine keys carry it too). A replicated server keeps every slot in one Raft group; it reports the slot in
 * MOVED redirects so cluster-aware clients can update their slot map.
 */
public final class KeySlot {

    public static final int SLOTS = HashSlot.SLOTS;

    private KeySlot() {
    }

    public static int of(byte[] key) {
        return HashSlot.of(key);
    }

    static int crc16(byte[] bytes, int from, int to) {
        return HashSlot.crc16(bytes, from, to);
    }
}
