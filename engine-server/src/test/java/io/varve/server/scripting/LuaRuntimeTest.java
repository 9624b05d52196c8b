package io.varve.server.scripting;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The interpreter without a server: Redis's error words and locations, the conversion of results, the
 * libraries' exact outputs, and the instruction hook that stops a script that never calls back.
 */
class LuaRuntimeTest {

    private final Scripting scripting = new Scripting();

    /** Runs {@code body} as an EVAL whose commands all answer {@code commandReply}; the reply as RESP2 text. */
    private String eval(String body, String commandReply) {
        EvalScripts.Script script = scripting.scripts().load(body.getBytes(StandardCharsets.UTF_8));
        ScriptRun run = new ScriptRun(script.sha(), false, false,
                (args, protocol) -> commandReply.getBytes(StandardCharsets.UTF_8), 5000);
        ByteBuf out = Unpooled.buffer();
        scripting.scripts().run(script, new byte[][] {"k1".getBytes()}, new byte[][] {"a1".getBytes()}, run, new Reply(out, 2));
        return out.toString(StandardCharsets.UTF_8);
    }

    private String eval(String body) {
        return eval(body, "+OK\r\n");
    }

    private String error(String body) {
        return assertThrows(RedisError.class, () -> eval(body, "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"))
                .getMessage();
    }

