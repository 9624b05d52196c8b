package io.varve.server.types;

import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.WriteBatch;
import io.varve.server.store.Database;
import io.varve.server.store.Keyspace;
import io.varve.base.concurrent.LockStripes;
import io.varve.server.store.Metadata;
import io.varve.server.store.RedisType;
import io.varve.server.store.WrongTypeException;

import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;

/**
 * The string type (bitmaps included). A string lives inline in its key's metadata record, so a GET is one
 * engine lookup. Every write holds the key's stripe lock from its first read to its commit, which is what
 * makes INCR, APPEND, SETRANGE, SETBIT, SET NX/XX/GET and MSETNX atomic; an edit of an existing string keeps
 * its expiry.
 *
 * <p>Size: a value is refused ({@link ValueTooLargeException}) above {@link #maxValueLength}, the smaller of
 * proto-max-bulk-len and what one engine entry can hold after the key and the record header. The check runs
 * before a value is grown, so a far offset (SETRANGE, SETBIT, BITFIELD) allocates nothing.
 */
public final class RedisStrings {

    private final Keyspace keyspace;
    private final LongSupplier maxBulkLength;

    RedisStrings(Keyspace keyspace, LongSupplier maxBulkLength) {
        this.keyspace = keyspace;
        this.maxBulkLength = maxBulkLength;
    }

    /** The database these strings are in. */
    Database database() {
        return keyspace.database();
    }

    /**
     * The longest value {@code key} may hold: proto-max-bulk-len, or less when the engine entry (metadata key
     * plus the record's type and expiry header plus the value) would pass the engine's limit.
     */
    public long maxValueLength(byte[] key) {
        return Math.min(maxBulkLength.getAsLong(), WriteBatch.MAX_ENTRY_BYTES - keyspace.database().stringEntryOverhead(key));
    }

    private void checkFits(byte[] key, long length) {
        // The overhead is at most the key plus 12 bytes: most values pass here without the database lookup.
        if (length <= Math.min(maxBulkLength.getAsLong(), WriteBatch.MAX_ENTRY_BYTES) - key.length - 12) {
            return;
        }
        if (length > maxValueLength(key)) {
            throw new ValueTooLargeException();
        }
    }

    /**
     * Adds to {@code batch} the write of a string (replacing any type). An {@code expireAt} that has already
     * passed is written all the same, as Redis's SET writes it: reads hide the key at once, and it then goes
     * by expiry, with the expired event and the invalidation a tracking client with NOLOOP still expects
     * (a SET PX 1 may find its millisecond gone by the time it is staged). Caller holds the key's lock and
     * commits the batch.
     */
    public void stage(WriteBatch batch, byte[] key, byte[] value, long expireAt) {
        checkFits(key, value.length);
        keyspace.putMetadata(batch, key, Metadata.string(value, expireAt));
    }

    /** Whether a value of {@code length} bytes fits {@code key} (see {@link #maxValueLength}). */
    public boolean fits(byte[] key, long length) {
        try {
            checkFits(key, length);
            return true;
        } catch (ValueTooLargeException tooLarge) {
            return false;
        }
    }

    private void storeNow(byte[] key, byte[] value, long expireAt) {
        WriteBatch batch = new WriteBatch();
        stage(batch, key, value, expireAt);
        keyspace.commit(batch);
    }

    /** The value; null if absent; {@link WrongTypeException} for other types. */
    public byte[] get(byte[] key) {
        Metadata meta = keyspace.lookup(key, RedisType.STRING);
        return meta == null ? null : meta.value();
    }

    /** The value, or null if the key is absent or holds another type (MGET). */
    public byte[] getIfString(byte[] key) {
        Metadata meta = keyspace.lookup(key);
        return meta != null && meta.type() == RedisType.STRING ? meta.value() : null;
    }

