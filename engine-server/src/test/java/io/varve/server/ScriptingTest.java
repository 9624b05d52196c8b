package io.varve.server;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * EVAL, EVALSHA, the _RO forms, SCRIPT, FUNCTION and FCALL over the wire, with Redis 7's replies: the
 * conversions in both protocols, the script cache, the sandbox, read-only scripts, and function libraries.
 */
class ScriptingTest extends OneServerPerClass {

    private static RespClient.Err err(String text) {
        return new RespClient.Err(text);
    }

    private RespClient client() throws Exception {
        RespClient c = RespClient.connect(server.port());
        c.call("FLUSHALL");
        c.call("SCRIPT", "FLUSH");
        c.call("FUNCTION", "FLUSH");
        return c;
    }

    @Test
    void evalRunsCommandsWithKeysAndArgs() throws Exception {
        try (RespClient c = client()) {
            assertEquals("OK", c.call("EVAL", "return redis.call('set', KEYS[1], ARGV[1])", "1", "k", "v"));
            assertEquals("v", c.call("GET", "k"));
            assertEquals(List.of("k", "a", "b"), c.call("EVAL", "return {KEYS[1], ARGV[1], ARGV[2]}", "1", "k", "a", "b"));
            assertEquals(err("ERR Number of keys can't be greater than number of args"), c.call("EVAL", "return 1", "2", "k"));
            assertEquals(err("ERR Number of keys can't be negative"), c.call("EVAL", "return 1", "-1"));
            assertEquals(err("ERR value is not an integer or out of range"), c.call("EVAL", "return 1", "x"));
            assertEquals(List.of("k1", "k2"), c.call("COMMAND", "GETKEYS", "EVAL", "return 1", "2", "k1", "k2", "arg"),
                    "numkeys declares the keys, as the command's key spec finds them");
        }
    }

    @Test
    void luaValuesBecomeResp2Replies() throws Exception {
        try (RespClient c = client()) {
            assertEquals(3L, c.call("EVAL", "return 3.99", "0"), "numbers truncate to integers");
            assertEquals(-3L, c.call("EVAL", "return -3.99", "0"));
            assertEquals(1L, c.call("EVAL", "return true", "0"));
            assertEquals(null, c.call("EVAL", "return false", "0"));
            assertEquals(null, c.call("EVAL", "return nil", "0"));
            assertEquals(List.of(1L, 2L), c.call("EVAL", "return {1, 2, nil, 4}", "0"), "an array ends at its first nil");
            assertEquals("FINE", c.call("EVAL", "return redis.status_reply('FINE')", "0"));
            assertEquals(err("My Error"), c.call("EVAL", "return redis.error_reply('My Error')", "0"));
            assertEquals(err("ERR this is an error"), c.call("EVAL", "return {err='ERR this is an error'}", "0"));
            assertEquals("OK", c.call("EVAL", "return {ok='OK'}", "0"));
            c.call("SET", "s", "x");
            assertEquals(List.of("table", "ERR value is not an integer or out of range"),
                    c.call("EVAL", "local r = redis.pcall('incr', KEYS[1]) return {type(r), r['err']}", "1", "s"));
            Object wrongType = c.call("EVAL", "return redis.call('lpush', KEYS[1], 'a')", "1", "s");
            assertTrue(wrongType instanceof RespClient.Err e && e.text().startsWith("WRONGTYPE Operation against a key"),
                    "a command's error propagates with its own words: " + wrongType);
            assertEquals(List.of(0L, "table", "table"), c.call("EVAL",
                    "local s = redis.call('set', 'x', '1') local g = redis.call('get', 'nosuch') "
                            + "return {redis.call('exists', 'nosuch'), type(s), type(redis.call('lrange', 'nosuch', 0, -1))}", "0"));
            assertEquals(List.of("boolean"), c.call("EVAL", "return {type(redis.call('get', 'nosuch'))}", "0"),
                    "a null bulk reply is false");
        }
    }

