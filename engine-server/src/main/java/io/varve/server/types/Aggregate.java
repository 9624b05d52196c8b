package io.varve.server.types;

/** How ZUNION and ZINTER combine the weighted scores a member has in several inputs. */
public enum Aggregate {
    SUM, MIN, MAX;

    double combine(double a, double b) {
        return switch (this) {
            case SUM -> {
                double sum = a + b;
                yield Double.isNaN(sum) ? 0 : sum; // +inf + -inf
            }
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
        };
    }
}
