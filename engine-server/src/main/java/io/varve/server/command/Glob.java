package io.varve.server.command;

import java.io.ByteArrayOutputStream;

/**
 * Redis-style glob matching on bytes, for KEYS, SCAN MATCH, HSCAN MATCH and CONFIG GET: {@code *} any run,
 * {@code ?} one byte, {@code [abc]}, {@code [^abc]}, {@code [a-z]} classes, {@code \} escapes the next byte.
 * Iterative with backtracking to the last star only, so a hostile pattern costs O(pattern × text), not
 * exponential time.
 */
public final class Glob {

    private final byte[] pattern;

    public Glob(byte[] pattern) {
        this.pattern = pattern;
    }

    /** The literal bytes every match must start with (up to the first special character). */
    public byte[] literalPrefix() {
        ByteArrayOutputStream prefix = new ByteArrayOutputStream();
        for (int i = 0; i < pattern.length; i++) {
            byte b = pattern[i];
            if (b == '*' || b == '?' || b == '[') {
                break;
            }
            if (b == '\\') {
                if (i + 1 >= pattern.length) {
                    break;
                }
                b = pattern[++i];
            }
            prefix.write(b);
        }
        return prefix.toByteArray();
    }

    public boolean matchesAll() {
        return pattern.length == 1 && pattern[0] == '*';
    }

    public boolean matches(byte[] text) {
        int p = 0;
        int t = 0;
        int starP = -1;
        int starT = -1;
        while (t < text.length) {
            if (p < pattern.length) {
                byte pc = pattern[p];
                if (pc == '*') {
                    while (p < pattern.length && pattern[p] == '*') {
                        p++;
                    }
                    if (p == pattern.length) {
                        return true;
                    }
                    starP = p;
                    starT = t;
                    continue;
                }
                int next = matchOne(p, text[t]);
                if (next >= 0) {
                    p = next;
                    t++;
                    continue;
                }
            }
            if (starP < 0) {
                return false;
            }
            p = starP;
            t = ++starT;
        }
        while (p < pattern.length && pattern[p] == '*') {
            p++;
        }
        return p == pattern.length;
    }

    /** If the pattern element at {@code p} matches {@code c}, the index after that element; else -1. */
    private int matchOne(int p, byte c) {
        byte pc = pattern[p];
        if (pc == '?') {
            return p + 1;
        }
        if (pc == '\\' && p + 1 < pattern.length) {
            return pattern[p + 1] == c ? p + 2 : -1;
        }
        if (pc != '[') {
            return pc == c ? p + 1 : -1;
        }
        int i = p + 1;
        boolean negate = i < pattern.length && pattern[i] == '^';
        if (negate) {
            i++;
        }
        boolean matched = false;
        int u = c & 0xFF;
        while (i < pattern.length && pattern[i] != ']') {
            if (pattern[i] == '\\' && i + 1 < pattern.length) {
                matched |= pattern[i + 1] == c;
                i += 2;
            } else if (i + 2 < pattern.length && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
                int lo = pattern[i] & 0xFF;
                int hi = pattern[i + 2] & 0xFF;
                if (lo > hi) {
                    int tmp = lo;
                    lo = hi;
                    hi = tmp;
                }
                matched |= u >= lo && u <= hi;
                i += 3;
            } else {
                matched |= pattern[i] == c;
                i++;
            }
        }
        // An unterminated class ends at the end of the pattern, as in Redis.
        int after = i < pattern.length ? i + 1 : i;
        return matched != negate ? after : -1;
    }
}
