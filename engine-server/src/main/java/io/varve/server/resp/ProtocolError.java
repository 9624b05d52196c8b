package io.varve.server.resp;

/**
 * The decoder met bytes it will not accept (malformed, or over a limit). It is passed down the pipeline in
 * order with the requests before it, so the connection answers those first, then replies with this error
 * and closes. The message is the reply text, e.g. {@code ERR Protocol error: invalid bulk length}.
 */
public record ProtocolError(String message) {
}
