package io.varve.core;

import java.nio.file.Path;
import java.util.OptionalLong;

/** Names of the files in a database directory; one place so recovery and writers agree. */
final class DbFiles {

    static final String LOCK = "LOCK";
    private static final String LOG_SUFFIX = ".log";

    private DbFiles() {
    }

    static Path log(Path dir, long number) {
        return dir.resolve(String.format("%06d%s", number, LOG_SUFFIX));
    }

    /** The number of a log file name, or empty if the name is not a log file's. */
    static OptionalLong parseLogNumber(String name) {
        if (!name.endsWith(LOG_SUFFIX)) {
            return OptionalLong.empty();
        }
        String digits = name.substring(0, name.length() - LOG_SUFFIX.length());
        if (digits.isEmpty() || !digits.chars().allMatch(Character::isDigit) || digits.length() > 18) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(Long.parseLong(digits));
    }
}
