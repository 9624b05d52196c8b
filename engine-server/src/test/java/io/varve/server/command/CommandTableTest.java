package io.varve.server.command;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command table: flags are checked when it is built, and key specs find the keys Redis 7 finds. */
class CommandTableTest {

    @Test
    void aFlagThatIsNoCommandFlagStopsTheTableFromBuilding() {
        CommandTable.Builder b = new CommandTable.Builder();
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> b.add("hset", -4, "write denyom fast", 1, 1, 1, c -> { }));
        assertEquals("command hset is registered with an unknown flag: denyom", refused.getMessage());
    }

    @Test
    void flagsAreParsedInEitherRedisSpelling() {
        CommandTable table = new CommandTable.Builder()
                .add("a", 1, "no-auth allow_busy  fast", c -> { })
                .build();
        assertEquals(EnumSet.of(CommandFlag.NO_AUTH, CommandFlag.ALLOW_BUSY, CommandFlag.FAST),
                table.lookup("a").flags());
    }

    @Test
    void theStandardTableBuildsAndCountedKeysMakeACommandMovable() {
        CommandTable table = CommandTable.standard();
        for (String name : List.of("lmpop", "zmpop", "blmpop", "bzmpop", "zunionstore", "zunion", "sintercard")) {
            assertTrue(table.lookup(name).has(CommandFlag.MOVABLEKEYS), name);
        }
        assertTrue(table.lookup("get").flags().containsAll(EnumSet.of(CommandFlag.READONLY, CommandFlag.FAST)));
    }

    @Test
    void keyPositionsFollowTheArguments() {
        CommandTable table = CommandTable.standard();
        assertEquals(List.of(1, 3, 4), keys(table, "zunionstore", "d", "2", "a", "b", "WEIGHTS", "1", "2"));
        assertEquals(List.of(2, 3), keys(table, "lmpop", "2", "a", "b", "LEFT"));
        assertEquals(List.of(3), keys(table, "blmpop", "0", "1", "a", "LEFT"));
        assertEquals(List.of(1, 2), keys(table, "blpop", "a", "b", "0"));
        assertEquals(List.of(1, 3), keys(table, "mset", "a", "1", "b", "2"));
        assertEquals(List.of(2), keys(table, "bitop", "and", "d")); // a short call finds what is there
        assertEquals(List.of(2), table.lookup("object").subcommands().get("encoding")
                .keyPositions(args("object", "encoding", "k")));
        assertThrows(KeySpec.InvalidKeyArguments.class, () -> keys(table, "zunion", "5", "a", "b"));
        assertThrows(KeySpec.InvalidKeyArguments.class, () -> keys(table, "lmpop", "x", "a", "LEFT"));
    }

    @Test
    void theLegacyRangeIsRedisSeven() {
        CommandTable table = CommandTable.standard();
        assertRange(table, "zunionstore", 1, 1, 1);
        assertRange(table, "lmpop", 0, 0, 0);
        assertRange(table, "blpop", 1, -2, 1);
        assertRange(table, "mset", 1, -1, 2);
        assertRange(table, "lmove", 1, 2, 1);
    }

    private static void assertRange(CommandTable table, String name, int first, int last, int step) {
        CommandSpec spec = table.lookup(name);
        assertEquals(List.of(first, last, step), List.of(spec.firstKey(), spec.lastKey(), spec.keyStep()), name);
    }

    private static List<Integer> keys(CommandTable table, String... args) {
        return table.lookup(args[0]).keyPositions(args(args));
    }

    private static byte[][] args(String... args) {
        return Arrays.stream(args).map(a -> a.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
    }
}
