package io.varve.server.types;

import io.varve.server.store.RedisType;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Redis's DUMP payload: checksum, footer, and payloads redis-server 7.0 wrote. */
class DumpFormatTest {

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void checksumIsCrc64Jones() {
        byte[] check = bytes("123456789");
        assertEquals(0xe9c6d914c4b8d9caL, DumpFormat.crc64(check, check.length));
    }

    @Test
    void readsAnIntegerEncodedStringRedisDumped() {
        byte[] payload = HexFormat.of().parseHex("00c1d2040a00008708a144825ced"); // DUMP of SET n 1234
        assertTrue(DumpFormat.footerValid(payload));
        DumpFormat.Value value = DumpFormat.decode(payload);
        assertEquals(RedisType.STRING, value.type());
        assertArrayEquals(bytes("1234"), value.items().getFirst());
    }

    @Test
    void readsAnLzfCompressedStringRedisDumped() {
        byte[] payload = HexFormat.of().parseHex("00c3094064016161e057000161610a00e8a3b507b06df271"); // 100 x 'a'
        assertArrayEquals(bytes("a".repeat(100)), DumpFormat.decode(payload).items().getFirst());
    }

    @Test
    void writesWhatItReadsForEveryType() {
        List<byte[]> items = List.of(bytes("f1"), bytes("v1"), bytes("x".repeat(20_000)), bytes(""));
        for (RedisType type : RedisType.values()) {
            if (type == RedisType.STREAM) {
                assertThrows(IllegalArgumentException.class,
                        () -> DumpFormat.encode(new DumpFormat.Value(type, items, null)), "streams have no DUMP form");
                continue;
            }
            List<byte[]> these = type == RedisType.STRING ? items.subList(2, 3) : items;
            double[] scores = type == RedisType.ZSET ? new double[] {1.5, -2, Double.POSITIVE_INFINITY, 0} : null;
            byte[] payload = DumpFormat.encode(new DumpFormat.Value(type, these, scores));
            assertTrue(DumpFormat.footerValid(payload), type.name());
            DumpFormat.Value back = DumpFormat.decode(payload);
            assertEquals(type, back.type());
            assertEquals(these.size(), back.items().size());
            for (int i = 0; i < these.size(); i++) {
                assertArrayEquals(these.get(i), back.items().get(i), type.name());
            }
            if (scores != null) {
                assertArrayEquals(scores, back.scores());
            }
        }
    }

    @Test
    void refusesAChangedPayloadOrANewerVersion() {
        byte[] payload = DumpFormat.encode(new DumpFormat.Value(RedisType.STRING, List.of(bytes("v")), null));
        payload[1] ^= 1;
        assertFalse(DumpFormat.footerValid(payload));
        byte[] truncated = HexFormat.of().parseHex("0005");
        assertFalse(DumpFormat.footerValid(truncated));
        byte[] listpackHash = DumpFormat.encode(new DumpFormat.Value(RedisType.STRING, List.of(bytes("v")), null));
        listpackHash[0] = 16;
        fixChecksum(listpackHash);
        assertThrows(DumpFormat.BadFormatException.class, () -> DumpFormat.decode(listpackHash));
    }

    private static void fixChecksum(byte[] payload) {
        long crc = DumpFormat.crc64(payload, payload.length - 8);
        for (int i = 0; i < 8; i++) {
            payload[payload.length - 8 + i] = (byte) (crc >>> (8 * i));
        }
    }
}
