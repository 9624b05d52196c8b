package io.varve.core.backup;

import io.varve.core.internal.backup.BackupMetaFormat;
import io.varve.core.internal.backup.FileCopy;
import io.varve.base.CorruptionException;
import io.varve.base.fs.DiskFileSystem;
import io.varve.base.fs.FileSystem;
import io.varve.base.fs.ReadableFile;
import io.varve.base.fs.WritableFile;
import io.varve.core.internal.backup.BackupMetaFormat.FileEntry;
import io.varve.core.internal.backup.BackupMetaFormat.Meta;
import io.varve.core.Db;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/**
 * Numbered, incremental backups of a database in one directory (RocksDB's {@code BackupEngine} is the model).
 * Tables are immutable and named by number, so a table is stored once under {@code shared/} and every backup
 * that contains it refers to it; the rest of a backup (manifest, CURRENT, logs) is small and kept per backup
 * under {@code private/<id>/}. {@code meta/<id>} lists a backup's files with their sizes and checksums
 * ({@link BackupMetaFormat}).
 *
 * <h2>Crash safety</h2>
 * A backup becomes valid in one step, the rename of its synced meta file, after every file it names is
 * written and synced and their directories are synced. Until then it is invisible: {@link #listBackups} shows
 * only backups whose meta file exists and decodes, and whatever an interrupted backup left (temporary files,
 * a private directory without meta, shared tables no meta names) is deleted the next time the directory is
 * opened or purged. Deleting a backup removes its meta file first, so a crash halfway leaves either the
 * whole backup or garbage. The directory is locked while an engine has it open.
 *
 * <p>A restore copies every file and checks its size and checksum on the way; CURRENT is copied last, so an
 * interrupted restore leaves a directory that {@code Db.open} refuses rather than one it misreads.
 *
 * <p>Not thread-safe: one engine, used by one thread at a time, per backup directory.
 */
