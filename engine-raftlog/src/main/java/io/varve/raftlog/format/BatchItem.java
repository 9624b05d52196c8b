package io.varve.raftlog.format;

/**
 * One operation of a batch, in the order the caller added it. Replaying a batch means applying its items in
 * order; the footer stores exactly this list (see {@link FooterCodec}).
 */
public sealed interface BatchItem {

    long group();

    /**
     * Entries {@code firstIndex, firstIndex + 1, ...} of a group, stored as consecutive records in the
     * batch's entries block starting at {@code regionStart}. Only payload lengths are kept; record offsets
     * follow from them (each record is a varint length then the payload).
     */
    record Entries(long group, long firstIndex, int regionStart, int[] lengths) implements BatchItem {
        public int count() {
            return lengths.length;
        }

        public long lastIndex() {
            return firstIndex + lengths.length - 1;
        }

        /** Offsets of each record (its length prefix) within the raw entries block. */
        public int[] recordStarts() {
            int[] starts = new int[lengths.length];
            int at = regionStart;
            for (int i = 0; i < lengths.length; i++) {
                starts[i] = at;
                at += Varints.size(lengths[i]) + lengths[i];
            }
            return starts;
        }

        public long payloadBytes() {
            long total = 0;
            for (int length : lengths) {
                total += length;
            }
            return total;
        }
    }

    /** Drops all entries and all state of the group. */
    record Clean(long group) implements BatchItem {
    }

    /** Drops the group's entries below {@code index}. */
    record Compact(long group, long index) implements BatchItem {
    }

    record Put(long group, byte[] key, byte[] value) implements BatchItem {
    }

    record Delete(long group, byte[] key) implements BatchItem {
    }

    /** Purge only: drop every entry outside [first, first + count); count 0 drops them all. */
    record Retain(long group, long first, long count) implements BatchItem {
    }

    /** Purge only: drop all key/values of the group. */
    record ClearState(long group) implements BatchItem {
    }

    /** Purge only: closes a purge's writes to the rewrite queue; they count only once this is durable. */
    record Commit() implements BatchItem {
        @Override
        public long group() {
            return 0;
        }
    }
}
