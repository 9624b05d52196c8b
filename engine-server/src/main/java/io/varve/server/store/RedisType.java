package io.varve.server.store;

/**
 * The Redis data types and their one-byte codes in metadata values (see {@link KeyEncoding}). Codes are
 * persisted: never renumber. Codes of types this server does not implement yet are reserved so data written
 * by a later version is recognised as "some other type" rather than misread.
 */
public enum RedisType {
    STRING(0, "string"),
    HASH(1, "hash"),
    LIST(2, "list"),
    SET(3, "set"),
    ZSET(4, "zset"),
    STREAM(5, "stream");

    private static final RedisType[] BY_CODE = values();

    private final int code;
    private final String redisName;

    RedisType(int code, String redisName) {
        this.code = code;
        this.redisName = redisName;
    }

    public int code() {
        return code;
    }

    /** The name TYPE replies with. */
    public String redisName() {
        return redisName;
    }

    /** Whether values of this type live in subkeys (and so carry a version and a size in their metadata). */
    public boolean hasSubkeys() {
        return this != STRING;
    }

    static RedisType ofCode(int code) {
        if (code < 0 || code >= BY_CODE.length) {
            throw new IllegalStateException("unknown type code " + code + " in metadata");
        }
        return BY_CODE[code];
    }

    /** Parses a TYPE filter (SCAN ... TYPE hash); null when it names no type. */
    public static RedisType ofName(String name) {
        for (RedisType t : BY_CODE) {
            if (t.redisName.equalsIgnoreCase(name)) {
                return t;
            }
        }
        return null;
    }
}