public final class BackupEngine implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(BackupEngine.class.getName());
    private static final String SHARED = "shared";
    private static final String PRIVATE = "private";
    private static final String META = "meta";
    private static final String TEMPORARY_SUFFIX = ".tmp";
    private static final String TABLE_SUFFIX = ".sst";
    private static final String CURRENT = "CURRENT";
    private static final String LOCK = "LOCK";
    /** Where {@link #createBackup(Db)} puts the checkpoint it backs up; removed afterwards. */
    private static final String CHECKPOINT = "checkpoint.tmp";

    private final FileSystem fs;
    private final Path root;
    private final FileSystem.FileLock lock;

    private BackupEngine(FileSystem fs, Path root, FileSystem.FileLock lock) {
        this.fs = fs;
        this.root = root;
        this.lock = lock;
    }

    /** Opens (creating if needed) the backup directory {@code root} on the local disk. */
    public static BackupEngine open(Path root) throws IOException {
        return open(root, DiskFileSystem.INSTANCE);
    }

    /** Opens (creating if needed) the backup directory {@code root} on {@code fs}. */
    public static BackupEngine open(Path root, FileSystem fs) throws IOException {
        for (String sub : List.of(SHARED, PRIVATE, META)) {
            fs.createDirectories(root.resolve(sub));
        }
        fs.syncDirectory(root);
        BackupEngine engine = new BackupEngine(fs, root, fs.lock(root.resolve(LOCK)));
        try {
            engine.collectGarbage();
        } catch (IOException | RuntimeException e) {
            engine.close();
            throw e;
        }
        return engine;
    }

    /**
     * Backs up a database directory that no process has open, such as a checkpoint. The directory is locked
     * for the length of the copy. Tables already stored by an earlier backup are not copied again.
     */
    public BackupInfo createBackup(Path databaseDir) throws IOException {
        try (FileSystem.FileLock ignored = fs.lock(databaseDir.resolve(LOCK))) {
            if (!fs.exists(databaseDir.resolve(CURRENT))) {
                throw new IllegalArgumentException(databaseDir + " holds no CURRENT file: not a database directory");
            }
            long id = nextId();
            Path privateDir = root.resolve(PRIVATE).resolve(Long.toString(id));
            try {
                fs.createDirectories(privateDir);
                List<FileEntry> files = new ArrayList<>();
                for (String name : fs.list(databaseDir)) {
                    if (isDatabaseFile(name)) {
                        Path source = databaseDir.resolve(name);
                        files.add(name.endsWith(TABLE_SUFFIX) ? storeShared(source, name)
                                : storePrivate(source, privateDir, name));
                    }
                }
                fs.syncDirectory(root.resolve(SHARED));
                fs.syncDirectory(privateDir);
                fs.syncDirectory(root.resolve(PRIVATE));
                Meta meta = new Meta(id, System.currentTimeMillis(), List.copyOf(files));
                writeMeta(meta);
                return info(meta);
            } catch (IOException | RuntimeException e) {
                try {
                    collectGarbage();
                } catch (IOException | RuntimeException cleanup) {
                    e.addSuppressed(cleanup);
                }
                throw e;
            }
        }
    }

    /**
     * Backs up a live database: makes a checkpoint of it ({@link Db#checkpoint(Path)}) in a temporary directory
     * inside the backup directory, backs that up with {@link #createBackup(Path)}, and deletes the checkpoint.
     * Writes go on meanwhile; the backup holds every write acknowledged before the call and is a prefix of
     * the database's commit order. The backup directory should be on the database's file system (this engine
     * and the database must use the same {@link FileSystem}), so the checkpoint's tables are hard links, not
     * copies.
     */
    public BackupInfo createBackup(Db db) throws IOException {
        for (String name : fs.list(root)) {
            if (name.startsWith(CHECKPOINT)) {
                deleteCheckpoint(root.resolve(name)); // left by a crash
            }
        }
        Path checkpoint = root.resolve(CHECKPOINT);
        for (int n = 1; fs.exists(checkpoint); n++) {
            checkpoint = root.resolve(CHECKPOINT + "-" + n); // a directory the file system could not remove
        }
        try {
            db.checkpoint(checkpoint);
            return createBackup(checkpoint);
        } finally {
            deleteCheckpoint(checkpoint);
        }
    }

    private void deleteCheckpoint(Path checkpoint) throws IOException {
        if (!fs.exists(checkpoint)) {
            return;
        }
        for (String name : fs.list(checkpoint)) {
            fs.delete(checkpoint.resolve(name));
        }
        try {
            fs.delete(checkpoint);
        } catch (IOException notRemovable) {
            // an empty directory left behind is harmless: the next backup reuses it
        }
        fs.syncDirectory(root);
    }

    /** The valid backups, oldest first. */
    public List<BackupInfo> listBackups() throws IOException {
        List<BackupInfo> result = new ArrayList<>();
        for (Meta meta : readAllMeta().values()) {
            result.add(info(meta));
        }
        return result;
    }

    /**
     * Reads every file of backup {@code id} and checks its size and checksum.
     *
     * @throws CorruptionException naming the first damaged or missing file
     */
    public void verifyBackup(long id) throws IOException {
        Meta meta = readMeta(id);
        for (FileEntry file : meta.files()) {
            Path stored = storedPath(meta.id(), file);
            if (!fs.exists(stored)) {
                throw new CorruptionException(stored, 0, "file of backup " + id + " is missing");
            }
            check(stored, file, FileCopy.summarize(fs, stored));
        }
    }

    /**
     * Restores backup {@code id} into {@code target}, which must not exist or be empty. Every file is checked
     * against its recorded size and checksum as it is copied; on damage the partial restore is deleted and a
     * {@link CorruptionException} names the damaged backup file.
     */
    public void restore(long id, Path target) throws IOException {
        Meta meta = readMeta(id);
        if (fs.exists(target) && !fs.list(target).isEmpty()) {
            throw new IllegalArgumentException("restore target " + target + " is not empty");
        }
        fs.createDirectories(target);
        List<Path> written = new ArrayList<>();
        try {
            FileEntry current = null;
            for (FileEntry file : meta.files()) {
                if (file.name().equals(CURRENT)) {
                    current = file;
                    continue;
                }
                restoreFile(meta.id(), file, target, written);
            }
            fs.syncDirectory(target);
            if (current == null) {
                throw new CorruptionException(root.resolve(META).resolve(Long.toString(id)), 0,
                        "backup " + id + " has no CURRENT file");
            }
            restoreFile(meta.id(), current, target, written);
            fs.syncDirectory(target);
        } catch (IOException | RuntimeException e) {
            for (Path path : written) {
                try {
                    fs.delete(path);
                } catch (IOException cleanup) {
                    e.addSuppressed(cleanup);
                }
            }
            throw e;
        }
    }

    /** Deletes backup {@code id} and every stored file no other backup uses. */
    public void deleteBackup(long id) throws IOException {
        readMeta(id);
        fs.delete(root.resolve(META).resolve(Long.toString(id)));
        fs.syncDirectory(root.resolve(META));
        collectGarbage();
    }

    /** Keeps the newest {@code keep} backups and deletes the others. */
    public void purgeOldBackups(int keep) throws IOException {
        if (keep < 0) {
            throw new IllegalArgumentException("keep must be >= 0: " + keep);
        }
        List<Long> ids = new ArrayList<>(readAllMeta().keySet());
        if (ids.size() <= keep) {
            return;
        }
        for (long id : ids.subList(0, ids.size() - keep)) {
            fs.delete(root.resolve(META).resolve(Long.toString(id)));
        }
        fs.syncDirectory(root.resolve(META));
        collectGarbage();
    }

    @Override
    public void close() throws IOException {
        lock.close();
    }

    private FileEntry storeShared(Path source, String name) throws IOException {
        Path temporary = root.resolve(SHARED).resolve(name + TEMPORARY_SUFFIX);
        FileCopy.Summary copied = FileCopy.copy(fs, source, temporary);
        FileEntry entry = new FileEntry(true, name, copied.size(), copied.crc());
        Path stored = storedPath(0, entry);
        if (fs.exists(stored)) {
            fs.delete(temporary);
        } else {
            fs.rename(temporary, stored);
        }
        return entry;
    }

    private FileEntry storePrivate(Path source, Path privateDir, String name) throws IOException {
        FileCopy.Summary copied = FileCopy.copy(fs, source, privateDir.resolve(name));
        return new FileEntry(false, name, copied.size(), copied.crc());
    }

    private void restoreFile(long id, FileEntry file, Path target, List<Path> written) throws IOException {
        Path stored = storedPath(id, file);
        if (!fs.exists(stored)) {
            throw new CorruptionException(stored, 0, "file of backup " + id + " is missing");
        }
        Path destination = target.resolve(file.name());
        written.add(destination);
        check(stored, file, FileCopy.copy(fs, stored, destination));
    }

    private static void check(Path stored, FileEntry file, FileCopy.Summary actual) throws CorruptionException {
        if (actual.size() != file.size()) {
            throw new CorruptionException(stored, Math.min(actual.size(), file.size()), "backup file has "
                    + actual.size() + " bytes, recorded " + file.size());
        }
        if (actual.crc() != file.crc()) {
            throw new CorruptionException(stored, 0, "backup file checksum mismatch");
        }
    }

    /** Shared tables are named by original name, checksum and size, so different tables never collide. */
    private Path storedPath(long id, FileEntry file) {
        if (!file.shared()) {
            return root.resolve(PRIVATE).resolve(Long.toString(id)).resolve(file.name());
        }
        String base = file.name().substring(0, file.name().length() - TABLE_SUFFIX.length());
        return root.resolve(SHARED).resolve(base + "_" + Integer.toHexString(file.crc()) + "_" + file.size()
                + TABLE_SUFFIX);
    }

    private void writeMeta(Meta meta) throws IOException {
        Path metaDir = root.resolve(META);
        Path temporary = metaDir.resolve(meta.id() + TEMPORARY_SUFFIX);
        try (WritableFile out = fs.create(temporary)) {
            out.write(ByteBuffer.wrap(BackupMetaFormat.encode(meta)));
            out.sync();
        }
        fs.rename(temporary, metaDir.resolve(Long.toString(meta.id())));
        fs.syncDirectory(metaDir);
    }

    private Meta readMeta(long id) throws IOException {
        Path path = root.resolve(META).resolve(Long.toString(id));
        if (!fs.exists(path)) {
            throw new IllegalArgumentException("no backup " + id + " in " + root);
        }
        byte[] bytes;
        try (ReadableFile in = fs.openReadable(path)) {
            long size = in.size();
            if (size > Integer.MAX_VALUE - 8) {
                throw new CorruptionException(path, 0, "backup meta file of " + size + " bytes");
            }
            ByteBuffer buffer = ByteBuffer.allocate((int) size);
            in.readFully(buffer, 0);
            bytes = buffer.array();
        }
        Meta meta = BackupMetaFormat.decode(path, bytes);
        if (meta.id() != id) {
            throw new CorruptionException(path, 5, "meta file of backup " + id + " describes backup " + meta.id());
        }
        return meta;
    }

    /** Every backup whose meta file decodes, by id; damaged ones are logged and left out. */
    private TreeMap<Long, Meta> readAllMeta() throws IOException {
        TreeMap<Long, Meta> all = new TreeMap<>();
        for (String name : fs.list(root.resolve(META))) {
            Long id = parseId(name);
            if (id == null) {
                continue;
            }
            try {
                all.put(id, readMeta(id));
            } catch (CorruptionException e) {
                LOG.log(System.Logger.Level.WARNING, "leaving out damaged backup " + id + ": " + e.getMessage());
            }
        }
        return all;
    }

    private long nextId() throws IOException {
        long highest = 0;
        for (String sub : List.of(META, PRIVATE)) {
            for (String name : fs.list(root.resolve(sub))) {
                String digits = name.endsWith(TEMPORARY_SUFFIX)
                        ? name.substring(0, name.length() - TEMPORARY_SUFFIX.length()) : name;
                Long id = parseId(digits);
                if (id != null) {
                    highest = Math.max(highest, id);
                }
            }
        }
        return highest + 1;
    }

    /**
     * Deletes what no valid backup refers to: temporary files, private directories without meta, and shared
     * tables no meta names. A damaged meta file keeps its files, so a later repair can still use them.
     */
    private void collectGarbage() throws IOException {
        Set<String> referenced = new HashSet<>();
        Set<String> liveIds = new HashSet<>();
        for (String name : fs.list(root.resolve(META))) {
            if (name.endsWith(TEMPORARY_SUFFIX)) {
                fs.delete(root.resolve(META).resolve(name));
                continue;
            }
            Long id = parseId(name);
            if (id == null) {
                continue;
            }
            liveIds.add(name);
            try {
                for (FileEntry file : readMeta(id).files()) {
                    if (file.shared()) {
                        referenced.add(storedPath(id, file).getFileName().toString());
                    }
                }
            } catch (CorruptionException damaged) {
                return; // cannot tell which shared tables it needs: delete nothing
            }
        }
        for (String name : fs.list(root.resolve(PRIVATE))) {
            if (!liveIds.contains(name)) {
                Path dir = root.resolve(PRIVATE).resolve(name);
                for (String file : fs.list(dir)) {
                    fs.delete(dir.resolve(file));
                }
                fs.delete(dir);
            }
        }
        for (String name : fs.list(root.resolve(SHARED))) {
            if (!referenced.contains(name)) {
                fs.delete(root.resolve(SHARED).resolve(name));
            }
        }
        for (String sub : List.of(META, PRIVATE, SHARED)) {
            fs.syncDirectory(root.resolve(sub));
        }
    }

    /** The files a database directory is made of: CURRENT, manifests, logs and tables. */
    private static boolean isDatabaseFile(String name) {
        return name.equals(CURRENT) || name.matches("MANIFEST-[0-9]+") || name.matches("[0-9]+\\.(sst|log)");
    }

    private static Long parseId(String name) {
        if (name.isEmpty() || name.length() > 18 || !name.chars().allMatch(Character::isDigit)) {
            return null;
        }
        return Long.parseLong(name);
    }

    private static BackupInfo info(Meta meta) {
        return new BackupInfo(meta.id(), Instant.ofEpochMilli(meta.createdMillis()), meta.totalBytes(),
                meta.files().size());
    }
}
