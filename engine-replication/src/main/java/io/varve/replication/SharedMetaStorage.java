package io.varve.replication;

import com.alipay.sofa.jraft.core.NodeImpl;
import com.alipay.sofa.jraft.entity.EnumOutter.ErrorType;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.error.RaftError;
import com.alipay.sofa.jraft.error.RaftException;
import com.alipay.sofa.jraft.option.RaftMetaStorageOptions;
import com.alipay.sofa.jraft.storage.RaftMetaStorage;
import io.varve.raftlog.LogBatch;
import io.varve.raftlog.RaftLogEngine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A node's Raft meta state (current term and vote) as one key of its own group in the shared engine:
 * {@code term-vote} = 8-byte term followed by the voted-for peer as UTF-8 ({@code ip:port:idx}; the empty
 * peer when there is no vote). Each change is one small batch that, when synced, joins the engine's group
 * commit with the appends in flight: no file of its own, no rename and no directory sync per vote, unlike
 * jraft's {@code LocalRaftMetaStorage}.
 *
 * <p>The getters return what was last written successfully. A failed write reports an error to the node
 * (which stops it), like jraft's own meta storage. Thread-safe (synchronized; the node calls it under its
 * own lock anyway).
 */
final class SharedMetaStorage implements RaftMetaStorage {
    private static final System.Logger LOG = System.getLogger(SharedMetaStorage.class.getName());
    static final byte[] KEY = "term-vote".getBytes(StandardCharsets.UTF_8);

    private final SharedRaftLog shared;
    private final RaftLogEngine engine;
    private final String name;
    private final boolean sync;
    private NodeImpl node;
    private long group = -1;
    private long term;
    private PeerId votedFor = PeerId.emptyPeer();
    private boolean open;

    SharedMetaStorage(SharedRaftLog shared, String name, boolean sync) {
        this.shared = shared;
        this.engine = shared.engine();
        this.name = "meta:" + name;
        this.sync = sync;
    }

    @Override
    public synchronized boolean init(RaftMetaStorageOptions opts) {
        if (open) {
            return true;
        }
        node = opts == null ? null : opts.getNode();
        try {
            group = shared.acquire(name);
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "cannot open raft meta " + name, e);
            return false;
        }
        byte[] stored = engine.get(group, KEY);
        if (stored != null) {
            PeerId peer = stored.length < Long.BYTES ? null : PeerId.parsePeer(
                    new String(stored, Long.BYTES, stored.length - Long.BYTES, StandardCharsets.UTF_8));
            if (peer == null) {
                LOG.log(System.Logger.Level.ERROR, "damaged raft meta " + name + ": " + Arrays.toString(stored));
                shared.release(name);
                return false;
            }
            term = ByteBuffer.wrap(stored).getLong();
            votedFor = peer;
        }
        open = true;
        return true;
    }

    @Override
    public synchronized void shutdown() {
        if (open) {
            open = false;
            shared.release(name);
        }
    }

    @Override
    public synchronized boolean setTerm(long term) {
        return save(term, votedFor);
    }

    @Override
    public synchronized long getTerm() {
        checkOpen();
        return term;
    }

    @Override
    public synchronized boolean setVotedFor(PeerId peerId) {
        return save(term, peerId);
    }

    @Override
    public synchronized PeerId getVotedFor() {
        checkOpen();
        return votedFor;
    }

    @Override
    public synchronized boolean setTermAndVotedFor(long term, PeerId peerId) {
        return save(term, peerId);
    }

    private boolean save(long newTerm, PeerId newVote) {
        checkOpen();
        PeerId vote = newVote == null ? PeerId.emptyPeer() : newVote;
        byte[] peer = vote.toString().getBytes(StandardCharsets.UTF_8);
        byte[] value = ByteBuffer.allocate(Long.BYTES + peer.length).putLong(newTerm).put(peer).array();
        try {
            engine.write(new LogBatch().put(group, KEY, value), sync);
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "cannot save raft meta " + name, e);
            if (node != null) {
                node.onError(new RaftException(ErrorType.ERROR_TYPE_META, RaftError.EIO,
                        "Fail to save raft meta %s: %s", name, e));
            }
            return false;
        }
        term = newTerm;
        votedFor = vote;
        return true;
    }

    private void checkOpen() {
        if (!open) {
            throw new IllegalStateException("raft meta " + name + " is not open");
        }
    }

    @Override
    public synchronized String toString() {
        return "SharedMetaStorage[" + name + ", group " + group + ", term " + term + ", votedFor " + votedFor + "]";
    }
}
