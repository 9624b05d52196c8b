package io.varve.core.internal.wal;

import io.varve.base.CorruptionException;
import java.nio.file.Path;

/**
 * The log ends part-way through a record: inside a header, inside a payload, or inside a chain of fragments
 * whose LAST fragment never arrived. This is what a crash during an unsynced write leaves behind, so recovery
 * modes that tolerate a torn tail catch this subclass while still failing on every other
 * {@link CorruptionException}. The offset is where the incomplete logical record starts: truncating the file
 * there removes exactly the torn record.
 */
public final class TruncatedRecordException extends CorruptionException {

    public TruncatedRecordException(Path file, long offset, String detail) {
        super(file, offset, detail);
    }
}
