package io.varve.server;

import io.lettuce.core.GeoArgs;
import io.lettuce.core.GeoCoordinates;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The GEO commands side by side with redis-server: scores, positions, distances, geohash strings, search
 * results with every option, STORE results and errors must be the same; WATCH sees GEORADIUS's STORE key.
 */
class GeoCommandsTest extends OneServerPerClass {

    private RealRedis redis;

    @BeforeAll
    void startRedis(@TempDir Path dir) throws Exception {
        redis = RealRedis.start(dir);
    }

    @AfterAll
    void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    private static String[] cmd(String... args) {
        return args;
    }

    /** Sends each command to both servers; those marked unordered compare their top-level items as sets. */
    private void compare(RespClient r, RespClient v, List<String[]> commands, boolean unordered) throws Exception {
        for (String[] command : commands) {
            Object expected = r.call(command);
            Object actual = v.call(command);
            if (unordered && expected instanceof List<?> e && actual instanceof List<?> a) {
                List<String> es = new ArrayList<>(e.stream().map(String::valueOf).toList());
                List<String> as = new ArrayList<>(a.stream().map(String::valueOf).toList());
                es.sort(Comparator.naturalOrder());
                as.sort(Comparator.naturalOrder());
                assertEquals(es, as, String.join(" ", command));
            } else if (command[0].equals("ZRANGE")) {
                assertEquals(numbers(expected), numbers(actual), String.join(" ", command));
            } else {
                assertEquals(expected, actual, String.join(" ", command));
            }
        }
    }

    /**
     * Replies with numbers in bulk strings compared by value: redis-server 7.0 writes a sorted set's scores
     * with 17 significant digits where Varve writes the shortest text of the same double. Fractions (the
     * distances STOREDIST stores) are compared to 13 significant digits: the JVM's trigonometry and the C
     * library's may round a distance's last bit differently. Geohash scores are integers, compared exactly.
     */
    private static Object numbers(Object reply) {
        if (reply instanceof List<?> items) {
            return items.stream().map(GeoCommandsTest::numbers).toList();
        }
        if (reply instanceof String text && text.matches("-?[0-9]+\\.[0-9]+(e[-+]?[0-9]+)?")) {
            return new java.math.BigDecimal(text).round(new java.math.MathContext(13)).doubleValue();
        }
        return reply;
    }

    @Test
    void repliesMatchRedisServer() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        List<String[]> setup = new ArrayList<>();
        setup.add(cmd("GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"));
        setup.add(cmd("GEOADD", "Sicily", "CH", "13.583333", "37.316667", "Agrigento", "13.361389", "38.2", "Palermo"));
        setup.add(cmd("GEOADD", "Sicily", "NX", "0", "0", "Palermo", "14.5", "37.9", "Enna"));
        setup.add(cmd("GEOADD", "Sicily", "XX", "CH", "13.361389", "38.115556", "Palermo", "1", "1", "Nowhere"));
        List<String> pointArgs = new ArrayList<>(List.of("GEOADD", "pts"));
        for (int i = 0; i < 300; i++) {
            pointArgs.add(String.format(Locale.ROOT, "%.6f", -10 + 20 * random.nextDouble()));
            pointArgs.add(String.format(Locale.ROOT, "%.6f", 40 + 10 * random.nextDouble()));
            pointArgs.add("p" + i);
        }
        setup.add(pointArgs.toArray(String[]::new));
        setup.add(cmd("GEOADD", "edges", "180", "85.05112878", "ne", "-180", "-85.05112878", "sw", "0", "0", "origin"));
        setup.add(cmd("SET", "str", "x"));

