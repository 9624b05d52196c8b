package io.varve.core;

import java.nio.file.Path;
import java.util.OptionalLong;

/** Names of the files in a database directory; one place so recovery, writers and cleanup agree. */
final class DbFiles {

    static final String LOCK = "LOCK";
    static final String LOG_SUFFIX = ".log";
    static final String TABLE_SUFFIX = ".sst";

    private DbFiles() {
    }

    static Path log(Path dir, long number) {
        return dir.resolve(String.format("%06d%s", number, LOG_SUFFIX));
    }

    static Path table(Path dir, long number) {
        return dir.resolve(String.format("%06d%s", number, TABLE_SUFFIX));
    }

    /** The number of a file name like {@code 000012.log}, or empty if the name is not of that kind. */
    static OptionalLong parseNumber(String name, String suffix) {
        if (!name.endsWith(suffix)) {
            return OptionalLong.empty();
        }
        String digits = name.substring(0, name.length() - suffix.length());
        if (digits.isEmpty() || !digits.chars().allMatch(Character::isDigit) || digits.length() > 18) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(Long.parseLong(digits));
    }
}
