package io.varve.server.types.geo;

/**
 * Redis's geohash: a longitude and latitude as one 52-bit integer (26 bits each, interleaved, latitude in the
 * even bits), which GEOADD stores as the member's sorted-set score, and the haversine distance Redis measures
 * with. The constants and the arithmetic are redis-server's (geohash.c, geohash_helper.c), so scores,
 * decoded positions and distances come out bit for bit as its do.
 */
public final class GeoHash {

    public static final double LONGITUDE_MIN = -180;
    public static final double LONGITUDE_MAX = 180;
    /** Web Mercator's limits: scores cover these latitudes, not the poles. */
    public static final double LATITUDE_MIN = -85.05112878;
    public static final double LATITUDE_MAX = 85.05112878;

    private static final int STEP = 26;
    private static final double EARTH_RADIUS_METERS = 6372797.560856;
    private static final double DEGREES_TO_RADIANS = Math.PI / 180.0;
    private static final String BASE32 = "0123456789bcdefghjkmnpqrstuvwxyz";

    private GeoHash() {
    }

    /** Whether GEOADD and the searches accept the position. */
    public static boolean valid(double longitude, double latitude) {
        return longitude >= LONGITUDE_MIN && longitude <= LONGITUDE_MAX
                && latitude >= LATITUDE_MIN && latitude <= LATITUDE_MAX;
    }

    /** The score of a valid position. */
    public static long encode(double longitude, double latitude) {
        return encode(longitude, latitude, LATITUDE_MIN, LATITUDE_MAX);
    }

    private static long encode(double longitude, double latitude, double latitudeMin, double latitudeMax) {
        double latitudeOffset = (latitude - latitudeMin) / (latitudeMax - latitudeMin) * (1L << STEP);
        double longitudeOffset = (longitude - LONGITUDE_MIN) / (LONGITUDE_MAX - LONGITUDE_MIN) * (1L << STEP);
        return interleave((long) latitudeOffset & 0xFFFFFFFFL, (long) longitudeOffset & 0xFFFFFFFFL);
    }

    /** The position (longitude, latitude) a score stands for: the centre of its cell. */
    public static double[] decode(double score) {
        long bits = (long) score;
        long separated = deinterleave(bits);
        long latitudeCell = separated & 0xFFFFFFFFL;
        long longitudeCell = separated >>> 32;
        double cells = 1L << STEP;
        double latitudeScale = LATITUDE_MAX - LATITUDE_MIN;
        double longitudeScale = LONGITUDE_MAX - LONGITUDE_MIN;
        double latitudeLow = LATITUDE_MIN + (latitudeCell * 1.0 / cells) * latitudeScale;
        double latitudeHigh = LATITUDE_MIN + ((latitudeCell + 1) * 1.0 / cells) * latitudeScale;
        double longitudeLow = LONGITUDE_MIN + (longitudeCell * 1.0 / cells) * longitudeScale;
        double longitudeHigh = LONGITUDE_MIN + ((longitudeCell + 1) * 1.0 / cells) * longitudeScale;
        double longitude = Math.min(LONGITUDE_MAX, Math.max(LONGITUDE_MIN, (longitudeLow + longitudeHigh) / 2));
        double latitude = Math.min(LATITUDE_MAX, Math.max(LATITUDE_MIN, (latitudeLow + latitudeHigh) / 2));
        return new double[] {longitude, latitude};
    }

    /**
     * GEOHASH's 11-character string: the position re-encoded over the standard latitude range (-90..90), ten
     * base-32 characters of its 52 bits and a final '0', as Redis answers.
     */
    public static String standardString(double score) {
        double[] position = decode(score);
        long bits = encode(position[0], position[1], -90, 90);
        StringBuilder out = new StringBuilder(11);
        for (int i = 0; i < 10; i++) {
            out.append(BASE32.charAt((int) ((bits >>> (52 - (i + 1) * 5)) & 0x1F)));
        }
        return out.append('0').toString();
    }

    /** The haversine distance in metres on Redis's spherical earth. */
    public static double distance(double longitude1, double latitude1, double longitude2, double latitude2) {
        double lon1 = longitude1 * DEGREES_TO_RADIANS;
        double lon2 = longitude2 * DEGREES_TO_RADIANS;
        double v = Math.sin((lon2 - lon1) / 2);
        if (v == 0.0) {
            return latitudeDistance(latitude1, latitude2);
        }
        double lat1 = latitude1 * DEGREES_TO_RADIANS;
        double lat2 = latitude2 * DEGREES_TO_RADIANS;
        double u = Math.sin((lat2 - lat1) / 2);
        double a = u * u + Math.cos(lat1) * Math.cos(lat2) * v * v;
        return 2.0 * EARTH_RADIUS_METERS * Math.asin(Math.sqrt(a));
    }

    private static double latitudeDistance(double latitude1, double latitude2) {
        return EARTH_RADIUS_METERS * Math.abs(latitude2 * DEGREES_TO_RADIANS - latitude1 * DEGREES_TO_RADIANS);
    }

    /**
     * The distance from a box's centre to a point when the point lies in the box (width and height in metres,
     * measured along the point's latitude and the centre's meridian, as Redis does); -1 otherwise.
     */
    public static double distanceIfInBox(double widthMeters, double heightMeters, double centreLongitude,
                                         double centreLatitude, double longitude, double latitude) {
        if (latitudeDistance(latitude, centreLatitude) > heightMeters / 2) {
            return -1;
        }
        if (distance(longitude, latitude, centreLongitude, latitude) > widthMeters / 2) {
            return -1;
        }
        return distance(centreLongitude, centreLatitude, longitude, latitude);
    }

    /** Spreads the low 32 bits of {@code even} over the even bit positions and {@code odd}'s over the odd. */
    private static long interleave(long even, long odd) {
        return spread(even) | (spread(odd) << 1);
    }

    private static long spread(long v) {
        v &= 0xFFFFFFFFL;
        v = (v | (v << 16)) & 0x0000FFFF0000FFFFL;
        v = (v | (v << 8)) & 0x00FF00FF00FF00FFL;
        v = (v | (v << 4)) & 0x0F0F0F0F0F0F0F0FL;
        v = (v | (v << 2)) & 0x3333333333333333L;
        v = (v | (v << 1)) & 0x5555555555555555L;
        return v;
    }

    private static long squeeze(long v) {
        v &= 0x5555555555555555L;
        v = (v | (v >>> 1)) & 0x3333333333333333L;
        v = (v | (v >>> 2)) & 0x0F0F0F0F0F0F0F0FL;
        v = (v | (v >>> 4)) & 0x00FF00FF00FF00FFL;
        v = (v | (v >>> 8)) & 0x0000FFFF0000FFFFL;
        v = (v | (v >>> 16)) & 0x00000000FFFFFFFFL;
        return v;
    }

    /** The inverse of {@link #interleave}: even bits in the low word, odd bits in the high word. */
    private static long deinterleave(long bits) {
        return squeeze(bits) | (squeeze(bits >>> 1) << 32);
    }
}
