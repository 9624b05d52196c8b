package io.varve.server.command;

/** Connections in the states other packages' tests need, which only this package can set. */
public final class Connections {

    private Connections() {
    }

    /** A connection that has sent MULTI: its EXEC will run what it queues. */
    public static Connection inMulti() {
        Connection connection = new Connection(null, null, true);
        connection.transaction().begin();
        return connection;
    }
}
