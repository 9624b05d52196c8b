package io.varve.core;

import java.nio.file.Path;

/**
 * A write, or another call that would change the directory, on a database opened with
 * {@link Db#openReadOnly}. An {@link UnsupportedOperationException}, so code written against a writable
 * {@link Db} that catches those keeps working.
 */
public final class ReadOnlyDbException extends UnsupportedOperationException {

    ReadOnlyDbException(Path dir, String operation) {
        super(operation + " refused: database " + dir + " is open read-only");
    }
}