    @Test
    void resp3ConversionsFollowRedis() throws Exception {
        try (RespClient c = client()) {
            c.call("HELLO", "3");
            c.call("HSET", "h", "f", "v");
            Map<Object, Object> map = new LinkedHashMap<>();
            map.put("f", "v");
            assertEquals(map, c.call("EVAL", "redis.setresp(3) return redis.call('hgetall', KEYS[1])", "1", "h"));
            assertEquals(List.of("map", "v"), c.call("EVAL",
                    "redis.setresp(3) local r = redis.call('hgetall', KEYS[1]) local k = next(r) return {k, r.map.f}", "1", "h"));
            assertEquals(3.5, c.call("EVAL", "return {double=3.5}", "0"));
            assertEquals(true, c.call("EVAL", "redis.setresp(3) return true", "0"));
            assertEquals(false, c.call("EVAL", "redis.setresp(3) return false", "0"));
            assertEquals(RespClient.NULL, c.call("EVAL", "redis.setresp(3) return redis.call('get', 'nosuch')", "0"),
                    "RESP3 null is Lua nil, and nil a null");
            assertEquals(List.of("nil"), c.call("EVAL", "redis.setresp(3) return {type(redis.call('get', 'nosuch'))}", "0"));
            assertEquals(1L, c.call("EVAL", "return true", "0"), "without setresp(3) a script speaks RESP2");
        }
    }

    @Test
    void evalshaAndTheScriptCache() throws Exception {
        try (RespClient c = client()) {
            String body = "return ARGV[1]";
            String sha = (String) c.call("SCRIPT", "LOAD", body);
            assertEquals("b0ed2a4c93d8a9caf3bd2a7d5c53f0a6d0c14b62".length(), sha.length());
            assertEquals("hi", c.call("EVALSHA", sha, "0", "hi"));
            assertEquals("hi", c.call("EVALSHA", sha.toUpperCase(java.util.Locale.ROOT), "0", "hi"));
            assertEquals(List.of(1L, 0L), c.call("SCRIPT", "EXISTS", sha, "0000000000000000000000000000000000000000"));
            assertEquals("OK", c.call("SCRIPT", "FLUSH"));
            assertEquals(err("NOSCRIPT No matching script. Please use EVAL."), c.call("EVALSHA", sha, "0", "hi"));
            assertEquals("x", c.call("EVAL", body, "0", "x"));
            assertEquals("y", c.call("EVALSHA", sha, "0", "y"), "EVAL caches what it runs");
            assertEquals(err("NOTBUSY No scripts in execution right now."), c.call("SCRIPT", "KILL"));
            Object compile = c.call("EVAL", "return (", "0");
            assertTrue(compile instanceof RespClient.Err e && e.text().startsWith("ERR Error compiling script (new function): user_script:1:"),
                    String.valueOf(compile));
        }
    }

    @Test
    void theSandboxRefusesTheMachineAndGlobals() throws Exception {
        try (RespClient c = client()) {
            for (String name : List.of("os", "io", "dofile", "loadfile", "require", "print", "debug")) {
                Object reply = c.call("EVAL", "return " + name, "0");
                assertTrue(reply instanceof RespClient.Err e && e.text().startsWith(
                        "ERR user_script:1: Script attempted to access nonexistent global variable '" + name + "'"),
                        name + ": " + reply);
            }
            Object write = c.call("EVAL", "a = 10", "0");
            assertTrue(write instanceof RespClient.Err e && e.text().contains("Attempt to modify a readonly table"), String.valueOf(write));
            Object redisWrite = c.call("EVAL", "redis.call = function() return 1 end", "0");
            assertTrue(redisWrite instanceof RespClient.Err e && e.text().contains("Attempt to modify a readonly table"),
                    String.valueOf(redisWrite));
            assertEquals(List.of("nil", "bytecode is not allowed in scripts"),
                    c.call("EVAL", "local f, e = loadstring(string.char(27) .. 'Lua') return {type(f), e}", "0"));
            assertEquals(5L, c.call("EVAL", "return loadstring('return 5')()", "0"));
            assertEquals(null, c.call("EVAL", "return string.dump", "0"));
            assertEquals(2L, c.call("EVAL", "return select('#', unpack({1, 2}))", "0"), "Lua 5.1's unpack is there");
        }
    }

