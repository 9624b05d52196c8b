package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.types.Scored;
import io.varve.server.types.geo.GeoHash;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * GEOSEARCH, GEOSEARCHSTORE, GEORADIUS, GEORADIUSBYMEMBER and their _RO forms, parsed and answered as
 * redis-server's georadiusGeneric does (same option rules, errors, reply shapes and STORE results).
 *
 * <p>Where Redis visits the nine geohash cells around the centre, this reads every member of the set and
 * keeps those inside the shape by the same distance test on the same decoded positions, so the members found
 * and their distances are Redis's; the cost is linear in the set's size. Without ASC/DESC the order is the
 * set's score order (Redis's is its cell order), and COUNT ANY stops at the first matches in that order.
 */
final class GeoSearch {

    private enum Sort { NONE, ASC, DESC }

    private static final int FROM_COORDINATES = 1;
    private static final int FROM_MEMBER = 2;
    private static final int NO_STORE = 4;
    private static final int SEARCH = 8;
    private static final int SEARCH_STORE = 16;

    private GeoSearch() {
    }

    static void register(CommandTable.Builder b) {
        List<KeySpec> radiusKeys = List.of(KeySpec.single(1),
                new KeySpec(2, new KeySpec.StoreOption(List.of("store", "storedist"))));
        b.add("georadius", -6, "write denyoom", radiusKeys, c -> run(c, 1, FROM_COORDINATES));
        b.add("georadiusbymember", -5, "write denyoom", radiusKeys, c -> run(c, 1, FROM_MEMBER));
        b.add("georadius_ro", -6, "readonly", 1, 1, 1, c -> run(c, 1, FROM_COORDINATES | NO_STORE));
        b.add("georadiusbymember_ro", -5, "readonly", 1, 1, 1, c -> run(c, 1, FROM_MEMBER | NO_STORE));
        b.add("geosearch", -7, "readonly", 1, 1, 1, c -> run(c, 1, SEARCH));
        b.add("geosearchstore", -8, "write denyoom", 1, 2, 1, c -> run(c, 2, SEARCH | SEARCH_STORE));
    }

    /** A member found, with its decoded position and distance from the centre in metres. */
    private record Found(byte[] member, double score, double longitude, double latitude, double meters) {
    }

    /** The shape searched: a radius, or a box's width and height; all in the request's unit. */
    private static final class Shape {
        double[] centre;
        boolean box;
        double radius;
        double width;
        double height;
        double perUnit = 1;

        double distanceIfInside(double longitude, double latitude) {
            if (box) {
                return GeoHash.distanceIfInBox(width * perUnit, height * perUnit, centre[0], centre[1], longitude,
                        latitude);
            }
            double d = GeoHash.distance(centre[0], centre[1], longitude, latitude);
            return d > radius * perUnit ? -1 : d;
        }
    }

    private static double[] memberPosition(CommandCall c, byte[] key, byte[] member) {
        Double score = c.types().sortedSets().scores(key, List.of(member)).get(0);
        if (score == null) {
            throw new RedisError("ERR could not decode requested zset member");
        }
        return GeoHash.decode(score);
    }

    private static void radius(CommandCall c, int at, Shape shape) {
        double radius = parseDouble(c.arg(at), "ERR need numeric radius");
        if (radius < 0) {
            throw new RedisError("ERR radius cannot be negative");
        }
        shape.radius = radius;
        shape.perUnit = GeoCommands.unit(c.arg(at + 1));
        shape.box = false;
    }

    private static double parseDouble(byte[] arg, String error) {
        try {
            return Args.parseDouble(arg);
        } catch (RedisError notANumber) {
            throw new RedisError(error);
        }
    }

