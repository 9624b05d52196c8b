package io.varve.server.store;

/**
 * The Redis Cluster hash slot of a key: CRC16 (XMODEM: polynomial 0x1021, initial value 0, no reflection)
 * of the key, or of its hash tag (the bytes between the first '{' and the next '}', if not empty), modulo
 * 16384. It lives with the key encoding because a cluster node's engine keys carry it ({@link KeyEncoding});
 * routing reads it through {@code command.KeySlot}.
 */
public final class HashSlot {

    public static final int SLOTS = 16384;
    private static final int[] TABLE = table();

    private HashSlot() {
    }

    public static int of(byte[] key) {
        int start = 0;
        int end = key.length;
        for (int open = 0; open < key.length; open++) {
            if (key[open] == '{') {
                for (int close = open + 1; close < key.length; close++) {
                    if (key[close] == '}') {
                        if (close > open + 1) {
                            start = open + 1;
                            end = close;
                        }
                        break;
                    }
                }
                break;
            }
        }
        return crc16(key, start, end) & (SLOTS - 1);
    }

    /**
     * The slot every key starting with {@code prefix} hashes to, or -1 when keys with that prefix may hash to
     * several: the prefix must hold a complete, non-empty hash tag after its first '{'.
     */
    public static int ofEveryKeyStartingWith(byte[] prefix) {
        for (int open = 0; open < prefix.length; open++) {
            if (prefix[open] == '{') {
                for (int close = open + 1; close < prefix.length; close++) {
                    if (prefix[close] == '}') {
                        return close > open + 1 ? crc16(prefix, open + 1, close) & (SLOTS - 1) : -1;
                    }
                }
                return -1;
            }
        }
        return -1;
    }

    public static int crc16(byte[] bytes, int from, int to) {
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ bytes[i]) & 0xff]) & 0xffff;
        }
        return crc;
    }

    private static int[] table() {
        int[] table = new int[256];
        for (int i = 0; i < 256; i++) {
            int crc = i << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            table[i] = crc & 0xffff;
        }
        return table;
    }
}
