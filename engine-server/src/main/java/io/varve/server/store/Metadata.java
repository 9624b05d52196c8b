package io.varve.server.store;

import java.nio.ByteBuffer;

/**
 * The decoded metadata record of one Redis key (layout in {@link KeyEncoding}). For strings the value is
 * inline and version/size are zero; for collections the value is null and elements live in subkeys tagged
 * with {@code version}.
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

    public byte[] encode() {
        if (type == RedisType.STRING) {
            ByteBuffer b = ByteBuffer.allocate(KeyEncoding.STRING_VALUE_OFFSET + value.length);
            b.put((byte) type.code()).putLong(expireAt).put(value);
            return b.array();
        }
        ByteBuffer b = ByteBuffer.allocate(KeyEncoding.COLLECTION_HEADER);
        b.put((byte) type.code()).putLong(expireAt).putLong(version).putLong(size);
        return b.array();
    }

    public static Metadata decode(byte[] raw) {
        return decode(raw, raw.length);
    }

    /** Decodes the record in {@code raw[0, length)}. */
    public static Metadata decode(byte[] raw, int length) {
        if (length < KeyEncoding.STRING_VALUE_OFFSET) {
            throw new IllegalStateException("metadata record too short: " + length + " bytes");
        }
        ByteBuffer b = ByteBuffer.wrap(raw);
        int typeByte = b.get(KeyEncoding.TYPE_OFFSET) & 0xFF;
        if ((typeByte >>> 4) != 0) {
            throw new IllegalStateException("metadata format " + (typeByte >>> 4) + " is newer than this server");
        }
        RedisType type = RedisType.ofCode(typeByte & 0x0F);
        long expireAt = b.getLong(KeyEncoding.EXPIRE_OFFSET);
        if (type == RedisType.STRING) {
            byte[] value = new byte[length - KeyEncoding.STRING_VALUE_OFFSET];
            System.arraycopy(raw, KeyEncoding.STRING_VALUE_OFFSET, value, 0, value.length);
            return new Metadata(type, expireAt, 0, 0, value);
        }
        if (length < KeyEncoding.COLLECTION_HEADER) {
            throw new IllegalStateException("collection metadata too short: " + length + " bytes");
        }
        return new Metadata(type, expireAt, b.getLong(KeyEncoding.VERSION_OFFSET), b.getLong(KeyEncoding.SIZE_OFFSET), null);
    }

    /** The type and expiry only, without copying a string's value (for TYPE, TTL, EXISTS, SCAN filters). */
    public static Metadata decodeHeader(byte[] raw) {
        ByteBuffer b = ByteBuffer.wrap(raw);
        RedisType type = RedisType.ofCode(b.get(KeyEncoding.TYPE_OFFSET) & 0x0F);
        return new Metadata(type, b.getLong(KeyEncoding.EXPIRE_OFFSET), 0, 0, null);
    }
}
