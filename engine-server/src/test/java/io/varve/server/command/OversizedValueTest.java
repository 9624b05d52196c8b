package io.varve.server.command;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.varve.core.WriteBatch;
import io.varve.server.resp.Reply;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A write that would grow a string past what one engine entry can hold is refused with Redis's size error,
 * before the value is allocated and with nothing written, so the database stays writable and reopens.
 */
class OversizedValueTest {

    private static final String TOO_LARGE = "-ERR string exceeds maximum allowed size (proto-max-bulk-len)\r\n";
    private static final long MAX_ENTRY_BYTES = WriteBatch.MAX_ENTRY_BYTES;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void setRangePastTheEngineLimitIsRefusedWithoutAllocatingTheValue() throws Exception {
        try (InProcessServer s = new InProcessServer()) {
            assertEquals("+OK\r\n", s.call("SET", "k", "v"));
            long before = THREADS.getCurrentThreadAllocatedBytes();
            assertEquals(TOO_LARGE, s.call("SETRANGE", "k", Long.toString(MAX_ENTRY_BYTES), "x"));
            assertEquals(TOO_LARGE, s.call("SETRANGE", "absent", Long.toString(MAX_ENTRY_BYTES), "x"));
            long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
            assertTrue(allocated < (16 << 20), "refused before growing the value; allocated " + allocated);

            s.restart();
            assertEquals("$1\r\nv\r\n", s.call("GET", "k"));
            assertEquals(":0\r\n", s.call("EXISTS", "absent"));
        }
    }

    @Test
    void bitWritesPastTheEngineLimitAreRefused() throws Exception {
        try (InProcessServer s = new InProcessServer()) {
            long lastBit = MAX_ENTRY_BYTES * 8;
            assertEquals(TOO_LARGE, s.call("SETBIT", "b", Long.toString(lastBit), "1"));
            assertEquals(TOO_LARGE, s.call("SETBIT", "b", "4294967295", "1"), "the last bit proto-max-bulk-len allows");
            assertEquals(TOO_LARGE, s.call("BITFIELD", "f", "SET", "u8", "#" + MAX_ENTRY_BYTES, "1"));
            assertEquals(":0\r\n", s.call("EXISTS", "b", "f"));
            assertEquals(":0\r\n", s.call("SETBIT", "b", "7", "1"), "small writes still work");
            s.restart();
            assertEquals(":1\r\n", s.call("GETBIT", "b", "7"));
        }
    }

    @Test
    void oneByteOverTheLargestValueIsRefused() throws Exception {
        try (InProcessServer s = new InProcessServer()) {
            // The entry is 'm' + the 1-byte key, then a 9-byte header (type, expire-at) and the value.
            long largestValue = MAX_ENTRY_BYTES - 2 - 9;
            assertEquals(TOO_LARGE, s.call("SETRANGE", "k", Long.toString(largestValue), "x"));
            assertEquals(":0\r\n", s.call("EXISTS", "k"));
        }
    }

    @Test
    void anyWriteWhoseEngineEntryIsTooLargeGetsTheSizeError() throws Exception {
        try (InProcessServer s = new InProcessServer()) {
            byte[] huge = new byte[(int) MAX_ENTRY_BYTES];
            assertEquals(TOO_LARGE, call(s, "HSET".getBytes(), "h".getBytes(), "f".getBytes(), huge));
            assertEquals(TOO_LARGE, call(s, "SADD".getBytes(), "s".getBytes(), huge));
            assertEquals(TOO_LARGE, call(s, "SET".getBytes(), "k".getBytes(), huge));
            assertEquals(":0\r\n", s.call("EXISTS", "h", "s", "k"));
            assertEquals(":1\r\n", s.call("HSET", "h", "f", "v"), "the database still takes writes");
        }
    }

    private static String call(InProcessServer s, byte[]... args) {
        ByteBuf out = Unpooled.buffer();
        s.dispatcher.execute(s.connection, args, new Reply(out, 2));
        return InProcessServer.text(out);
    }
}