    private static void run(CommandCall c, int sourceAt, int flags) {
        byte[] key = c.arg(sourceAt);
        boolean exists = c.types().keys().type(key) != null;
        c.types().sortedSets().size(key); // WRONGTYPE before anything else, as Redis checks the type first
        Shape shape = new Shape();
        int base;
        byte[] store = null;
        boolean storeDistance = false;
        if ((flags & FROM_COORDINATES) != 0) {
            base = 6;
            shape.centre = GeoCommands.position(c, 2);
            radius(c, 4, shape);
        } else if ((flags & FROM_MEMBER) != 0) {
            base = 5;
            if (exists) {
                shape.centre = memberPosition(c, key, c.arg(2));
                radius(c, 3, shape);
            }
        } else {
            base = (flags & SEARCH_STORE) != 0 ? 3 : 2;
            if ((flags & SEARCH_STORE) != 0) {
                store = c.arg(1);
            }
        }
        boolean withDist = false;
        boolean withHash = false;
        boolean withCoord = false;
        boolean fromMember = false;
        boolean fromLonLat = false;
        boolean byRadius = false;
        boolean byBox = false;
        boolean any = false;
        Sort sort = Sort.NONE;
        long count = 0;
        int remaining = c.argCount() - base;
        for (int i = 0; i < remaining; i++) {
            int at = base + i;
            boolean search = (flags & SEARCH) != 0;
            if (c.argIs(at, "withdist")) {
                withDist = true;
            } else if (c.argIs(at, "withhash")) {
                withHash = true;
            } else if (c.argIs(at, "withcoord")) {
                withCoord = true;
            } else if (c.argIs(at, "any")) {
                any = true;
            } else if (c.argIs(at, "asc")) {
                sort = Sort.ASC;
            } else if (c.argIs(at, "desc")) {
                sort = Sort.DESC;
            } else if (c.argIs(at, "count") && i + 1 < remaining) {
                count = c.argLong(at + 1);
                if (count <= 0) {
                    throw new RedisError("ERR COUNT must be > 0");
                }
                i++;
            } else if ((c.argIs(at, "store") || c.argIs(at, "storedist")) && i + 1 < remaining
                    && (flags & NO_STORE) == 0 && !search) {
                storeDistance = c.argIs(at, "storedist");
                store = c.arg(at + 1);
                i++;
            } else if (c.argIs(at, "storedist") && search && (flags & SEARCH_STORE) != 0) {
                storeDistance = true;
            } else if (c.argIs(at, "frommember") && i + 1 < remaining && search && !fromLonLat) {
                if (exists) {
                    shape.centre = memberPosition(c, key, c.arg(at + 1));
                }
                fromMember = true;
                i++;
            } else if (c.argIs(at, "fromlonlat") && i + 2 < remaining && search && !fromMember) {
                shape.centre = GeoCommands.position(c, at + 1);
                fromLonLat = true;
                i += 2;
            } else if (c.argIs(at, "byradius") && i + 2 < remaining && search && !byBox) {
                radius(c, at + 1, shape);
                byRadius = true;
                i += 2;
            } else if (c.argIs(at, "bybox") && i + 3 < remaining && search && !byRadius) {
                double width = parseDouble(c.arg(at + 1), "ERR need numeric width");
                double height = parseDouble(c.arg(at + 2), "ERR need numeric height");
                if (height < 0 || width < 0) {
                    throw new RedisError("ERR height or width cannot be negative");
                }
                shape.width = width;
                shape.height = height;
                shape.perUnit = GeoCommands.unit(c.arg(at + 3));
                shape.box = true;
                byBox = true;
                i += 3;
            } else {
                throw RedisError.syntax();
            }
        }
        String name = c.spec().name();
        if (store != null && (withDist || withHash || withCoord)) {
            throw new RedisError("ERR " + ((flags & SEARCH_STORE) != 0 ? "GEOSEARCHSTORE"
                    : "STORE option in GEORADIUS") + " is not compatible with WITHDIST, WITHHASH and WITHCOORD options");
        }
        if ((flags & SEARCH) != 0 && !(fromMember || fromLonLat)) {
            throw new RedisError("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + c.argText(0));
        }
        if ((flags & SEARCH) != 0 && !(byRadius || byBox)) {
            throw new RedisError("ERR exactly one of BYRADIUS and BYBOX can be specified for " + c.argText(0));
        }
        if (any && count == 0) {
            throw new RedisError("ERR the ANY argument requires COUNT argument");
        }
        if (count != 0 && sort == Sort.NONE && !any) {
            sort = Sort.ASC;
        }
        long limit = count;
        Sort order = sort;
        boolean anyFirst = any;
        if (store != null) {
            boolean distances = storeDistance;
            double perUnit = shape.perUnit;
            long stored = exists ? c.types().sortedSets().selectInto(store, key, all -> {
                List<Scored> picked = new ArrayList<>();
                for (Found f : search(all, shape, limit, order, anyFirst)) {
                    picked.add(new Scored(f.member(), distances ? f.meters() / perUnit : f.score()));
                }
                return picked;
            }) : c.types().sortedSets().selectInto(store, key, all -> List.of());
            c.reply().integer(stored);
            return;
        }
        if (!exists) {
            c.reply().arrayHeader(0);
            return;
        }
        List<Found> found = search(c.types().sortedSets().all(key), shape, limit, order, anyFirst);
        reply(c.reply(), found, shape.perUnit, withDist, withHash, withCoord);
    }

    private static List<Found> search(List<Scored> all, Shape shape, long count, Sort sort, boolean any) {
        List<Found> found = new ArrayList<>();
        for (Scored s : all) {
            double[] position = GeoHash.decode(s.score());
            double meters = shape.distanceIfInside(position[0], position[1]);
            if (meters >= 0) {
                found.add(new Found(s.member(), s.score(), position[0], position[1], meters));
                if (any && found.size() == count) {
                    break;
                }
            }
        }
        if (sort != Sort.NONE) {
            Comparator<Found> byDistance = Comparator.comparingDouble(Found::meters);
            found.sort(sort == Sort.ASC ? byDistance : byDistance.reversed());
        }
        if (count > 0 && found.size() > count) {
            return found.subList(0, (int) count);
        }
        return found;
    }

    private static void reply(Reply r, List<Found> found, double perUnit, boolean withDist, boolean withHash,
                              boolean withCoord) {
        int options = (withDist ? 1 : 0) + (withHash ? 1 : 0) + (withCoord ? 1 : 0);
        r.arrayHeader(found.size());
        for (Found f : found) {
            if (options > 0) {
                r.arrayHeader(options + 1);
            }
            r.bulk(f.member());
            if (withDist) {
                GeoCommands.distance(r, f.meters() / perUnit);
            }
            if (withHash) {
                r.integer((long) f.score());
            }
            if (withCoord) {
                r.arrayHeader(2);
                GeoCommands.coordinate(r, f.longitude());
                GeoCommands.coordinate(r, f.latitude());
            }
        }
    }
}
