package io.varve.server.command;

import java.util.ArrayList;
import java.util.List;

/**
 * RESP2 reply text as the in-process server returns it, written from and parsed into plain Java values:
 * bulk strings as String, integers as Long, arrays as List, nil as null, errors as {@link Error}.
 */
final class RespText {

    record Error(String message) {
    }

    private final String text;
    private int at;

    private RespText(String text) {
        this.text = text;
    }

    static Object parse(String text) {
        RespText p = new RespText(text);
        Object value = p.value();
        if (p.at != text.length()) {
            throw new IllegalArgumentException("trailing bytes after reply: " + text);
        }
        return value;
    }

    private String line() {
        int end = text.indexOf("\r\n", at);
        String line = text.substring(at, end);
        at = end + 2;
        return line;
    }

    private Object value() {
        char type = text.charAt(at++);
        String line = line();
        switch (type) {
            case '+':
                return line;
            case '-':
                return new Error(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                String s = text.substring(at, at + n);
                at += n + 2;
                return s;
            }
            case '*': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    items.add(value());
                }
                return items;
            }
            default:
                throw new IllegalArgumentException("not a RESP2 reply: " + text);
        }
    }
}
