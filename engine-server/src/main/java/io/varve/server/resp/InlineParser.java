package io.varve.server.resp;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits an inline command line into arguments the way redis-cli users expect: whitespace separates
 * arguments; "double quotes" allow escapes ({@code \n \r \t \b \a \\ \" \xHH}); 'single quotes' allow only
 * {@code \'}; a closing quote must be followed by whitespace or the end of the line.
 */
public final class InlineParser {

    private InlineParser() {
    }

    /** The arguments, or null when quotes are unbalanced or a closing quote is followed by a character. */
    public static List<byte[]> split(byte[] line) {
        List<byte[]> result = new ArrayList<>();
        int i = 0;
        int n = line.length;
        while (true) {
            while (i < n && isSpace(line[i])) {
                i++;
            }
            if (i >= n) {
                return result;
            }
            ByteArrayOutputStream arg = new ByteArrayOutputStream();
            byte first = line[i];
            if (first == '"') {
                i++;
                while (true) {
                    if (i >= n) {
                        return null;
                    }
                    byte b = line[i];
                    if (b == '\\' && i + 3 < n && line[i + 1] == 'x' && isHex(line[i + 2]) && isHex(line[i + 3])) {
                        arg.write(Character.digit(line[i + 2], 16) * 16 + Character.digit(line[i + 3], 16));
                        i += 4;
                    } else if (b == '\\' && i + 1 < n) {
                        arg.write(switch (line[i + 1]) {
                            case 'n' -> '\n';
                            case 'r' -> '\r';
                            case 't' -> '\t';
                            case 'b' -> '\b';
                            case 'a' -> 7;
                            default -> line[i + 1];
                        });
                        i += 2;
                    } else if (b == '"') {
                        i++;
                        if (i < n && !isSpace(line[i])) {
                            return null;
                        }
                        break;
                    } else {
                        arg.write(b);
                        i++;
                    }
                }
            } else if (first == '\'') {
                i++;
                while (true) {
                    if (i >= n) {
                        return null;
                    }
                    byte b = line[i];
                    if (b == '\\' && i + 1 < n && line[i + 1] == '\'') {
                        arg.write('\'');
                        i += 2;
                    } else if (b == '\'') {
                        i++;
                        if (i < n && !isSpace(line[i])) {
                            return null;
                        }
                        break;
                    } else {
                        arg.write(b);
                        i++;
                    }
                }
            } else {
                while (i < n && !isSpace(line[i])) {
                    arg.write(line[i++]);
                }
            }
            result.add(arg.toByteArray());
        }
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == 0x0B || b == '\f';
    }

    private static boolean isHex(byte b) {
        return Character.digit(b, 16) >= 0;
    }
}
