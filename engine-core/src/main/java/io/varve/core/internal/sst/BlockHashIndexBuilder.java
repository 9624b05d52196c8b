package io.varve.core.internal.sst;

import java.util.Arrays;

/**
 * Builds the hash index that ends a data block of a version-3 table (layout in {@link TableFormat} and
 * docs/formats.md, "Data block hash index"): one byte per bucket naming the restart interval that holds every
 * user key hashing to that bucket, so a point lookup can go straight to one interval instead of
 * binary-searching the restart keys. The design is RocksDB's binary-and-hash data block index.
 *
 * <p>Every entry is recorded with its user key's hash and its restart interval. A bucket that receives two
 * different intervals becomes {@link TableFormat#HASH_BUCKET_COLLISION}: readers binary-search for those
 * keys, as they do for every key of a block without buckets. So a user key whose versions straddle two
 * intervals, or two keys of different intervals sharing a bucket, cost the lookup its shortcut but never its
 * answer. About 0.75 recorded keys per bucket, RocksDB's default utilization, keeps collisions rare at about
 * one byte per key.
 */
final class BlockHashIndexBuilder {

    private long[] hashes = new long[64];
    private int[] restarts = new int[64];
    private int count;

    /** Records an entry whose user key hashes to {@code userKeyHash}, in restart interval {@code restart}. */
    void add(long userKeyHash, int restart) {
        // Versions of one key come together: recording each once keeps the bucket count to distinct keys.
        if (count > 0 && hashes[count - 1] == userKeyHash && restarts[count - 1] == restart) {
            return;
        }
        if (count == hashes.length) {
            hashes = Arrays.copyOf(hashes, count * 2);
            restarts = Arrays.copyOf(restarts, count * 2);
        }
        hashes[count] = userKeyHash;
        restarts[count] = restart;
        count++;
    }

    /** The bytes {@link #appendTo} would add. */
    int estimatedSize() {
        return bucketCount() + TableFormat.HASH_INDEX_COUNT_SIZE;
    }

    /**
     * Appends the buckets and their count to a block whose restart array and count are already written; a
     * block with more than {@link TableFormat#HASH_INDEX_MAX_RESTARTS} restarts gets a count of 0 and no
     * buckets.
     */
    void appendTo(ByteBuilder out, int restartCount) {
        if (restartCount > TableFormat.HASH_INDEX_MAX_RESTARTS || count == 0) {
            appendCount(out, 0);
            return;
        }
        int buckets = bucketCount();
        byte[] table = new byte[buckets];
        Arrays.fill(table, (byte) TableFormat.HASH_BUCKET_EMPTY);
        for (int i = 0; i < count; i++) {
            int bucket = bucket(hashes[i], buckets);
            int held = table[bucket] & 0xFF;
            if (held == TableFormat.HASH_BUCKET_EMPTY) {
                table[bucket] = (byte) restarts[i];
            } else if (held != restarts[i]) {
                table[bucket] = (byte) TableFormat.HASH_BUCKET_COLLISION;
            }
        }
        out.append(table, 0, buckets);
        appendCount(out, buckets);
    }

    void reset() {
        count = 0;
    }

    /** The bucket of a user key with hash {@code hash} in a table of {@code buckets}: the hash's top bits. */
    static int bucket(long hash, int buckets) {
        return (int) Math.unsignedMultiplyHigh(hash, buckets);
    }

    private int bucketCount() {
        return Math.min(TableFormat.HASH_INDEX_MAX_BUCKETS, count + count / 3 + 1);
    }

    private static void appendCount(ByteBuilder out, int buckets) {
        out.appendByte(buckets & 0xFF);
        out.appendByte(buckets >>> 8);
    }
}