    @Test
    void librariesScriptsUse() throws Exception {
        try (RespClient c = client()) {
            assertEquals("{\"a\":[1,2,\"x\"]}", c.call("EVAL", "return cjson.encode({a={1,2,'x'}})", "0"));
            assertEquals(List.of(2L, "v"), c.call("EVAL",
                    "local t = cjson.decode('{\"n\":[1,2],\"s\":\"v\"}') return {t.n[2], t.s}", "0"));
            assertEquals(1L, c.call("EVAL", "return cjson.decode('null') == cjson.null and 1 or 0", "0"));
            assertEquals(List.of(15L, -1L, "000000ff", 256L), c.call("EVAL",
                    "return {bit.band(0xff, 0x0f), bit.bnot(0), bit.tohex(255), bit.lshift(1, 8)}", "0"));
            assertEquals(List.of(258L, 3L), c.call("EVAL", "return {struct.unpack('>I2', struct.pack('>I2', 258))}", "0"));
            assertEquals(List.of(1L, "two", 3L), c.call("EVAL", "return cmsgpack.unpack(cmsgpack.pack({1, 'two', 3}))", "0"));
            assertEquals("da39a3ee5e6b4b0d3255bfef95601890afd80709", c.call("EVAL", "return redis.sha1hex('')", "0"));
        }
    }

    @Test
    void readOnlyScriptsRefuseWrites() throws Exception {
        try (RespClient c = client()) {
            c.call("SET", "k", "v");
            assertEquals("v", c.call("EVAL_RO", "return redis.call('get', KEYS[1])", "1", "k"));
            Object refused = c.call("EVAL_RO", "return redis.call('set', KEYS[1], 'x')", "1", "k");
            assertTrue(refused instanceof RespClient.Err e
                    && e.text().startsWith("ERR Write commands are not allowed from read-only scripts."), String.valueOf(refused));
            String sha = (String) c.call("SCRIPT", "LOAD", "return redis.call('get', KEYS[1])");
            assertEquals("v", c.call("EVALSHA_RO", sha, "1", "k"));
            Object flagged = c.call("EVAL", "#!lua flags=no-writes\nreturn redis.call('set', KEYS[1], 'x')", "1", "k");
            assertTrue(flagged instanceof RespClient.Err e
                    && e.text().startsWith("ERR Write commands are not allowed from read-only scripts."), String.valueOf(flagged));
            assertEquals(err("ERR Can not execute a script with write flag using *_ro command."),
                    c.call("EVAL_RO", "#!lua\nreturn 1", "0"));
            assertEquals(err("ERR Unexpected flag in script shebang: bogus"), c.call("EVAL", "#!lua flags=bogus\nreturn 1", "0"));
            Object noscript = c.call("EVAL", "return redis.call('multi')", "0");
            assertTrue(noscript instanceof RespClient.Err e && e.text().startsWith("ERR This Redis command is not allowed from script"),
                    String.valueOf(noscript));
            assertEquals("v", c.call("GET", "k"));
        }
    }