        List<String[]> ordered = List.of(
                cmd("ZRANGE", "Sicily", "0", "-1", "WITHSCORES"),
                cmd("ZRANGE", "pts", "0", "20", "WITHSCORES"),
                cmd("ZRANGE", "edges", "0", "-1", "WITHSCORES"),
                cmd("GEOPOS", "Sicily", "Palermo", "Catania", "missing"),
                cmd("GEOPOS", "edges", "ne", "sw", "origin"),
                cmd("GEOPOS", "nokey", "a"),
                cmd("GEODIST", "Sicily", "Palermo", "Catania"),
                cmd("GEODIST", "Sicily", "Palermo", "Catania", "km"),
                cmd("GEODIST", "Sicily", "Palermo", "Catania", "MI"),
                cmd("GEODIST", "Sicily", "Palermo", "Catania", "ft"),
                cmd("GEODIST", "Sicily", "Palermo", "missing"),
                cmd("GEODIST", "Sicily", "Palermo", "Catania", "yd"),
                cmd("GEODIST", "Sicily", "Palermo", "Catania", "km", "x"),
                cmd("GEODIST", "nokey", "a", "b"),
                cmd("GEOHASH", "Sicily", "Palermo", "Catania", "missing"),
                cmd("GEOHASH", "edges", "ne", "sw", "origin"),
                cmd("GEOHASH", "pts", "p1", "p2", "p3"),
                cmd("GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHDIST", "WITHHASH", "WITHCOORD", "ASC"),
                cmd("GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHDIST", "DESC"),
                cmd("GEORADIUS", "Sicily", "15", "37", "200", "km", "COUNT", "1"),
                cmd("GEORADIUS_RO", "Sicily", "15", "37", "100", "mi", "WITHCOORD", "ASC"),
                cmd("GEORADIUSBYMEMBER", "Sicily", "Agrigento", "100", "km", "WITHDIST", "ASC"),
                cmd("GEORADIUSBYMEMBER_RO", "Sicily", "Agrigento", "100", "km", "ASC"),
                cmd("GEORADIUSBYMEMBER", "Sicily", "missing", "100", "km"),
                cmd("GEORADIUSBYMEMBER", "nokey", "missing", "100", "km"),
                cmd("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ASC", "WITHDIST"),
                cmd("GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "BYBOX", "400", "400", "km", "ASC", "WITHCOORD", "WITHDIST", "WITHHASH"),
                cmd("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "150", "150", "km", "DESC"),
                cmd("GEOSEARCH", "pts", "FROMLONLAT", "0", "45", "BYRADIUS", "300", "km", "ASC", "WITHDIST"),
                cmd("GEOSEARCH", "pts", "FROMMEMBER", "p7", "BYBOX", "500", "300", "km", "DESC", "COUNT", "25", "WITHDIST"),
                cmd("GEOSEARCH", "pts", "FROMLONLAT", "0", "45", "BYRADIUS", "300", "mi", "COUNT", "10", "WITHCOORD"),
                cmd("GEOSEARCH", "pts", "FROMLONLAT", "0", "45", "BYBOX", "200", "200", "ft", "ASC"),
                cmd("GEOSEARCHSTORE", "dst", "pts", "FROMLONLAT", "0", "45", "BYRADIUS", "250", "km", "ASC", "COUNT", "30"),
                cmd("ZRANGE", "dst", "0", "-1", "WITHSCORES"),
                cmd("GEOSEARCHSTORE", "dst", "pts", "FROMLONLAT", "0", "45", "BYRADIUS", "250", "km", "STOREDIST"),
                cmd("ZRANGE", "dst", "0", "-1", "WITHSCORES"),
                cmd("GEORADIUS", "pts", "0", "45", "250", "km", "STORE", "dst2"),
                cmd("ZRANGE", "dst2", "0", "-1", "WITHSCORES"),
                cmd("GEORADIUS", "pts", "0", "45", "250", "km", "STOREDIST", "dst2", "COUNT", "5", "DESC"),
                cmd("ZRANGE", "dst2", "0", "-1", "WITHSCORES"),
                cmd("GEOSEARCHSTORE", "dst2", "nokey", "FROMLONLAT", "0", "45", "BYRADIUS", "250", "km"),
                cmd("EXISTS", "dst2"),
                cmd("GEOSEARCHSTORE", "dst", "pts", "FROMLONLAT", "100", "0", "BYRADIUS", "1", "m"),
                cmd("EXISTS", "dst"),
                cmd("GEOSEARCH", "nokey", "FROMLONLAT", "0", "45", "BYRADIUS", "250", "km"),
                cmd("GEOSEARCH", "nokey", "FROMMEMBER", "x", "BYRADIUS", "250", "km"),
                cmd("GEOSEARCH", "Sicily", "FROMMEMBER", "nobody", "BYRADIUS", "250", "km"),
                cmd("GEOADD", "g", "200", "10", "a"),
                cmd("GEOADD", "g", "10", "86", "a"),
                cmd("GEOADD", "g", "x", "10", "a"),
                cmd("GEOADD", "g", "10", "10"),
                cmd("GEOADD", "g", "NX", "XX", "10", "10", "a"),
                cmd("GEOADD", "str", "10", "10", "a"),
                cmd("GEOPOS", "str", "a"),
                cmd("GEOSEARCH", "str", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"),
                cmd("GEOSEARCH", "Sicily", "FROMLONLAT", "0", "0", "BYRADIUS", "-1", "km"),
                cmd("GEOSEARCH", "Sicily", "FROMLONLAT", "0", "0", "BYRADIUS", "x", "km"),
                cmd("GEOSEARCH", "Sicily", "FROMLONLAT", "0", "0", "BYBOX", "1", "-1", "km"),
                cmd("GEOSEARCH", "Sicily", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "parsec"),
                cmd("GEOSEARCH", "Sicily", "BYRADIUS", "1", "km"),
                cmd("GEOSEARCH", "Sicily", "FROMLONLAT", "0", "0"),
                cmd("GEOSEARCH", "Sicily", "FROMLONLAT", "0", "0", "FROMMEMBER", "Palermo", "BYRADIUS", "1", "km"),
                cmd("GEOSEARCH", "Sicily", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km", "ANY"),
                cmd("GEOSEARCH", "Sicily", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km", "COUNT", "0"),
                cmd("GEOSEARCH", "Sicily", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km", "STORE", "x"),
                cmd("GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km", "WITHDIST"),
                cmd("GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "x", "WITHCOORD"),
                cmd("GEORADIUS_RO", "Sicily", "15", "37", "200", "km", "STORE", "x"));
        List<String[]> unordered = List.of(
                cmd("GEORADIUS", "Sicily", "15", "37", "200", "km"),
                cmd("GEOSEARCH", "pts", "FROMLONLAT", "0", "45", "BYRADIUS", "400", "km"),
                cmd("GEOSEARCH", "pts", "FROMLONLAT", "3", "47", "BYBOX", "600", "100", "km", "WITHDIST"));
        try (RespClient r = RespClient.connect(redis.port()); RespClient v = RespClient.connect(server.port())) {
            r.call("FLUSHALL");
            v.call("FLUSHALL");
            compare(r, v, setup, false);
            compare(r, v, ordered, false);
            compare(r, v, unordered, true);
            r.call("HELLO", "3");
            v.call("HELLO", "3");
            compare(r, v, List.of(cmd("GEODIST", "Sicily", "Palermo", "Catania"),
                    cmd("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ASC", "WITHDIST")), false);
        } catch (AssertionError e) {
            throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void lettuceReadsPositions(ProtocolVersion protocol) {
        try (Lettuce l = connect(protocol)) {
            RedisCommands<String, String> g = l.sync();
            assertEquals(2, g.geoadd("Sicily", 13.361389, 38.115556, "Palermo", 15.087269, 37.502669, "Catania"));
            GeoCoordinates palermo = g.geopos("Sicily", "Palermo").get(0);
            assertEquals(13.36138933897018433, palermo.getX().doubleValue(), 0);
            assertEquals(38.11555639549629859, palermo.getY().doubleValue(), 0);
            assertEquals(166.2742, g.geodist("Sicily", "Palermo", "Catania", GeoArgs.Unit.km), 0);
            assertEquals(List.of("Catania", "Palermo"), g.georadius("Sicily", 15, 37, 200, GeoArgs.Unit.km,
                    GeoArgs.Builder.distance().asc()).stream().map(v -> v.getMember()).toList());
        }
    }

    @Test
    void watchSeesGeoradiusStoreDestination() {
        try (Lettuce watcher = connect(ProtocolVersion.RESP2); Lettuce other = connect(ProtocolVersion.RESP2)) {
            RedisCommands<String, String> w = watcher.sync();
            w.geoadd("g", 1, 1, "a");
            w.watch("dest");
            w.multi();
            w.get("x");
            other.sync().dispatch(io.lettuce.core.protocol.CommandType.GEORADIUS,
                    new io.lettuce.core.output.IntegerOutput<>(io.lettuce.core.codec.StringCodec.UTF8),
                    new io.lettuce.core.protocol.CommandArgs<>(io.lettuce.core.codec.StringCodec.UTF8)
                            .addKey("g").add(1).add(1).add(10).add("km").add("STORE").addKey("dest"));
            TransactionResult result = w.exec();
            assertTrue(result.wasDiscarded(), "GEORADIUS ... STORE wrote the watched key");
            assertEquals(List.of("a"), w.zrange("dest", 0, -1));
        }
    }
}
