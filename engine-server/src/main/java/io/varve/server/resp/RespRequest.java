package io.varve.server.resp;

/**
 * One decoded command: its arguments as raw bytes, the command name first. {@code bytes} is what the
 * arguments cost on the heap ({@link DecoderLimits#argumentCost} each), which the connection uses to bound
 * what it holds queued.
 */
public record RespRequest(byte[][] args, long bytes) {
}