    /** The values of {@code keys} read at one snapshot, null where absent; other types fail. */
    public List<byte[]> getAtOneInstant(List<byte[]> keys) {
        try (Snapshot snapshot = keyspace.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            return keys.stream().map(key -> {
                Metadata meta = keyspace.lookup(at, key, RedisType.STRING);
                return meta == null ? null : meta.value();
            }).toList();
        }
    }

    /** The length of the value, 0 if absent. */
    public long length(byte[] key) {
        byte[] value = get(key);
        return value == null ? 0 : value.length;
    }

    /** What a conditional SET found and did. {@code previous} is null when the key was absent. */
    public record SetOutcome(boolean written, Metadata previous) {
        /** The string the key held before (null if absent). */
        public byte[] previousValue() {
            return previous == null ? null : previous.value();
        }
    }

    /**
     * SET with its options. A blind SET (no condition, no GET, no KEEPTTL) skips the lookup, the costly part
     * of a write. With {@code get}, a key of another type fails before anything is written.
     */
    public SetOutcome set(byte[] key, byte[] value, long expireAt, boolean nx, boolean xx, boolean get,
                          boolean keepTtl) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            boolean blind = !nx && !xx && !get && !keepTtl;
            Metadata meta = blind ? null : keyspace.lookup(key);
            if (get && meta != null && meta.type() != RedisType.STRING) {
                throw new WrongTypeException();
            }
            boolean write = !(nx && meta != null) && !(xx && meta == null);
            if (write) {
                storeNow(key, value, keepTtl && meta != null ? meta.expireAt() : expireAt);
            }
            return new SetOutcome(write, meta);
        }
    }

    /** SET, SETEX, PSETEX: writes the value whatever the key held. */
    public void set(byte[] key, byte[] value, long expireAt) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            storeNow(key, value, expireAt);
        }
    }

    /** SETNX: writes only if the key is absent; returns whether it wrote. */
    public boolean setIfAbsent(byte[] key, byte[] value) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            if (keyspace.header(key) != null) {
                return false;
            }
            storeNow(key, value, 0);
            return true;
        }
    }

    /** GETSET: the old value (null if absent), replaced by {@code value} without expiry. */
    public byte[] getAndSet(byte[] key, byte[] value) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            byte[] old = get(key);
            storeNow(key, value, 0);
            return old;
        }
    }

    /** GETDEL: the old value (null if absent), the key deleted. */
    public byte[] getAndDelete(byte[] key) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            byte[] old = get(key);
            if (old != null) {
                WriteBatch batch = new WriteBatch();
                keyspace.deleteMetadata(batch, key);
                keyspace.commit(batch);
            }
            return old;
        }
    }

    /**
     * GETEX: the value; with {@code changeExpiry} its expiry becomes {@code expireAt} (0: none, written only
     * when it had one).
     */
    public byte[] getAndExpire(byte[] key, boolean changeExpiry, long expireAt) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.STRING);
            if (meta != null && changeExpiry && expireAt != 0 && expireAt <= keyspace.now()) {
                WriteBatch batch = new WriteBatch(); // GETEX with a time already passed deletes, as Redis's does
                keyspace.deleteMetadata(batch, key);
                keyspace.commit(batch);
            } else if (meta != null && changeExpiry && (expireAt != 0 || meta.hasExpiry())) {
                storeNow(key, meta.value(), expireAt);
            }
            return meta == null ? null : meta.value();
        }
    }

    /**
     * MSET ({@code onlyIfNoneExist} false) or MSETNX: writes the key/value pairs (keys at even positions) in
     * one batch; MSETNX writes nothing if any key exists. Returns whether it wrote.
     */
    public boolean setAll(List<byte[]> keysAndValues, boolean onlyIfNoneExist) {
        byte[][] keys = new byte[keysAndValues.size() / 2][];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = keysAndValues.get(2 * i);
        }
        try (LockStripes.Held held = keyspace.lockAll(keys)) {
            if (onlyIfNoneExist) {
                for (byte[] key : keys) {
                    if (keyspace.header(key) != null) {
                        return false;
                    }
                }
            }
            WriteBatch batch = new WriteBatch();
            for (int i = 0; i + 1 < keysAndValues.size(); i += 2) {
                stage(batch, keysAndValues.get(i), keysAndValues.get(i + 1), 0);
            }
            keyspace.commit(batch);
            return true;
        }
    }

    /** APPEND: returns the new length. */
    public long append(byte[] key, byte[] extra) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.STRING);
            byte[] result;
            if (meta == null) {
                result = extra;
            } else {
                checkFits(key, (long) meta.value().length + extra.length);
                result = Arrays.copyOf(meta.value(), meta.value().length + extra.length);
                System.arraycopy(extra, 0, result, meta.value().length, extra.length);
            }
            storeNow(key, result, meta == null ? 0 : meta.expireAt());
            return result.length;
        }
    }

    /** SETRANGE: writes {@code patch} at {@code offset} (padding with zeros); returns the new length. */
    public long setRange(byte[] key, long offset, byte[] patch) {
        if (patch.length == 0) {
            return length(key);
        }
        byte[][] result = new byte[1][];
        // Saturates: an offset near Long.MAX_VALUE must be refused as too large, not wrap to a small length.
        long end = offset > Long.MAX_VALUE - patch.length ? Long.MAX_VALUE : offset + patch.length;
        edit(key, end, value -> {
            System.arraycopy(patch, 0, value, (int) offset, patch.length);
            result[0] = value;
        });
        return result[0].length;
    }

    /**
     * Read-modify-write of the value in place (SETRANGE, SETBIT, BITFIELD): the value (empty if absent) is
     * first grown with zeros to at least {@code minLength} bytes, refused before any allocation if that
     * would not fit (a key of another type fails first, as in Redis); then {@code change} edits it and it is written back with its expiry.
     */
    public void edit(byte[] key, long minLength, Consumer<byte[]> change) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.STRING);
            byte[] value = meta == null ? new byte[0] : meta.value();
            if (minLength > value.length) {
                checkFits(key, minLength);
                value = Arrays.copyOf(value, (int) minLength);
            }
            change.accept(value);
            storeNow(key, value, meta == null ? 0 : meta.expireAt());
        }
    }

    /**
     * Read-modify-write that replaces the value (INCR, INCRBYFLOAT): {@code change} gets the value (null if
     * absent) and returns the new one, or throws to write nothing. Returns the new value.
     */
    public byte[] replace(byte[] key, UnaryOperator<byte[]> change) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.STRING);
            byte[] updated = change.apply(meta == null ? null : meta.value());
            storeNow(key, updated, meta == null ? 0 : meta.expireAt());
            return updated;
        }
    }

    /**
     * BITOP: under the locks of {@code sources} and {@code destination}, {@code combine} turns the sources'
     * values (empty where absent) into the result, which replaces the destination (an empty result deletes
     * it). Returns the result's length.
     */
    public int combineInto(byte[] destination, List<byte[]> sources, Function<byte[][], byte[]> combine) {
        byte[][] locked = sources.toArray(new byte[sources.size() + 1][]);
        locked[sources.size()] = destination;
        try (LockStripes.Held held = keyspace.lockAll(locked)) {
            byte[][] values = new byte[sources.size()][];
            for (int i = 0; i < values.length; i++) {
                byte[] value = get(sources.get(i));
                values[i] = value == null ? new byte[0] : value;
            }
            byte[] result = combine.apply(values);
            WriteBatch batch = new WriteBatch();
            if (result.length == 0) {
                if (keyspace.header(destination) == null) {
                    return 0;
                }
                keyspace.deleteMetadata(batch, destination);
            } else {
                stage(batch, destination, result, 0);
            }
            keyspace.commit(batch);
            return result.length;
        }
    }
}
