package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.types.RedisSortedSets;
import io.varve.server.types.geo.GeoHash;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * GEOADD, GEOPOS, GEODIST and GEOHASH: positions kept as sorted-set scores ({@link GeoHash}), so a GEO key is
 * an ordinary sorted set (ZRANGE, ZREM and the rest apply), as in Redis. The searches are {@link GeoSearch}.
 */
final class GeoCommands {

    private GeoCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("geoadd", -5, "write denyoom", 1, 1, 1, GeoCommands::geoadd);
        b.add("geopos", -2, "readonly", 1, 1, 1, GeoCommands::geopos);
        b.add("geodist", -4, "readonly", 1, 1, 1, GeoCommands::geodist);
        b.add("geohash", -2, "readonly", 1, 1, 1, GeoCommands::geohash);
        GeoSearch.register(b);
    }

    private static void geoadd(CommandCall c) {
        boolean nx = false;
        boolean xx = false;
        boolean ch = false;
        int first = 2;
        for (; first < c.argCount(); first++) {
            if (c.argIs(first, "nx")) {
                nx = true;
            } else if (c.argIs(first, "xx")) {
                xx = true;
            } else if (c.argIs(first, "ch")) {
                ch = true;
            } else {
                break;
            }
        }
        if ((c.argCount() - first) % 3 != 0 || (nx && xx)) {
            throw RedisError.syntax();
        }
        int count = (c.argCount() - first) / 3;
        double[] scores = new double[count];
        List<byte[]> members = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            double[] position = position(c, first + 3 * i);
            scores[i] = GeoHash.encode(position[0], position[1]);
            members.add(c.arg(first + 3 * i + 2));
        }
        RedisSortedSets.AddOutcome outcome = c.types().sortedSets().add(c.arg(1), scores, members,
                new RedisSortedSets.AddRules(nx, xx, false, false, false));
        c.reply().integer(ch ? outcome.added() + outcome.updated() : outcome.added());
    }

    /** The longitude and latitude at {@code at} and {@code at + 1}, with Redis's errors. */
    static double[] position(CommandCall c, int at) {
        double longitude = Args.parseDouble(c.arg(at));
        double latitude = Args.parseDouble(c.arg(at + 1));
        if (!GeoHash.valid(longitude, latitude)) {
            throw new RedisError(String.format(Locale.ROOT, "ERR invalid longitude,latitude pair %f,%f",
                    longitude, latitude));
        }
        return new double[] {longitude, latitude};
    }

    /** Metres per unit, from a unit argument. */
    static double unit(byte[] unit) {
        if (Args.isKeyword(unit, "m")) {
            return 1;
        } else if (Args.isKeyword(unit, "km")) {
            return 1000;
        } else if (Args.isKeyword(unit, "ft")) {
            return 0.3048;
        } else if (Args.isKeyword(unit, "mi")) {
            return 1609.34;
        }
        throw new RedisError("ERR unsupported unit provided. please use M, KM, FT, MI");
    }

    /** The scores of the members named from the third argument on, null for each absent one, in their order. */
    private static List<Double> scoresOfNamedMembers(CommandCall c) {
        List<byte[]> members = new ArrayList<>();
        for (int i = 2; i < c.argCount(); i++) {
            members.add(c.arg(i));
        }
        return c.types().sortedSets().scores(c.arg(1), members);
    }

    private static void geopos(CommandCall c) {
        List<Double> scores = scoresOfNamedMembers(c);
        c.reply().arrayHeader(scores.size());
        for (Double score : scores) {
            if (score == null) {
                c.reply().nullArray();
            } else {
                double[] position = GeoHash.decode(score);
                c.reply().arrayHeader(2);
                coordinate(c.reply(), position[0]);
                coordinate(c.reply(), position[1]);
            }
        }
    }

    /** A coordinate as Redis writes it: 17 decimals, trailing zeros dropped (RESP3: a double). */
    static void coordinate(Reply reply, double value) {
        if (reply.resp3()) {
            reply.doubleValue(value);
        } else {
            reply.bulk(new BigDecimal(value).setScale(17, RoundingMode.HALF_EVEN).stripTrailingZeros()
                    .toPlainString());
        }
    }

    /** A distance as Redis writes it: four decimals, a bulk string in both protocols. */
    static void distance(Reply reply, double value) {
        reply.bulk(String.format(Locale.ROOT, "%.4f", value));
    }

    private static void geodist(CommandCall c) {
        double perUnit = 1;
        if (c.argCount() == 5) {
            perUnit = unit(c.arg(4));
        } else if (c.argCount() > 5) {
            throw RedisError.syntax();
        }
        List<Double> scores = c.types().sortedSets().scores(c.arg(1), List.of(c.arg(2), c.arg(3)));
        if (scores.get(0) == null || scores.get(1) == null) {
            c.reply().nil();
            return;
        }
        double[] a = GeoHash.decode(scores.get(0));
        double[] b = GeoHash.decode(scores.get(1));
        distance(c.reply(), GeoHash.distance(a[0], a[1], b[0], b[1]) / perUnit);
    }

    private static void geohash(CommandCall c) {
        List<Double> scores = scoresOfNamedMembers(c);
        c.reply().arrayHeader(scores.size());
        for (Double score : scores) {
            if (score == null) {
                c.reply().nil();
            } else {
                c.reply().bulk(GeoHash.standardString(score));
            }
        }
    }
}
