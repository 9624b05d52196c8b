package io.varve.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ACL users (Redis 6+) with AUTH and HELLO AUTH, and the single-master answers of ROLE, WAIT and LOLWUT. */
class AclTest {

    private static final String NO_KEY = "NOPERM this user has no permissions to access one of the keys used as arguments";

    @TempDir
    Path dir;

    @Test
    void aUserRunsOnlyItsCommandsOnItsKeys() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient admin = RespClient.connect(server.port());
             RespClient alice = RespClient.connect(server.port())) {
            assertEquals("OK", admin.call("ACL", "SETUSER", "alice", "on", ">p1pp0", "~cached:*", "+get", "+set"));
            assertEquals("default", alice.call("ACL", "WHOAMI"));
            assertEquals(new RespClient.Err("WRONGPASS invalid username-password pair or user is disabled."),
                    alice.call("AUTH", "alice", "wrong"));
            assertEquals("OK", alice.call("AUTH", "alice", "p1pp0"));
            assertEquals(new RespClient.Err("NOPERM this user has no permissions to run the 'acl|whoami' command"),
                    alice.call("ACL", "WHOAMI"));
            assertEquals("OK", alice.call("SET", "cached:1", "v"));
            assertEquals("v", alice.call("GET", "cached:1"));
            assertEquals(new RespClient.Err(NO_KEY), alice.call("GET", "other"));
            assertEquals(new RespClient.Err("NOPERM this user has no permissions to run the 'del' command"),
                    alice.call("DEL", "cached:1"));
            assertEquals("RESET", alice.call("RESET"));
            assertEquals("default", alice.call("ACL", "WHOAMI"), "RESET goes back to the default user");
        }
    }

    @Test
    void readAndWriteKeyPatternsAreSeparate() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port())) {
            c.call("ACL", "SETUSER", "rw", "on", "nopass", "%R~read*", "%W~write*", "+@all");
            c.call("AUTH", "rw", "anything");
            assertEquals(null, c.call("GET", "read1"));
            assertEquals(new RespClient.Err(NO_KEY), c.call("SET", "read1", "x"));
            assertEquals("OK", c.call("SET", "write1", "x"));
            assertEquals(new RespClient.Err(NO_KEY), c.call("GET", "write1"));
        }
    }

    @Test
    void usersAreListedDescribedAndDeleted() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient admin = RespClient.connect(server.port());
             RespClient bob = RespClient.connect(server.port())) {
            admin.call("ACL", "SETUSER", "bob", "on", "nopass", "~x*", "&news", "+@read", "-get", "+subscribe");
            assertEquals(List.of("bob", "default"), admin.call("ACL", "USERS"));
            assertEquals(List.of("user bob on nopass sanitize-payload ~x* &news -@all +@read -get +subscribe",
                    "user default on nopass sanitize-payload ~* &* +@all"), admin.call("ACL", "LIST"));
            admin.call("HELLO", "3");
            assertEquals(Map.of("flags", List.of("on", "nopass", "sanitize-payload"), "passwords", List.of(),
                    "commands", "-@all +@read -get +subscribe", "keys", "~x*", "channels", "&news", "selectors", List.of()),
                    admin.call("ACL", "GETUSER", "bob"));
            assertEquals(RespClient.NULL, admin.call("ACL", "GETUSER", "nobody"));
            assertEquals(new RespClient.Err("ERR Error in ACL SETUSER modifier '+nosuchcommand': Unknown command "
                    + "or category name in ACL"), admin.call("ACL", "SETUSER", "bob", "+nosuchcommand"));
            assertEquals("OK", admin.call("ACL", "DRYRUN", "bob", "strlen", "x1"));
            assertEquals("This user has no permissions to run the 'get' command",
                    admin.call("ACL", "DRYRUN", "bob", "get", "x1"));

            assertEquals("OK", bob.call("AUTH", "bob", ""));
            assertEquals(new RespClient.Err("NOPERM this user has no permissions to access one of the channels "
                    + "used as arguments"), bob.call("SUBSCRIBE", "sports"));
            assertEquals(new RespClient.Err("ERR The 'default' user cannot be removed"),
                    admin.call("ACL", "DELUSER", "default"));
            assertEquals(1L, admin.call("ACL", "DELUSER", "bob", "nobody"));
            assertTrue(bob.closedByServer(), "a deleted user's connections are closed");
        }
    }

    @Test
    void scriptsRunUnderTheCallersPermissions() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient bob = RespClient.connect(server.port())) {
            bob.call("ACL", "SETUSER", "bob", "on", ">123", "+@scripting", "+set", "~x*");
            assertEquals("OK", bob.call("AUTH", "bob", "123"));
            assertEquals(1L, bob.call("EVAL", "return redis.acl_check_cmd('set','xx',1)", "1", "xx"));
            assertEquals(null, bob.call("EVAL", "return redis.acl_check_cmd('hset','xx','f',1)", "1", "xx"));
            assertEquals(null, bob.call("EVAL", "return redis.acl_check_cmd('set','yy',1)", "0"));
            Object invalid = bob.call("EVAL", "return redis.acl_check_cmd('invalid-cmd','arg')", "0");
            assertTrue(((RespClient.Err) invalid).text().startsWith("ERR Invalid command passed to "
                    + "redis.acl_check_cmd()"), invalid.toString());
            Object denied = bob.call("EVAL", "return redis.call('get','xx')", "1", "xx");
            assertTrue(((RespClient.Err) denied).text().startsWith("ERR The user executing the script can't run "
                    + "this command or subcommand"), denied.toString());
        }
    }

    @Test
    void helloAuthenticatesAndNamesTheConnection() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port())) {
            c.call("ACL", "SETUSER", "carol", "on", ">secret", "allkeys", "+@all");
            Object hello = c.call("HELLO", "3", "AUTH", "carol", "secret", "SETNAME", "app");
            assertEquals(3L, ((Map<?, ?>) hello).get("proto"));
            assertEquals("carol", c.call("ACL", "WHOAMI"));
            assertEquals("app", c.call("CLIENT", "GETNAME"));
            assertEquals(new RespClient.Err("WRONGPASS invalid username-password pair or user is disabled."),
                    c.call("HELLO", "3", "AUTH", "carol", "wrong"));
        }
    }

    @Test
    void singleMasterAnswersRoleWaitAndLolwut() throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port())) {
            assertEquals(List.of("master", 0L, List.of()), c.call("ROLE"));
            c.call("SET", "k", "v");
            assertEquals(0L, c.call("WAIT", "1", "0"), "no replica to wait for: answered at once");
            assertEquals(new RespClient.Err("ERR timeout is negative"), c.call("WAIT", "0", "-1"));
            assertTrue(((String) c.call("LOLWUT")).startsWith("Varve ver. "));
        }
    }
}
