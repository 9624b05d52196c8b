package io.varve.server.command;

import io.varve.server.resp.RedisError;

import java.nio.charset.StandardCharsets;

/** Argument parsing with Redis's strictness and error texts. */
public final class Args {

    private Args() {
    }

    public static boolean isKeyword(byte[] arg, String keyword) {
        if (arg.length != keyword.length()) {
            return false;
        }
        for (int i = 0; i < arg.length; i++) {
            int c = arg[i] & 0xFF;
            if (c >= 'A' && c <= 'Z') {
                c += 'a' - 'A';
            }
            int k = keyword.charAt(i);
            if (k >= 'A' && k <= 'Z') {
                k += 'a' - 'A';
            }
            if (c != k) {
                return false;
            }
        }
        return true;
    }

    /** A decimal long as Redis accepts it, or {@link RedisError#NOT_INTEGER}. */
    public static long parseLong(byte[] arg) {
        Long v = tryParseLong(arg);
        if (v == null) {
            throw RedisError.notInteger();
        }
        return v;
    }

    /**
     * The value of a canonical decimal integer: optional minus, no plus, no leading zeros or spaces, within
     * 64 bits. Null otherwise. This is what Redis accepts where it wants an integer, so "007" and "+1" fail.
     */
    public static Long tryParseLong(byte[] arg) {
        int n = arg.length;
        if (n == 0 || n > 20) {
            return null;
        }
        if (n == 1 && arg[0] == '0') {
            return 0L;
        }
        int i = 0;
        boolean negative = arg[0] == '-';
        if (negative) {
            i++;
            if (n == 1) {
                return null;
            }
        }
        if (arg[i] < '1' || arg[i] > '9') {
            return null;
        }
        long value = 0; // accumulated negatively so Long.MIN_VALUE fits
        for (; i < n; i++) {
            int d = arg[i] - '0';
            if (d < 0 || d > 9) {
                return null;
            }
            if (value < (Long.MIN_VALUE + d) / 10) {
                return null;
            }
            value = value * 10 - d;
        }
        if (negative) {
            return value;
        }
        return value == Long.MIN_VALUE ? null : -value;
    }

    /** A finite double (Redis rejects NaN, and spaces around the number). */
    public static double parseDouble(byte[] arg) {
        String s = new String(arg, StandardCharsets.US_ASCII);
        if (s.isEmpty() || Character.isWhitespace(s.charAt(0)) || Character.isWhitespace(s.charAt(s.length() - 1))) {
            throw new RedisError(RedisError.NOT_FLOAT);
        }
        double d;
        String lower = s.toLowerCase(java.util.Locale.ROOT);
        switch (lower) {
            case "inf", "+inf", "infinity", "+infinity" -> d = Double.POSITIVE_INFINITY;
            case "-inf", "-infinity" -> d = Double.NEGATIVE_INFINITY;
            default -> {
                // Java also accepts hex floats and a trailing 'd'/'f'; Redis does not.
                if (lower.endsWith("d") || lower.endsWith("f") || lower.contains("x") || lower.contains("n")) {
                    throw new RedisError(RedisError.NOT_FLOAT);
                }
                try {
                    d = Double.parseDouble(s);
                } catch (NumberFormatException e) {
                    throw new RedisError(RedisError.NOT_FLOAT);
                }
                if (Double.isInfinite(d)) {
                    throw new RedisError(RedisError.NOT_FLOAT); // out of range ("1e400"), as strtod's ERANGE in Redis
                }
            }
        }
        if (Double.isNaN(d)) {
            throw new RedisError(RedisError.NOT_FLOAT);
        }
        return d;
    }

    public static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    public static byte[] bytes(long v) {
        return Long.toString(v).getBytes(StandardCharsets.US_ASCII);
    }
}
