package io.varve.server;

import java.util.concurrent.atomic.LongAdder;

/** Counters INFO reports; LongAdders because every connection's drainer bumps them concurrently. */
final class ServerStats {

    private final LongAdder commands = new LongAdder();
    private final LongAdder connectionsReceived = new LongAdder();
    private final LongAdder connectionsRejected = new LongAdder();
    private final LongAdder protocolErrors = new LongAdder();
    private final LongAdder replyBytes = new LongAdder();
    private final LongAdder inputBytes = new LongAdder();
    private final LongAdder inlineReads = new LongAdder();
    private final LongAdder sharedSets = new LongAdder();
    private final LongAdder sharedSetRunsOnLoop = new LongAdder();
    private final LongAdder sharedSetRunsHandedOff = new LongAdder();
    private final LongAdder outputLimitDisconnections = new LongAdder();
    private final LongAdder keyRunCommands = new LongAdder();
    private final long startedAtMillis = System.currentTimeMillis();
    private volatile long recoveryMillis;

    /** CONFIG RESETSTAT: zeroes the counters (not the start time or the recovery duration). */
    void reset() {
        for (LongAdder a : new LongAdder[] {commands, connectionsReceived, connectionsRejected, protocolErrors,
            replyBytes, inputBytes, inlineReads, sharedSets, sharedSetRunsOnLoop, sharedSetRunsHandedOff,
            outputLimitDisconnections, keyRunCommands}) {
            a.reset();
        }
    }

    void outputLimitDisconnection() {
        outputLimitDisconnections.increment();
    }

    long outputLimitDisconnections() {
        return outputLimitDisconnections.sum();
    }

    void commandProcessed() {
        commands.increment();
    }

    void connectionReceived() {
        connectionsReceived.increment();
    }

    void connectionRejected() {
        connectionsRejected.increment();
    }

    void protocolError() {
        protocolErrors.increment();
    }

    void replyBytes(long n) {
        replyBytes.add(n);
    }

    /** A GET was answered on the event loop from the engine's memory (see ClientSession). */
    void inlineRead() {
        inlineReads.increment();
    }

    long inlineReads() {
        return inlineReads.sum();
    }

    /** A lone SET was committed in its event loop's shared run (see EventLoopSets). */
    void sharedSet() {
        sharedSets.increment();
    }

    long sharedSets() {
        return sharedSets.sum();
    }

    /** {@code n} writes of one connection to one key were committed together (see KeyCommandRun). */
    void keyRunCommitted(int n) {
        keyRunCommands.add(n);
    }

    long keyRunCommands() {
        return keyRunCommands.sum();
    }

    /** A run of shared SETs was committed on its event loop (true) or handed to a thread that may wait. */
    void sharedSetRun(boolean onLoop) {
        (onLoop ? sharedSetRunsOnLoop : sharedSetRunsHandedOff).increment();
    }

    long sharedSetRunsOnLoop() {
        return sharedSetRunsOnLoop.sum();
    }

    long sharedSetRunsHandedOff() {
        return sharedSetRunsHandedOff.sum();
    }

    void inputBytes(long n) {
        inputBytes.add(n);
    }

    void recoveryMillis(long millis) {
        recoveryMillis = millis;
    }

    long commands() {
        return commands.sum();
    }

    long connectionsReceived() {
        return connectionsReceived.sum();
    }

    long connectionsRejected() {
        return connectionsRejected.sum();
    }

    long protocolErrors() {
        return protocolErrors.sum();
    }

    long replyBytes() {
        return replyBytes.sum();
    }

    long inputBytes() {
        return inputBytes.sum();
    }

    long startedAtMillis() {
        return startedAtMillis;
    }

    long recoveryMillis() {
        return recoveryMillis;
    }
}
