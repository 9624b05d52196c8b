package io.varve.server.scripting;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

class ScratchTest {
    @Test
    void explore() {
        Scripting s = new Scripting();
        String[] scripts = {
            "return a", "a = 10", "return 1 + nil", "error('boom')", "error({err='MY code'})",
            "return redis.call('x')", "local x = redis.pcall('x') return x['err']",
            "return {1,2,3,'ciao',{1,2}}", "return 3.99", "return -3.99", "return true", "return false",
            "return {err='My Error'}", "return redis.error_reply('My Error')", "return redis.status_reply('FINE')",
            "return cjson.encode({1,2,{a=1}})", "return cjson.decode('[1,2,{\"a\":6}]')[3].a",
            "return bit.tohex(65535)", "return bit.band(0xff, 0x0f)", "return redis.sha1hex('')",
            "return unpack({1,2,3})", "return loadstring('return 5')()", "return os", "return string.dump",
            "return struct.pack('>I2', 258)", "return cmsgpack.unpack(cmsgpack.pack({1,2,3}))",
            "return KEYS[1]", "local t = {} t[1]=1 t[3] = 3 return t", "return {1,nil,3}",
            "return loadstring(string.char(27)..'Lua')", "x = {}", "_G.x = 1", "return rawget(_G,'x')",
            "return print", "syntax error here", "return tostring(1e20)", "return 1e20",
            "redis.setresp(3) return redis.call('x')", "return type(_G)", "setmetatable(_G, {})",
            "while true do end",
        };
        for (String script : scripts) {
            ByteBuf out = Unpooled.buffer();
            try {
                EvalScripts.Script sc = s.scripts().load(script.getBytes(StandardCharsets.UTF_8));
                ScriptRun run = new ScriptRun(sc.sha(), false, false, (args, p) -> "-ERR Unknown Redis command called from script\r\n".getBytes(), 100);
                if (script.startsWith("while")) {
                    Thread t = new Thread(() -> { while (!s.busy()) Thread.onSpinWait(); s.requestKill(); });
                    s.running(run);
                    t.start();
                }
                s.scripts().run(sc, new byte[][] {"k1".getBytes()}, new byte[0][], run, new Reply(out, 2));
                System.out.println(script + "  =>  " + out.toString(StandardCharsets.UTF_8).replace("\r\n", "\\r\\n"));
            } catch (RedisError e) {
                System.out.println(script + "  =>  ERROR " + e.getMessage());
            } catch (Throwable e) {
                System.out.println(script + "  =>  THROWN " + e);
                e.printStackTrace(System.out);
            }
        }
    }
}
