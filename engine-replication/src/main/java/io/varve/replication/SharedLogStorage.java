package io.varve.replication;

import com.alipay.sofa.jraft.conf.Configuration;
import com.alipay.sofa.jraft.conf.ConfigurationEntry;
import com.alipay.sofa.jraft.conf.ConfigurationManager;
import com.alipay.sofa.jraft.entity.EnumOutter.EntryType;
import com.alipay.sofa.jraft.entity.LogEntry;
import com.alipay.sofa.jraft.entity.LogId;
import com.alipay.sofa.jraft.entity.codec.LogEntryDecoder;
import com.alipay.sofa.jraft.entity.codec.LogEntryEncoder;
import com.alipay.sofa.jraft.option.LogStorageOptions;
import com.alipay.sofa.jraft.storage.LogStorage;
import io.varve.raftlog.LogBatch;
import io.varve.raftlog.RaftLogEngine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * One SOFAJRaft node's log, kept as one group of the process's shared {@link RaftLogEngine}.
 *
 * <p>Layout in the group: entry {@code i} of the Raft log is engine entry {@code i}, encoded with the node's
 * {@code LogEntryEncoder}. The group's state has {@code first} (the first index, 8 bytes; absent means 1) and
 * {@code conf} ({@link ConfigurationIndexes}: where the configuration entries are). Every change to the log
 * writes the entries or truncation together with the keys it affects in one atomic batch, so after a crash
 * they always agree. {@code first} is needed because an empty log still has a first index (after a snapshot
 * install truncates past the last entry); while entries exist it equals the engine's first index.
 *
 * <p>Concurrency, as jraft's LogManager uses a storage: appends, truncations and resets come from one
 * thread at a time (they are also synchronized, which costs nothing uncontended); {@link #getEntry} and the
 * index getters from any thread. {@code first} and {@code last} are volatile and updated after the engine
 * write, so a reader never sees an index the engine does not have yet; during a truncation a reader may
 * still get an entry being dropped, as with any storage.
 *
 * <p>Failures: an append that cannot be written returns 0 and a truncation false (jraft then halts the
 * node); the engine itself refuses all writes after an I/O error until it is reopened.
 */
final class SharedLogStorage implements LogStorage {
    private static final System.Logger LOG = System.getLogger(SharedLogStorage.class.getName());
    static final byte[] FIRST_KEY = "first".getBytes(StandardCharsets.UTF_8);
    static final byte[] CONF_KEY = "conf".getBytes(StandardCharsets.UTF_8);

    private final SharedRaftLog shared;
    private final RaftLogEngine engine;
    private final String name;
    private final boolean sync;
    private LogEntryEncoder encoder;
    private LogEntryDecoder decoder;
    private long group = -1;
    /** Writer-thread state: where the configuration entries are. */
    private ConfigurationIndexes conf = ConfigurationIndexes.NONE;
    private volatile long first = 1;
    /** {@code first - 1} when the log is empty. */
    private volatile long last;
    private volatile boolean open;

    SharedLogStorage(SharedRaftLog shared, String name, boolean sync) {
        this.shared = shared;
        this.engine = shared.engine();
        this.name = "log:" + name;
        this.sync = sync;
    }

    @Override
    public synchronized boolean init(LogStorageOptions opts) {
        if (open) {
            return true;
        }
        encoder = opts.getLogEntryCodecFactory().encoder();
        decoder = opts.getLogEntryCodecFactory().decoder();
        try {
            group = shared.acquire(name);
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "cannot open raft log " + name, e);
            return false;
        }
        try {
            byte[] storedFirst = engine.get(group, FIRST_KEY);
            long firstIndex = storedFirst == null ? 1 : ByteBuffer.wrap(storedFirst).getLong();
            OptionalLong engineFirst = engine.firstIndex(group);
            if (engineFirst.isPresent() && engineFirst.getAsLong() != firstIndex) {
                throw new IOException("first index " + firstIndex + " disagrees with the first entry "
                        + engineFirst.getAsLong());
            }
            ConfigurationIndexes stored = ConfigurationIndexes.decode(engine.get(group, CONF_KEY));
            long lastIndex = engine.lastIndex(group).orElse(firstIndex - 1);
            replayConfiguration(stored, firstIndex, lastIndex, opts.getConfigurationManager());
            conf = stored;
            first = firstIndex;
            last = lastIndex;
            open = true;
            return true;
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "cannot load raft log " + name + " (group " + group + ")", e);
            shared.release(name);
            return false;
        }
    }

    private void replayConfiguration(ConfigurationIndexes stored, long firstIndex, long lastIndex,
            ConfigurationManager manager) throws IOException {
        for (long index : stored.indexes()) {
            if (index < firstIndex || index > lastIndex) {
                throw new IOException("configuration entry " + index + " outside the log [" + firstIndex + ", "
                        + lastIndex + "]");
            }
            byte[] bytes = engine.entry(group, index);
            LogEntry entry = bytes == null ? null : decoder.decode(bytes);
            if (entry == null || entry.getType() != EntryType.ENTRY_TYPE_CONFIGURATION) {
                throw new IOException("no configuration entry at " + index);
            }
            ConfigurationEntry confEntry = new ConfigurationEntry();
            confEntry.setId(new LogId(entry.getId().getIndex(), entry.getId().getTerm()));
            confEntry.setConf(new Configuration(entry.getPeers(), entry.getLearners()));
            if (entry.getOldPeers() != null) {
                confEntry.setOldConf(new Configuration(entry.getOldPeers(), entry.getOldLearners()));
            }
            if (manager != null) {
                manager.add(confEntry);
            }
        }
    }

    @Override
    public synchronized void shutdown() {
        if (open) {
            open = false;
            shared.release(name);
        }
    }

    @Override
    public long getFirstLogIndex() {
        return first;
    }

    @Override
    public long getLastLogIndex() {
        return last;
    }

    @Override
    public LogEntry getEntry(long index) {
        if (!open || index < first || index > last) {
            return null;
        }
        try {
            byte[] bytes = engine.entry(group, index);
            if (bytes == null) {
                return null; // truncated meanwhile
            }
            LogEntry entry = decoder.decode(bytes);
            if (entry == null) {
                LOG.log(System.Logger.Level.ERROR, "cannot decode entry " + index + " of raft log " + name);
            }
            return entry;
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "cannot read entry " + index + " of raft log " + name, e);
            return null;
        }
    }

    @Deprecated
    @Override
    public long getTerm(long index) {
        LogEntry entry = getEntry(index);
        return entry == null ? 0 : entry.getId().getTerm();
    }

    @Override
    public boolean appendEntry(LogEntry entry) {
        return appendEntries(List.of(entry)) == 1;
    }

    /**
     * Appends entries with consecutive indexes starting in {@code [first, last + 1]}; entries from that start
     * on are replaced (after {@link #reset} the log's one entry is a placeholder that the next append
     * overwrites). Returns the count written: all or 0.
     */
    @Override
    public synchronized int appendEntries(List<LogEntry> entries) {
        if (entries == null || entries.isEmpty()) {
            return 0;
        }
        if (!open) {
            LOG.log(System.Logger.Level.ERROR, "append to raft log " + name + " that is not open");
            return 0;
        }
        long start = entries.getFirst().getId().getIndex();
        if (start < first || start > last + 1) {
            LOG.log(System.Logger.Level.ERROR, "raft log " + name + ": append at " + start + " outside ["
                    + first + ", " + (last + 1) + "]");
            return 0;
        }
        int n = entries.size();
        List<byte[]> encoded = new ArrayList<>(n);
        long[] confAdded = new long[n];
        int confCount = 0;
        for (int i = 0; i < n; i++) {
            LogEntry entry = entries.get(i);
            if (entry.getId().getIndex() != start + i) {
                LOG.log(System.Logger.Level.ERROR, "raft log " + name + ": entry " + entry.getId().getIndex()
                        + " where " + (start + i) + " was expected");
                return 0;
            }
            if (entry.getType() == EntryType.ENTRY_TYPE_CONFIGURATION) {
                confAdded[confCount++] = start + i;
            }
            encoded.add(encoder.encode(entry));
        }
        ConfigurationIndexes newConf = conf.below(start).plus(confAdded, confCount);
        try {
            // Inside the try: a batch beyond the engine's size limits is refused here, as a failed append.
            LogBatch batch = new LogBatch().addEntries(group, start, encoded);
            putConfiguration(batch, newConf);
            engine.write(batch, sync);
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "cannot append " + n + " entries at " + start + " to raft log "
                    + name, e);
            return 0;
        }
        conf = newConf;
        last = start + n - 1;
        return n;
    }

    /** Drops entries below {@code firstIndexKept}; it may pass the last entry (the log is then empty). */
    @Override
    public synchronized boolean truncatePrefix(long firstIndexKept) {
        if (!open) {
            return false;
        }
        if (firstIndexKept <= first) {
            return true;
        }
        ConfigurationIndexes newConf = conf.from(firstIndexKept);
        LogBatch batch = new LogBatch().compactTo(group, firstIndexKept)
                .put(group, FIRST_KEY, GroupDirectory.encode(firstIndexKept));
        putConfiguration(batch, newConf);
        if (!write(batch, "truncate the prefix before " + firstIndexKept)) {
            return false;
        }
        conf = newConf;
        first = firstIndexKept;
        if (last < firstIndexKept) {
            last = firstIndexKept - 1;
        }
        return true;
    }

    /** Drops entries after {@code lastIndexKept}, and the configuration entries among them. */
    @Override
    public synchronized boolean truncateSuffix(long lastIndexKept) {
        if (!open) {
            return false;
        }
        if (lastIndexKept >= last) {
            return true;
        }
        ConfigurationIndexes newConf = conf.below(lastIndexKept + 1);
        LogBatch batch = new LogBatch().truncateAfter(group, Math.max(0, lastIndexKept));
        putConfiguration(batch, newConf);
        if (!write(batch, "truncate the suffix after " + lastIndexKept)) {
            return false;
        }
        conf = newConf;
        last = Math.max(lastIndexKept, first - 1);
        return true;
    }

    /**
     * Empties the log and restarts it at {@code nextLogIndex}, keeping the entry there if there is one and
     * otherwise placing a no-op entry of term 0: afterwards first = last = {@code nextLogIndex}, as jraft's
     * LogManager expects (it overwrites that entry with its next append).
     */
    @Override
    public synchronized boolean reset(long nextLogIndex) {
        if (nextLogIndex <= 0) {
            throw new IllegalArgumentException("next log index must be > 0: " + nextLogIndex);
        }
        if (!open) {
            return false;
        }
        byte[] kept;
        try {
            kept = nextLogIndex >= first && nextLogIndex <= last ? engine.entry(group, nextLogIndex) : null;
        } catch (IOException e) {
            LOG.log(System.Logger.Level.ERROR, "cannot read entry " + nextLogIndex + " of raft log " + name, e);
            return false;
        }
        LogEntry entry = kept == null ? null : decoder.decode(kept);
        if (entry == null) {
            entry = new LogEntry(EntryType.ENTRY_TYPE_NO_OP);
            entry.setId(new LogId(nextLogIndex, 0));
            kept = encoder.encode(entry);
        }
        ConfigurationIndexes newConf = entry.getType() == EntryType.ENTRY_TYPE_CONFIGURATION
                ? new ConfigurationIndexes(new long[] {nextLogIndex}) : ConfigurationIndexes.NONE;
        LogBatch batch = new LogBatch().clean(group)
                .put(group, FIRST_KEY, GroupDirectory.encode(nextLogIndex))
                .addEntries(group, nextLogIndex, List.of(kept));
        if (!newConf.isEmpty()) {
            batch.put(group, CONF_KEY, newConf.encode());
        }
        if (!write(batch, "reset to " + nextLogIndex)) {
            return false;
        }
        conf = newConf;
        first = nextLogIndex;
        last = nextLogIndex;
        return true;
    }

    private void putConfiguration(LogBatch batch, ConfigurationIndexes newConf) {
        if (newConf.sameAs(conf)) {
            return;
        }
        if (newConf.isEmpty()) {
            batch.delete(group, CONF_KEY);
        } else {
            batch.put(group, CONF_KEY, newConf.encode());
        }
    }

    private boolean write(LogBatch batch, String what) {
        try {
            engine.write(batch, sync);
            return true;
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "raft log " + name + ": cannot " + what, e);
            return false;
        }
    }

    /** The engine group holding this log, for tests and diagnostics; -1 before {@link #init}. */
    long group() {
        return group;
    }

    @Override
    public String toString() {
        return "SharedLogStorage[" + name + ", group " + group + ", first " + first + ", last " + last + "]";
    }
}
