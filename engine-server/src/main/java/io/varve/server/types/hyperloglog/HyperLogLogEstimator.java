package io.varve.server.types.hyperloglog;

import static io.varve.server.types.hyperloglog.HyperLogLogLayout.Q;
import static io.varve.server.types.hyperloglog.HyperLogLogLayout.REGISTERS;

/**
 * The cardinality of a register histogram by Otmar Ertl's improved estimator ("New cardinality estimation
 * algorithms for HyperLogLog sketches", arXiv:1702.01284), the one redis-server uses, so both count alike.
 */
final class HyperLogLogEstimator {

    /** 0.5 / ln 2. */
    private static final double ALPHA_INF = 0.721347520444481703680;

    private HyperLogLogEstimator() {
    }

    /** @param histogram how many registers hold each value (index = register value) */
    static long cardinality(int[] histogram) {
        double m = REGISTERS;
        double z = m * tau((m - histogram[Q + 1]) / m);
        for (int j = Q; j >= 1; --j) {
            z += histogram[j];
            z *= 0.5;
        }
        z += m * sigma(histogram[0] / m);
        return Math.round(ALPHA_INF * m * m / z);
    }

    private static double sigma(double x) {
        if (x == 1.0) {
            return Double.POSITIVE_INFINITY;
        }
        double y = 1;
        double z = x;
        double previous;
        do {
            x *= x;
            previous = z;
            z += x * y;
            y += y;
        } while (previous != z);
        return z;
    }

    private static double tau(double x) {
        if (x == 0.0 || x == 1.0) {
            return 0.0;
        }
        double y = 1.0;
        double z = 1 - x;
        double previous;
        do {
            x = Math.sqrt(x);
            previous = z;
            y *= 0.5;
            z -= Math.pow(1 - x, 2) * y;
        } while (previous != z);
        return z / 3;
    }
}
