package io.varve.kafka.streams;

import io.varve.kafka.streams.store.VarveKeyValueStore;
import org.apache.kafka.common.utils.Bytes;

import java.nio.file.Path;
import java.util.Arrays;

/**
 * Run by {@code StoreMicrometerTest} in a JVM without Micrometer on its class path: checks that Micrometer is
 * indeed absent, then uses a store under the default meter setting and reports on standard output.
 */
public final class NoMicrometerProcess {

    private NoMicrometerProcess() {
    }

    public static void main(String[] args) {
        try {
            Class.forName("io.micrometer.core.instrument.MeterRegistry");
            System.out.println("micrometer present");
            System.exit(2);
        } catch (ClassNotFoundException expected) {
            System.out.println("micrometer absent");
        }
        VarveKeyValueStore store = new VarveKeyValueStore("no-meters", VarveStoreConfig::options);
        store.init(new TestStoreContext(Path.of(args[0])), store);
        try {
            store.put(Bytes.wrap(new byte[] {1}), new byte[] {7, 7});
            if (!Arrays.equals(new byte[] {7, 7}, store.get(Bytes.wrap(new byte[] {1})))) {
                System.exit(3);
            }
            System.out.println("value read back");
        } finally {
            store.close();
        }
    }
}
