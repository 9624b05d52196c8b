package io.varve.replication;

import com.alipay.sofa.jraft.conf.ConfigurationEntry;
import com.alipay.sofa.jraft.conf.ConfigurationManager;
import com.alipay.sofa.jraft.entity.EnumOutter.EntryType;
import com.alipay.sofa.jraft.entity.LogEntry;
import com.alipay.sofa.jraft.entity.LogId;
import com.alipay.sofa.jraft.entity.PeerId;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Log entries for storage tests, with payloads that name their index and term so a mix-up shows. */
final class Entries {
    private Entries() {
    }

    static LogEntry data(long index, long term) {
        return data(index, term, "entry " + index + " of term " + term);
    }

    static LogEntry data(long index, long term, String payload) {
        LogEntry e = new LogEntry(EntryType.ENTRY_TYPE_DATA);
        e.setId(new LogId(index, term));
        e.setData(ByteBuffer.wrap(payload.getBytes(StandardCharsets.UTF_8)));
        return e;
    }

    /** A configuration entry whose single peer's port is {@code port}. */
    static LogEntry configuration(long index, long term, int port) {
        LogEntry e = new LogEntry(EntryType.ENTRY_TYPE_CONFIGURATION);
        e.setId(new LogId(index, term));
        e.setPeers(new ArrayList<>(List.of(new PeerId("127.0.0.1", port))));
        return e;
    }

    static List<LogEntry> data(long from, long toInclusive, long term) {
        List<LogEntry> out = new ArrayList<>();
        for (long i = from; i <= toInclusive; i++) {
            out.add(data(i, term));
        }
        return out;
    }

    static String payload(LogEntry e) {
        ByteBuffer data = e.getData().duplicate();
        byte[] bytes = new byte[data.remaining()];
        data.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Records what a storage's {@code init} adds, in order. */
    static final class RecordingConfigurationManager extends ConfigurationManager {
        final List<ConfigurationEntry> added = new ArrayList<>();

        @Override
        public boolean add(ConfigurationEntry entry) {
            added.add(entry);
            return super.add(entry);
        }

        List<Long> indexes() {
            return added.stream().map(c -> c.getId().getIndex()).toList();
        }
    }
}
