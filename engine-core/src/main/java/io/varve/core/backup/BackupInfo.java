package io.varve.core.backup;

import java.time.Instant;

/**
 * One valid backup: its id (increasing with each backup), when it was made, the bytes and files it is made
 * of (tables shared with other backups counted in each).
 */
public record BackupInfo(long id, Instant created, long sizeBytes, int fileCount) {
}
