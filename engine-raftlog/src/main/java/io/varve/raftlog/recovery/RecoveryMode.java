package io.varve.raftlog.recovery;

/**
 * What recovery does when a log file fails validation. In every mode the footer checksum of each batch (which
 * covers its header and footer) is verified; entry payloads are not read at open, so their checksum is
 * checked when they are first read. See docs/raftlog.md, "Recovery modes".
 */
public enum RecoveryMode {
    /** Any problem, including a torn tail after a crash, fails the open with a CorruptionException. */
    ABSOLUTE_CONSISTENCY,
    /**
     * A damaged tail of the last file of a queue is cut off and the batches before it are kept: the file is
     * cut at its first unreadable batch (a batch cut short, zero-filled sectors, any bytes a disk returned in
     * place of the unsynced writes, entries torn since the last sync) when no batch of the file bound after a
     * sync follows it; unsynced valid batches after it go with it. Damage followed by a batch bound after a
     * sync (the damaged bytes had been durable), or in any other file, fails the open.
     */
    TOLERATE_TAIL_CORRUPTION,
    /**
     * Each damaged file keeps the batches before its first damaged one and loses the rest; a file whose header
     * is damaged is set aside (renamed *.corrupt); a group left with a hole in its log keeps only the
     * entries after the hole. Never fails for corruption.
     */
    TOLERATE_ANY_CORRUPTION
}
