package io.varve.base.fs;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A strict in-memory file system that can simulate a machine crash.
 *
 * <p>It keeps, for every file, how many bytes have been synced, and for every directory, the entries as of
 * its last {@link #syncDirectory}. {@link #crash()} throws away everything a real machine crash could lose:
 * unsynced bytes, and names created, renamed or deleted since the directory was last synced. Handles opened
 * before the crash fail afterwards, as the process that owned them is gone.
 *
 * <p>Creating truncates by making a fresh file. A file keeps its synced length and, when bytes below it were
 * overwritten ({@link #openForOverwrite}) since the last sync, the old content of the one range covering
 * them: bytes outside that range are unchanged since the sync, so one range describes every state a crash
 * can leave. A crash restores, sub-range by sub-range at random, old or new content inside it.
 *
 * <p>Names: by default a crash brings every directory back to its entries as of its last sync.
 * {@link #crashKeepingSomeNames(Random)} is harsher and closer to what a file system may do without a directory
 * sync: each directory change since the last sync (a creation, a rename, a deletion, a link) survives or is
 * lost on its own, independently of the others and of the files' data, and the survivors are applied in
 * their original order. A rename inside one directory stays atomic (the file has the old name or the new one,
 * never both nor neither); one across directories is two changes, one per directory.
 *
 * <p>Directories are durable as soon as they are created. All methods synchronize on the instance: this is
 * a test fixture, built for exactness rather than speed.
 */
public final class MemFileSystem implements FileSystem {

    /** The unit in which a crash loses unsynced appended bytes: a disk sector, the smallest hole a disk leaves. */
    static final int SECTOR = 512;

    private static final class Inode {
        byte[] data = new byte[64];
        int length;
        int syncedLength;
        /** Content as of the last sync of [oldFrom, oldTo), a range below syncedLength overwritten since. */
        byte[] old;
        int oldFrom;
        int oldTo;

        /** Before bytes [from, to) are overwritten: remembers the synced content the write replaces. */
        void saveOld(int from, int to) {
            to = Math.min(to, syncedLength);
            if (from >= to) {
                return;
            }
            if (old == null) {
                old = Arrays.copyOfRange(data, from, to);
                oldFrom = from;
                oldTo = to;
                return;
            }
            int f = Math.min(from, oldFrom);
            int t = Math.max(to, oldTo);
            // Outside [oldFrom, oldTo) nothing was written since the sync, so data still holds the old bytes.
            byte[] merged = Arrays.copyOfRange(data, f, t);
            System.arraycopy(old, 0, merged, oldFrom - f, oldTo - oldFrom);
            old = merged;
            oldFrom = f;
            oldTo = t;
        }

        void synced() {
            syncedLength = length;
            old = null;
        }

        /** What a machine crash leaves; {@code random} null: only what was synced. */
        void crash(Random random) {
            if (old != null) {
                int at = oldFrom;
                while (at < oldTo) {
                    int end = random == null ? oldTo : at + 1 + random.nextInt(oldTo - at);
                    if (random == null || random.nextBoolean()) {
                        System.arraycopy(old, at - oldFrom, data, at, end - at);
                    }
                    at = end;
                }
            }
            int keep = syncedLength;
            if (random != null && length > syncedLength) {
                keep += random.nextInt(length - syncedLength + 1);
                if (random.nextBoolean()) {
                    loseSectors(random, keep);
                }
            }
            length = keep;
            synced();
        }

        /**
         * Zero-fills a random choice of the sectors of the unsynced bytes below {@code keep}: the file's new
         * length reached the disk but some of its pages did not, so they read as zeros, possibly with later
         * pages written back and kept.
         */
        private void loseSectors(Random random, int keep) {
            for (int at = syncedLength; at < keep; ) {
                int end = Math.min(keep, (at / SECTOR + 1) * SECTOR);
                if (random.nextBoolean()) {
                    Arrays.fill(data, at, end, (byte) 0);
                }
                at = end;
            }
        }
    }

    /**
     * One directory change since the last sync: {@code name} now names {@code inode} (null: removed), and for
     * a rename inside the directory, {@code removed} lost its entry in the same step.
     */
    private record NameChange(String name, Inode inode, String removed) {
    }

    private static final class Directory {
        final Map<String, Inode> entries = new HashMap<>();
        Map<String, Inode> durable = new HashMap<>();
        /** Changes since the last sync, oldest first; {@code entries} is {@code durable} with all of them. */
        final List<NameChange> unsynced = new ArrayList<>();

        /** Sets (inode null: removes) one entry, remembering the change until the next sync. */
        void put(String name, Inode inode) {
            if (inode == null) {
                entries.remove(name);
            } else {
                entries.put(name, inode);
            }
            unsynced.add(new NameChange(name, inode, null));
        }

        /** What a crash leaves; {@code random} null: only the durable entries. */
        void crash(SplittableRandom random) {
            entries.clear();
            entries.putAll(durable);
            if (random != null) {
                for (NameChange change : unsynced) {
                    if (!random.nextBoolean()) {
                        continue;
                    }
                    if (change.removed != null) {
                        entries.remove(change.removed);
                    }
                    if (change.inode == null) {
                        entries.remove(change.name);
                    } else {
                        entries.put(change.name, change.inode);
                    }
                }
            }
            durable = new HashMap<>(entries);
            unsynced.clear();
        }
    }

    private final Map<Path, Directory> directories = new HashMap<>();
    private final Set<Path> heldLocks = new HashSet<>();
    private int epoch;

    /** Drops all unsynced data and all directory changes not yet synced. */
    public synchronized void crash() {
        crash(null);
    }

    /**
     * Like {@link #crash()}, but each file keeps a random length of its unsynced appended bytes, and unsynced
     * overwrites keep their new content in random sub-ranges, as when the OS had written back some pages before
     * power was lost. In half the files that crash, the kept appended bytes are a prefix of what was written;
     * in the other half each {@value #SECTOR}-byte sector of them is either kept or zero-filled at random: a
     * new length that reached the disk before some of its pages did, so a middle page can be lost while a
     * later one is kept, and the tail can be zeros. Names still follow their directory's last sync.
     */
    public synchronized void crash(Random random) {
        crash(random, null);
    }

    /**
     * Like {@link #crash(Random)} for data, but each directory change made since its directory's last sync
     * survives or is lost independently (see the class comment): a file may keep its new content under an
     * old name, a deleted file may come back while a later rename is kept.
     */
    public synchronized void crashKeepingSomeNames(Random random) {
        crash(random, random);
    }

    private void crash(Random data, Random names) {
        epoch++;
        heldLocks.clear();
        Set<Inode> survivors = Collections.newSetFromMap(new IdentityHashMap<>());
        // Mixed, as the first outputs of java.util.Random seeded with nearby numbers are alike.
        SplittableRandom nameChoices = names == null ? null : new SplittableRandom(names.nextLong());
        for (Directory dir : directories.values()) {
            dir.crash(nameChoices);
            survivors.addAll(dir.entries.values());
        }
        for (Inode inode : survivors) {
            inode.crash(data);
        }
    }

    /** Total bytes written through {@link WritableFile#write} since creation, for write-amplification tests. */
    public synchronized long bytesStored() {
        long total = 0;
        for (Directory dir : directories.values()) {
            for (Inode inode : dir.entries.values()) {
                total += inode.length;
            }
        }
        return total;
    }

    @Override
    public synchronized WritableFile create(Path path) throws IOException {
        Inode inode = new Inode();
        directoryOf(path).put(name(path), inode);
        return new MemWritableFile(inode, epoch, 0);
    }

    @Override
    public synchronized WritableFile openForAppend(Path path) throws IOException {
        Inode inode = inode(path);
        return new MemWritableFile(inode, epoch, inode.length);
    }

    @Override
    public synchronized WritableFile openForOverwrite(Path path, long position) throws IOException {
        Inode inode = inode(path);
        if (position < 0 || position > inode.length) {
            throw new IllegalArgumentException("position " + position + " outside [0, " + inode.length + "] of "
                    + path);
        }
        return new MemWritableFile(inode, epoch, (int) position);
    }

    @Override
    public synchronized ReadableFile openReadable(Path path) throws IOException {
        return new MemReadableFile(inode(path), epoch);
    }

    @Override
    public synchronized void rename(Path source, Path target) throws IOException {
        Inode inode = inode(source);
        Directory from = directoryOf(source);
        Directory to = directoryOf(target);
        if (from == to) {
            if (!name(source).equals(name(target))) {
                to.entries.put(name(target), inode);
                to.entries.remove(name(source));
                to.unsynced.add(new NameChange(name(target), inode, name(source)));
            }
        } else {
            to.put(name(target), inode);
            from.put(name(source), null);
        }
    }

    @Override
    public synchronized void link(Path existing, Path link) throws IOException {
        Inode inode = inode(existing);
        Directory target = directoryOf(link);
        if (target.entries.containsKey(name(link))) {
            throw new java.nio.file.FileAlreadyExistsException(link.toString());
        }
        target.put(name(link), inode);
    }

    @Override
    public synchronized void delete(Path path) throws IOException {
        Directory dir = directories.get(normalize(path.getParent()));
        if (dir != null && dir.entries.containsKey(name(path))) {
            dir.put(name(path), null);
        }
    }

    @Override
    public synchronized boolean exists(Path path) {
        Path p = normalize(path);
        if (directories.containsKey(p)) {
            return true;
        }
        Directory dir = directories.get(normalize(path.getParent()));
        return dir != null && dir.entries.containsKey(name(path));
    }

    @Override
    public synchronized long size(Path path) throws IOException {
        return inode(path).length;
    }

    @Override
    public synchronized List<String> list(Path dir) {
        Path p = normalize(dir);
        List<String> names = new ArrayList<>();
        Directory d = directories.get(p);
        if (d != null) {
            names.addAll(d.entries.keySet());
        }
        for (Path sub : directories.keySet()) {
            if (p.equals(sub.getParent())) {
                names.add(sub.getFileName().toString());
            }
        }
        names.sort(null);
        return names;
    }

    @Override
    public synchronized void createDirectories(Path dir) {
        for (Path p = normalize(dir); p != null; p = p.getParent()) {
            directories.computeIfAbsent(p, k -> new Directory());
        }
    }

    @Override
    public synchronized void syncDirectory(Path dir) throws IOException {
        Directory d = directories.get(normalize(dir));
        if (d == null) {
            throw new FileNotFoundException("no directory " + dir);
        }
        d.durable = new HashMap<>(d.entries);
        d.unsynced.clear();
    }

    @Override
    public synchronized FileLock lock(Path path) throws IOException {
        Path p = normalize(path);
        if (!heldLocks.add(p)) {
            throw new IOException("lock " + path + " is already held");
        }
        if (!exists(path)) {
            create(path).close();
        }
        int lockEpoch = epoch;
        return () -> {
            synchronized (MemFileSystem.this) {
                if (epoch == lockEpoch) {
                    heldLocks.remove(p);
                }
            }
        };
    }

    private Directory directoryOf(Path path) throws IOException {
        Directory dir = directories.get(normalize(path.getParent()));
        if (dir == null) {
            throw new FileNotFoundException("no directory for " + path);
        }
        return dir;
    }

    private Inode inode(Path path) throws IOException {
        Inode inode = directoryOf(path).entries.get(name(path));
        if (inode == null) {
            throw new java.nio.file.NoSuchFileException(path.toString());
        }
        return inode;
    }

    private static String name(Path path) {
        return path.getFileName().toString();
    }

    private static Path normalize(Path path) {
        return path == null ? null : path.toAbsolutePath().normalize();
    }

    private void checkEpoch(int handleEpoch) throws IOException {
        if (handleEpoch != epoch) {
            throw new IOException("file handle opened before a simulated crash");
        }
    }

    private final class MemWritableFile implements WritableFile {
        private final Inode inode;
        private final int handleEpoch;
        private int position;
        private boolean closed;

        MemWritableFile(Inode inode, int handleEpoch, int position) {
            this.inode = inode;
            this.handleEpoch = handleEpoch;
            this.position = position;
        }

        @Override
        public void write(ByteBuffer source) throws IOException {
            synchronized (MemFileSystem.this) {
                checkOpen();
                int n = source.remaining();
                int end = Math.addExact(position, n);
                if (end > inode.data.length) {
                    inode.data = Arrays.copyOf(inode.data, Math.max(end, inode.data.length * 2));
                }
                inode.saveOld(position, end);
                source.get(inode.data, position, n);
                position = end;
                inode.length = Math.max(inode.length, end);
            }
        }

        @Override
        public void sync() throws IOException {
            synchronized (MemFileSystem.this) {
                checkOpen();
                inode.synced();
            }
        }

        @Override
        public long size() {
            synchronized (MemFileSystem.this) {
                return position;
            }
        }

        @Override
        public void close() {
            closed = true;
        }

        private void checkOpen() throws IOException {
            if (closed) {
                throw new IOException("file is closed");
            }
            checkEpoch(handleEpoch);
        }
    }

    private final class MemReadableFile implements ReadableFile {
        private final Inode inode;
        private final int handleEpoch;

        MemReadableFile(Inode inode, int handleEpoch) {
            this.inode = inode;
            this.handleEpoch = handleEpoch;
        }

        @Override
        public long size() throws IOException {
            synchronized (MemFileSystem.this) {
                checkEpoch(handleEpoch);
                return inode.length;
            }
        }

        @Override
        public int read(ByteBuffer destination, long position) throws IOException {
            synchronized (MemFileSystem.this) {
                checkEpoch(handleEpoch);
                if (position >= inode.length) {
                    return destination.hasRemaining() ? -1 : 0;
                }
                int n = (int) Math.min(destination.remaining(), inode.length - position);
                destination.put(inode.data, (int) position, n);
                return n;
            }
        }

        @Override
        public MemorySegment map(Arena arena) throws IOException {
            synchronized (MemFileSystem.this) {
                checkEpoch(handleEpoch);
                MemorySegment segment = arena.allocate(Math.max(1, inode.length)).asSlice(0, inode.length);
                MemorySegment.copy(inode.data, 0, segment, ValueLayout.JAVA_BYTE, 0, inode.length);
                return segment.asReadOnly();
            }
        }

        @Override
        public void close() {
        }
    }
}
