package io.varve.server.resp;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Redis's text for a double reply (ZSCORE, ZINCRBY, RESP3 doubles): the shortest digits that read back as
 * the same double, laid out as C's {@code %.17g} lays them out — plain notation for decimal exponents from
 * -4 to 16, otherwise {@code d.ddde+XX} — and {@code inf}/{@code -inf}. So 1 is "1", 1.5 is "1.5", 0.1 is
 * "0.1", 1e20 is "1e+20" and 0.00001 is "1e-05", as Redis 7.2 prints them.
 */
public final class DoubleFormat {

    private DoubleFormat() {
    }

    public static String format(double value) {
        if (Double.isInfinite(value)) {
            return value > 0 ? "inf" : "-inf";
        }
        if (Double.isNaN(value)) {
            return "nan";
        }
        if (value == 0) {
            return (Double.doubleToRawLongBits(value) < 0) ? "-0" : "0";
        }
        // Double.toString gives the shortest round-tripping digits; BigDecimal takes them apart.
        BigDecimal exact = new BigDecimal(Double.toString(value)).stripTrailingZeros();
        if (exact.precision() == 2) {
            // Java prints at least two digits in scientific form (4.9E-324) even when one reads back (5e-324).
            BigDecimal one = exact.round(new MathContext(1, RoundingMode.HALF_EVEN));
            if (one.doubleValue() == value) {
                exact = one.stripTrailingZeros();
            }
        }
        String digits = exact.unscaledValue().abs().toString();
        int exponent = digits.length() - 1 - exact.scale();
        StringBuilder out = new StringBuilder(24);
        if (value < 0) {
            out.append('-');
        }
        if (exponent < -4 || exponent >= 17) {
            out.append(digits.charAt(0));
            if (digits.length() > 1) {
                out.append('.').append(digits, 1, digits.length());
            }
            out.append('e').append(exponent < 0 ? '-' : '+');
            int magnitude = Math.abs(exponent);
            if (magnitude < 10) {
                out.append('0');
            }
            return out.append(magnitude).toString();
        }
        if (exponent < 0) {
            out.append("0.");
            out.append("0".repeat(-exponent - 1)).append(digits);
        } else if (digits.length() <= exponent + 1) {
            out.append(digits).append("0".repeat(exponent + 1 - digits.length()));
        } else {
            out.append(digits, 0, exponent + 1).append('.').append(digits, exponent + 1, digits.length());
        }
        return out.toString();
    }
}
