package io.varve.server.cluster;

import io.varve.core.WriteBatch;
import io.varve.server.store.KeyEncoding;

/**
 * The group a commit belongs to, read from its engine keys: the slot each metadata key and subkey carries
 * after its first byte ({@link KeyEncoding}'s slotted layout), mapped through the slot map. The server's own internal keys (the
 * version floor, write barriers) belong to no slot and go with the command that writes them.
 */
final class BatchRouting {

    /** The batch touches no user key. */
    static final int NO_GROUP = -1;
    /** The batch touches keys of more than one group. */
    static final int SEVERAL_GROUPS = -2;

    private BatchRouting() {
    }

    static int groupOf(WriteBatch batch, SlotMap map) {
        int[] group = {NO_GROUP};
        batch.forEach(new WriteBatch.Visitor() {
            @Override
            public void put(String family, byte[] key, byte[] value) {
                note(key);
            }

            @Override
            public void delete(String family, byte[] key) {
                note(key);
            }

            @Override
            public void deleteRange(String family, byte[] begin, byte[] end) {
                group[0] = SEVERAL_GROUPS; // the server never writes ranges; refuse to guess
            }

            private void note(byte[] key) {
                int slot = slotOf(key);
                if (slot < 0 && (KeyEncoding.isMetadataKey(key) || KeyEncoding.looksLikeSubkey(key))) {
                    throw new IllegalStateException("a key of the plain layout in a cluster node's commit");
                }
                if (slot < 0 || group[0] == SEVERAL_GROUPS) {
                    return;
                }
                int g = map.groupOf(slot);
                group[0] = group[0] == NO_GROUP || group[0] == g ? g : SEVERAL_GROUPS;
            }
        });
        return group[0];
    }

    /**
     * The slot an engine key belongs to, read from the key (a cluster node's keyspace is in the slotted
     * layout, {@link KeyEncoding}); -1 for an internal key.
     */
    static int slotOf(byte[] engineKey) {
        return KeyEncoding.slotOf(engineKey);
    }
}
