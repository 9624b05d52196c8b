package io.varve.server;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.SslVerifyMode;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** TLS through Netty's SslHandler on the JDK provider, with a self-signed certificate made by keytool. */
class TlsTest {

    @TempDir
    Path dir;

    /** Makes cert.pem and key.pem (PKCS#8) in {@code where} with the JDK's keytool and KeyStore API. */
    static Path[] selfSignedPem(Path where) throws Exception {
        Path store = where.resolve("tls.p12");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Process p = new ProcessBuilder(keytool, "-genkeypair", "-alias", "varve", "-keyalg", "RSA", "-keysize", "2048",
                "-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "2",
                "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", "changeit", "-keypass", "changeit")
                .redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "keytool did not finish");
        assertEquals(0, p.exitValue(), output);
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, "changeit".toCharArray());
        }
        Key key = ks.getKey("varve", "changeit".toCharArray());
        Certificate cert = ks.getCertificate("varve");
        Path certPem = where.resolve("cert.pem");
        Path keyPem = where.resolve("key.pem");
        Files.writeString(certPem, pem("CERTIFICATE", cert.getEncoded()));
        Files.writeString(keyPem, pem("PRIVATE KEY", key.getEncoded()));
        return new Path[] {certPem, keyPem, store};
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    @Test
    void lettuceTalksTlsAndPlainClientsAreCutOff() throws Exception {
        Path[] pems = selfSignedPem(Files.createDirectories(dir.resolve("tls")));
        try (TestServer server = TestServer.start(dir.resolve("data"), c -> c
                .with(java.util.Map.of("tls-cert-file", pems[0].toString(), "tls-key-file", pems[1].toString())))) {
            RedisURI uri = Lettuce.uri(server.port()).withSsl(true).withVerifyPeer(SslVerifyMode.CA).build();
            RedisClient client = Lettuce.client(uri, ProtocolVersion.RESP3);
            client.setOptions(ClientOptions.builder().protocolVersion(ProtocolVersion.RESP3)
                    .sslOptions(SslOptions.builder().jdkSslProvider().trustManager(pems[0].toFile()).build()).build());
            try (StatefulRedisConnection<String, String> conn = client.connect()) {
                assertEquals("OK", conn.sync().set("secure", "yes"));
                assertEquals("yes", conn.sync().get("secure"));
            } finally {
                client.shutdown(0, 1, TimeUnit.SECONDS);
            }

            KeyStore trust = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(pems[2])) {
                trust.load(in, "changeit".toCharArray());
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext tls12 = SSLContext.getInstance("TLSv1.2");
            tls12.init(null, tmf.getTrustManagers(), null);
            try (SSLSocket socket = (SSLSocket) tls12.getSocketFactory().createSocket("127.0.0.1", server.port())) {
                socket.setEnabledProtocols(new String[] {"TLSv1.2"});
                socket.startHandshake();
                assertEquals("TLSv1.2", socket.getSession().getProtocol(), "TLS 1.2 is still accepted");
                RespClient c = new RespClient(socket);
                assertEquals("yes", c.call("GET", "secure"));
            }

            try (RespClient plain = RespClient.connect(server.port())) {
                plain.sendRaw("PING\r\n");
                assertTrue(plain.closedByServer(), "plain text on a TLS port is dropped");
            }
        }
    }
}
