package io.varve.server.scripting;

import java.util.Locale;

/**
 * Numbers as Lua 5.1 prints them ({@code %.14g}: {@code 0.0003}, {@code 1e+20}, {@code 0.33333333333333}),
 * where LuaJ prints Java's forms ({@code 3.0E-4}). Used by {@code tostring}, {@code table.concat} and
 * {@code cjson}; LuaJ's own concatenation operator keeps LuaJ's form.
 */
final class LuaNumbers {

    private LuaNumbers() {
    }

    static String format(double d) {
        if (Double.isNaN(d)) {
            return "nan";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        if (d == Math.rint(d) && Math.abs(d) < 1e14) {
            return d == 0 && 1 / d < 0 ? "-0" : Long.toString((long) d);
        }
        String s = String.format(Locale.ROOT, "%.14g", d);
        int e = s.indexOf('e');
        String mantissa = e < 0 ? s : s.substring(0, e);
        String exponent = e < 0 ? "" : s.substring(e);
        if (mantissa.contains(".")) {
            mantissa = mantissa.replaceAll("0+$", "");
            if (mantissa.endsWith(".")) {
                mantissa = mantissa.substring(0, mantissa.length() - 1);
            }
        }
        return mantissa + exponent;
    }
}
