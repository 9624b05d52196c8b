package io.varve.replication;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * Puts and deletes across column families, proposed to the Raft group as one command and applied atomically
 * on every replica. Families are named, not handles: a {@code ColumnFamily} belongs to one local database,
 * while a command runs on every replica. A family that does not exist yet is created on every replica when
 * the first command naming it is applied. Later operations on the same key win. Not thread-safe.
 */
public final class ReplicatedBatch {
    /** The name of the family the single-family methods use (engine-core's default family). */
    public static final String DEFAULT_FAMILY = "default";
    /** Family names starting with this are the replication layer's own. */
    static final String RESERVED_PREFIX = "varve.";

    /** One operation; {@code value} is null for a delete. */
    public record Op(String family, byte[] key, byte[] value) {
    }

    private final List<Op> ops = new ArrayList<>();

    public ReplicatedBatch put(byte[] key, byte[] value) {
        return put(DEFAULT_FAMILY, key, value);
    }

    public ReplicatedBatch put(String family, byte[] key, byte[] value) {
        ops.add(new Op(checkFamily(family), Objects.requireNonNull(key, "key").clone(),
                Objects.requireNonNull(value, "value").clone()));
        return this;
    }

    public ReplicatedBatch delete(byte[] key) {
        return delete(DEFAULT_FAMILY, key);
    }

    public ReplicatedBatch delete(String family, byte[] key) {
        ops.add(new Op(checkFamily(family), Objects.requireNonNull(key, "key").clone(), null));
        return this;
    }

    public int count() {
        return ops.size();
    }

    /** The operations in the order added. */
    public List<Op> ops() {
        return Collections.unmodifiableList(ops);
    }

    static String checkFamily(String family) {
        Objects.requireNonNull(family, "family");
        if (family.isEmpty()) {
            throw new IllegalArgumentException("empty column family name");
        }
        if (family.startsWith(RESERVED_PREFIX)) {
            throw new IllegalArgumentException("column family names starting with " + RESERVED_PREFIX
                    + " are reserved: " + family);
        }
        return family;
    }
}
