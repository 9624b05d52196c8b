package io.varve.server.command;

/**
 * The Redis Cluster hash slot of a key: CRC16 (XMODEM: polynomial 0x1021, initial value 0, no reflection)
 * of the key, or of its hash tag (the bytes between the first '{' and the next '}', if not empty), modulo
 * 16384. A replicated server keeps every slot in one Raft group; it reports the slot in MOVED redirects so
 * cluster-aware clients can update their slot map.
 */
public final class KeySlot {

    public static final int SLOTS = 16384;
    private static final int[] TABLE = table();

    private KeySlot() {
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

    static int crc16(byte[] bytes, int from, int to) {
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
