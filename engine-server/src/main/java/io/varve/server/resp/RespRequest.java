package io.varve.server.resp;

/**
 * One decoded command: its arguments as raw bytes, the command name first. {@code bytes} is what the
 * arguments cost on the heap (the argument array plus each argument's {@link DecoderLimits#payloadCost}),
 * which the connection uses to bound what it holds queued.
 */
public record RespRequest(byte[][] args, long bytes) {
}
