package io.varve.server.store;

/**
 * The decoded metadata record of one Redis key (layout in {@link KeyEncoding}). For strings the value is
 * inline and version/size are zero; for collections elements live in subkeys tagged with {@code version},
 * and the value holds the type's own header bytes after the common collection header (a list's head and
 * tail positions), or null when the type has none.
 *
 * @param expireAt Unix milliseconds after which the key is gone, or 0 for never
 */
public record Metadata(RedisType type, long expireAt, long version, long size, byte[] value) {

    public static Metadata string(byte[] value, long expireAt) {
        return new Metadata(RedisType.STRING, expireAt, 0, 0, value);
    }

    public static Metadata collection(RedisType type, long expireAt, long version, long size) {
        return new Metadata(type, expireAt, version, size, null);
    }

    public boolean isExpired(long nowMillis) {
        return expireAt != 0 && expireAt <= nowMillis;
    }

    public boolean hasExpiry() {
        return expireAt != 0;
    }

    public Metadata withExpireAt(long newExpireAt) {
        return new Metadata(type, newExpireAt, version, size, value);
    }

    public Metadata withSize(long newSize) {
        return new Metadata(type, expireAt, version, newSize, value);
    }

    /** The same collection under another version (RENAME copies the elements to fresh subkeys). */
    public Metadata withVersion(long newVersion) {
        return new Metadata(type, expireAt, newVersion, size, value);
    }

    /** The same collection with other type-specific header bytes. */
    public Metadata withExtra(byte[] extra) {
        return new Metadata(type, expireAt, version, size, extra);
    }

    public byte[] encode() {
        if (type == RedisType.STRING) {
            byte[] record = new byte[KeyEncoding.STRING_VALUE_OFFSET + value.length];
            record[KeyEncoding.TYPE_OFFSET] = (byte) type.code();
            KeyEncoding.BIG_ENDIAN_LONG.set(record, KeyEncoding.EXPIRE_OFFSET, expireAt);
            System.arraycopy(value, 0, record, KeyEncoding.STRING_VALUE_OFFSET, value.length);
            return record;
        }
        byte[] record = new byte[KeyEncoding.COLLECTION_HEADER + (value == null ? 0 : value.length)];
        record[KeyEncoding.TYPE_OFFSET] = (byte) type.code();
        KeyEncoding.BIG_ENDIAN_LONG.set(record, KeyEncoding.EXPIRE_OFFSET, expireAt);
        KeyEncoding.BIG_ENDIAN_LONG.set(record, KeyEncoding.VERSION_OFFSET, version);
        KeyEncoding.BIG_ENDIAN_LONG.set(record, KeyEncoding.SIZE_OFFSET, size);
        if (value != null) {
            System.arraycopy(value, 0, record, KeyEncoding.COLLECTION_HEADER, value.length);
        }
        return record;
    }

    public static Metadata decode(byte[] raw) {
        return decode(raw, raw.length);
    }

    /** Decodes the record in {@code raw[0, length)}. */
    public static Metadata decode(byte[] raw, int length) {
        if (length < KeyEncoding.STRING_VALUE_OFFSET) {
            throw new IllegalStateException("metadata record too short: " + length + " bytes");
        }
        int typeByte = raw[KeyEncoding.TYPE_OFFSET] & 0xFF;
        if ((typeByte >>> 4) != 0) {
            throw new IllegalStateException("metadata format " + (typeByte >>> 4) + " is newer than this server");
        }
        RedisType type = RedisType.ofCode(typeByte & 0x0F);
        long expireAt = (long) KeyEncoding.BIG_ENDIAN_LONG.get(raw, KeyEncoding.EXPIRE_OFFSET);
        if (type == RedisType.STRING) {
            byte[] value = new byte[length - KeyEncoding.STRING_VALUE_OFFSET];
            System.arraycopy(raw, KeyEncoding.STRING_VALUE_OFFSET, value, 0, value.length);
            return new Metadata(type, expireAt, 0, 0, value);
        }
        if (length < KeyEncoding.COLLECTION_HEADER) {
            throw new IllegalStateException("collection metadata too short: " + length + " bytes");
        }
        byte[] extra = null;
        if (length > KeyEncoding.COLLECTION_HEADER) {
            extra = new byte[length - KeyEncoding.COLLECTION_HEADER];
            System.arraycopy(raw, KeyEncoding.COLLECTION_HEADER, extra, 0, extra.length);
        }
        return new Metadata(type, expireAt, (long) KeyEncoding.BIG_ENDIAN_LONG.get(raw, KeyEncoding.VERSION_OFFSET),
                (long) KeyEncoding.BIG_ENDIAN_LONG.get(raw, KeyEncoding.SIZE_OFFSET), extra);
    }

    /** The type and expiry only, without copying a string's value (for TYPE, TTL, EXISTS, SCAN filters). */
    public static Metadata decodeHeader(byte[] raw) {
        RedisType type = RedisType.ofCode(raw[KeyEncoding.TYPE_OFFSET] & 0x0F);
        return new Metadata(type, (long) KeyEncoding.BIG_ENDIAN_LONG.get(raw, KeyEncoding.EXPIRE_OFFSET), 0, 0, null);
    }
}