    @Test
    void functionsLoadCallListDumpAndRestore() throws Exception {
        try (RespClient c = client()) {
            String lib = "#!lua name=mylib\n"
                    + "redis.register_function('set_get', function(keys, args) redis.call('set', keys[1], args[1]) "
                    + "return redis.call('get', keys[1]) end)\n"
                    + "redis.register_function{function_name='ro_get', callback=function(keys) return redis.call('get', keys[1]) end, "
                    + "flags={'no-writes'}, description='reads'}";
            assertEquals("mylib", c.call("FUNCTION", "LOAD", lib));
            assertEquals(err("ERR Library 'mylib' already exists"), c.call("FUNCTION", "LOAD", lib));
            assertEquals("mylib", c.call("FUNCTION", "LOAD", "REPLACE", lib));
            assertEquals("v1", c.call("FCALL", "set_get", "1", "k", "v1"));
            assertEquals("v1", c.call("FCALL_RO", "ro_get", "1", "k"));
            assertEquals(err("ERR Can not execute a script with write flag using *_ro command."),
                    c.call("FCALL_RO", "set_get", "1", "k", "v2"));
            assertEquals(err("ERR Function not found"), c.call("FCALL", "nosuch", "0"));
            List<?> listed = (List<?>) c.call("FUNCTION", "LIST");
            assertEquals(1, listed.size());
            List<?> library = (List<?>) listed.get(0);
            assertEquals(List.of("library_name", "mylib", "engine", "LUA", "functions"), library.subList(0, 5));
            assertEquals(List.of(Arrays.asList("name", "set_get", "description", null, "flags", List.of()),
                    List.of("name", "ro_get", "description", "reads", "flags", List.of("no-writes"))), library.get(5));

            Object loadCall = c.call("FUNCTION", "LOAD", "#!lua name=bad\nreturn redis.call('ping')");
            assertTrue(loadCall instanceof RespClient.Err e && e.text().contains("attempted to access nonexistent global variable 'call'"),
                    String.valueOf(loadCall));
            assertEquals(err("ERR No functions registered"), c.call("FUNCTION", "LOAD", "#!lua name=empty\nlocal x = 1"));
            Object loadMath = c.call("FUNCTION", "LOAD", "#!lua name=m\nreturn math.random()");
            assertTrue(loadMath instanceof RespClient.Err e && e.text().contains("nonexistent global variable 'math'"),
                    "a library's code sees only redis while it loads: " + loadMath);
            assertEquals(err("ERR FUNCTION LOAD timeout"), c.call("FUNCTION", "LOAD", "#!lua name=slow\nwhile true do end"));
            assertEquals("v1", c.call("FCALL", "SET_GET", "1", "k", "v1"), "function names are case-insensitive");
            assertEquals(err("ERR Missing library metadata"), c.call("FUNCTION", "LOAD", "return 1"));

            assertEquals("OK", c.call("FUNCTION", "DELETE", "mylib"));
            assertEquals(err("ERR Library not found"), c.call("FUNCTION", "DELETE", "mylib"));
            assertEquals(err("ERR Function not found"), c.call("FCALL", "set_get", "1", "k", "v"));
        }
    }

    @Test
    void functionDumpRestoresWholeAndChecksItsChecksum() throws Exception {
        try (Lettuce l = Lettuce.connect(server.port(), ProtocolVersion.RESP2)) {
            var sync = l.sync();
            sync.flushall();
            sync.functionFlush(io.lettuce.core.FlushMode.SYNC);
            assertEquals("lib", sync.functionLoad("#!lua name=lib\nredis.register_function('echo', function(k, a) return a[1] end)"));
            byte[] dump = sync.functionDump();
            sync.functionFlush(io.lettuce.core.FlushMode.SYNC);
            assertEquals("OK", sync.functionRestore(dump));
            assertEquals("hi", sync.fcall("echo", ScriptOutputType.VALUE, new String[0], "hi"));
            byte[] damaged = Arrays.copyOf(dump, dump.length);
            damaged[damaged.length - 1] ^= 1;
            Exception e = org.junit.jupiter.api.Assertions.assertThrows(Exception.class, () -> sync.functionRestore(damaged));
            assertTrue(e.getMessage().contains("ERR payload version or checksum are wrong"), e.getMessage());
            Exception exists = org.junit.jupiter.api.Assertions.assertThrows(Exception.class, () -> sync.functionRestore(dump));
            assertTrue(exists.getMessage().contains("ERR Library lib already exists"), exists.getMessage());
            assertEquals("OK", sync.functionRestore(dump, io.lettuce.core.FunctionRestoreMode.REPLACE));
            assertEquals(Long.valueOf(7), sync.eval("return 7", ScriptOutputType.INTEGER));
            String sha = sync.scriptLoad("return KEYS[1]");
            assertEquals("k", sync.evalsha(sha, ScriptOutputType.VALUE, "k"));
        }
    }
}
