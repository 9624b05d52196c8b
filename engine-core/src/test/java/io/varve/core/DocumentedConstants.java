package io.varve.core;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Checks that a section of docs/formats.md lists exactly the public static int constants of a format class,
 * with the same values: the document and the code cannot drift apart.
 */
public final class DocumentedConstants {

    private static final Path FORMATS = Path.of("..", "docs", "formats.md");

    private DocumentedConstants() {
    }

    /** Asserts that the table rows {@code | `NAME` | value |} in the section headed {@code heading} match. */
    public static void assertSectionMatches(String heading, Class<?> formatClass) throws IOException, IllegalAccessException {
        assertTrue(Files.exists(FORMATS), "missing " + FORMATS.toAbsolutePath());
        String formats = Files.readString(FORMATS);
        int start = formats.indexOf("\n## " + heading);
        assertTrue(start >= 0, "no section '" + heading + "' in " + FORMATS);
        int end = formats.indexOf("\n## ", start + 1);
        String section = end < 0 ? formats.substring(start) : formats.substring(start, end);
        Map<String, Long> documented = new HashMap<>();
        Matcher row = Pattern.compile("(?m)^\\|\\s*`([A-Z0-9_]+)`\\s*\\|\\s*`?(0x[0-9a-fA-F]+|\\d+)`?\\s*\\|").matcher(section);
        while (row.find()) {
            String value = row.group(2);
            documented.put(row.group(1), value.startsWith("0x")
                    ? Long.parseLong(value.substring(2), 16) : Long.parseLong(value));
        }
        int checked = 0;
        for (Field field : formatClass.getDeclaredFields()) {
            int modifiers = field.getModifiers();
            if (Modifier.isPublic(modifiers) && Modifier.isStatic(modifiers) && field.getType() == int.class) {
                Long value = documented.get(field.getName());
                assertTrue(value != null, field.getName() + " is not in the constants table of section " + heading);
                assertEquals(Integer.toUnsignedLong(field.getInt(null)), value, field.getName());
                checked++;
            }
        }
        assertEquals(checked, documented.size(), "section " + heading + " lists constants "
                + formatClass.getSimpleName() + " does not have: " + documented.keySet());
    }
}