    @Test
    void runtimeErrorsCarryRedisWordsAndTheLine() {
        String sha = EvalScripts.sha1("return a".getBytes());
        assertEquals("ERR user_script:1: Script attempted to access nonexistent global variable 'a' script: "
                + sha + ", on @user_script:1.", error("return a"));
        assertEquals("ERR user_script:2: boom script: " + EvalScripts.sha1("local x = 1\nerror('boom')".getBytes())
                + ", on @user_script:2.", error("local x = 1\nerror('boom')"));
        String raising = "local r = redis.call('lpush', 'k', 'v') return r";
        assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value script: "
                + EvalScripts.sha1(raising.getBytes()) + ", on @user_script:1.", error(raising),
                "a command's error keeps its own code");
        assertTrue(error("local r = redis.call() return r")
                .startsWith("ERR Please specify at least one argument for this redis lib call script: "));
        assertTrue(error("local r = redis.call('get', {}) return r")
                .startsWith("ERR Lua redis lib command arguments must be strings or integers script: "));
    }

    @Test
    void resultsConvertAsRedisConvertsThem() {
        assertEquals("*5\r\n:1\r\n:2\r\n:3\r\n$4\r\nciao\r\n*2\r\n:1\r\n:2\r\n", eval("return {1,2,3,'ciao',{1,2}}"));
        assertEquals(":3\r\n", eval("return 3.99"));
        assertEquals("$-1\r\n", eval("return false"));
        assertEquals(":1\r\n", eval("return true"));
        assertEquals("*1\r\n:1\r\n", eval("return {1,nil,3}"));
        assertEquals("My Error", assertThrows(RedisError.class, () -> eval("return {err='My Error'}")).getMessage(),
                "an error result is thrown, so the server counts it as an error reply");
        assertEquals("+FINE\r\n", eval("return redis.status_reply('FINE')"));
        assertEquals("$2\r\nk1\r\n", eval("return KEYS[1]"));
        assertEquals("$2\r\na1\r\n", eval("return ARGV[1]"));
        assertEquals("*1\r\n$2\r\nok\r\n", eval("local r = redis.call('set', 'a', 'b') local k = next(r) return {k}"),
                "a status reply is a table with an ok field");
        assertEquals("$1\r\n3\r\n", eval("return tostring(redis.call('incr', 'x'))", ":3\r\n"));
        assertEquals(":1\r\n", eval("return redis.call('get', 'x') == false and 1 or 0", "$-1\r\n"));
    }

    @Test
    void cjsonMatchesLuaCjson() {
        assertEquals("$13\r\n[1,2,{\"a\":1}]\r\n", eval("return cjson.encode({1,2,{a=1}})"));
        assertEquals("$2\r\n{}\r\n", eval("return cjson.encode({})"));
        assertEquals("$9\r\n\"a\\/b\\\"c\"\r\n", eval("return cjson.encode('a/b\"c')"));
        assertEquals("$3\r\n0.5\r\n", eval("return cjson.encode(0.5)"));
        assertEquals(":6\r\n", eval("return cjson.decode('[1,2,{\"a\":6}]')[3].a"));
        assertEquals("$2\r\nhé\r\n".length(), eval("return cjson.decode('\"h\\\\u00e9\"')").length());
        String sparse = error("local s = cjson.encode({[1]=1, [100]=2}) return s");
        assertEquals("ERR user_script:1: Cannot serialise table: excessively sparse array", sparse.substring(0, sparse.indexOf(" script:")));
    }

    @Test
    void bitOperatesOnSigned32BitNumbers() {
        assertEquals(":-1\r\n", eval("return bit.tobit(0xffffffff)"));
        assertEquals(":-2147483648\r\n", eval("return bit.lshift(1, 31)"));
        assertEquals(":2147483647\r\n", eval("return bit.rshift(-1, 1)"));
        assertEquals(":-1\r\n", eval("return bit.arshift(-1, 1)"));
        assertEquals("$8\r\nFFFFFFFF\r\n", eval("return bit.tohex(-1, -8)"));
        assertEquals(":7\r\n", eval("return bit.bxor(1, 2, 4)"));
        assertEquals(":67305985\r\n", eval("return bit.bswap(0x01020304)"));
    }

    @Test
    void structAndCmsgpackRoundTrip() {
        assertEquals("*3\r\n:-2\r\n:65535\r\n:5\r\n", eval("return {struct.unpack('<hH', struct.pack('<hH', -2, 65535))}"));
        assertEquals(":12\r\n", eval("return struct.size('>iii')"));
        assertEquals("$5\r\nhello\r\n", eval("return struct.unpack('s', struct.pack('s', 'hello'))"));
        assertEquals("*2\r\n:300\r\n$1\r\nx\r\n", eval("local t = cmsgpack.unpack(cmsgpack.pack({a=300, b='x'})) return {t.a, t.b}"));
        assertEquals("$4\r\n\u0093\u0001\u0002\u0003\r\n".length(), eval("return cmsgpack.pack({1,2,3})").length());
    }

    @Test
    void aLoopThatNeverCallsBackIsStoppedByTheHook() throws Exception {
        EvalScripts.Script script = scripting.scripts().load("while true do end".getBytes());
        ScriptRun run = new ScriptRun(script.sha(), false, false, (a, p) -> new byte[0], 1);
        scripting.running(run);
        Thread killer = Thread.ofVirtual().start(() -> {
            while (!scripting.busy()) {
                Thread.onSpinWait(); // busy is only ever set by the hook inside the loop
            }
            scripting.requestKill();
        });
        RedisError e = assertThrows(RedisError.class,
                () -> scripting.scripts().run(script, new byte[0][], new byte[0][], run, new Reply(Unpooled.buffer(), 2)));
        killer.join();
        assertEquals("ERR Script killed by user with SCRIPT KILL...", e.getMessage());
    }

    @Test
    void pcallCannotSwallowAKill() throws Exception {
        EvalScripts.Script script = scripting.scripts().load("while true do pcall(function() while true do end end) end".getBytes());
        ScriptRun run = new ScriptRun(script.sha(), false, false, (a, p) -> new byte[0], 1);
        scripting.running(run);
        Thread killer = Thread.ofVirtual().start(() -> {
            while (!scripting.busy()) {
                Thread.onSpinWait();
            }
            scripting.requestKill();
        });
        assertThrows(RedisError.class,
                () -> scripting.scripts().run(script, new byte[0][], new byte[0][], run, new Reply(Unpooled.buffer(), 2)));
        killer.join();
    }

    @Test
    void numbersPrintAsLua51PrintsThem() {
        assertEquals("$26\r\n0 -5000 -1 0.0003 1023.2 0\r\n",
                eval("return table.concat(cjson.decode('[0.0, -5e3, -1, 0.3e-3, 1023.2, 0e10]'), ' ')"));
        assertEquals("$5\r\n1e+20\r\n", eval("return tostring(1e20)"));
        assertEquals("$16\r\n0.33333333333333\r\n", eval("return tostring(1/3)"));
    }

    @Test
    void libraryTablesAndGlobalsAreReadOnly() {
        for (String trick : new String[] {"cjson.encode = function() return 1 end", "bit.band = nil",
                "cmsgpack.pack = nil", "string.rep = nil", "setmetatable(_G, {})",
                "local g = getmetatable(_G) g.__index = {}"}) {
            String e = error(trick);
            assertTrue(e.contains("Attempt to modify a readonly table"), trick + ": " + e);
        }
        assertEquals("$3\r\nABC\r\n", eval("return string.upper('abc')"), "reads still work");
    }

    @Test
    void cjsonDepthLimitsAndCmsgpackPartialUnpacking() {
        assertEquals(":0\r\n", eval("cjson.encode_max_depth(1) local ok = pcall(cjson.encode, {a={1}}) "
                + "cjson.encode_max_depth(1000) return ok and 1 or 0"));
        assertEquals(":0\r\n", eval("cjson.decode_max_depth(1) local ok = pcall(cjson.decode, '{\"o\":{}}') "
                + "cjson.decode_max_depth(1000) return ok and 1 or 0"));
        assertEquals("*3\r\n:2\r\n$1\r\na\r\n:-1\r\n", eval(
                "local s = cmsgpack.pack('a', 'b') local off, v = cmsgpack.unpack_one(s, 0) "
                        + "local off2 = cmsgpack.unpack_one(s, off) return {off, v, off2}"));
    }
}
