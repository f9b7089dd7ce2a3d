// The load generator of bench/load.ts when `wrk` is on PATH (Debian: apt-get install wrk).
// wrk is written in C and costs a fraction of the CPU of sixteen Node fetch loops, so on a
// 2-core machine the server under test keeps a core to itself and round-to-round figures
// move far less. Each request is a message/send with its own messageId (the runtime keys
// per-request metadata by it); an answer that is not a completed task is counted as an
// error and fails the measurement, as load.ts's own generator does.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function wrkAvailable(): boolean {
  if (process.env.BENCH_LOADGEN === 'node') return false;
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (err) {
    // wrk --version exits 1 after printing its version: it is there when it could be spawned.
    return (err as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

const script = (text: string) => `
local counter = 0
local prefix = ""
local threads = {}
function setup(thread)
  thread:set("tid", tostring(#threads + 1))
  table.insert(threads, thread)
end
function init(args)
  prefix = "wrk-" .. tid .. "-" .. tostring(os.time()) .. "-" .. tostring(math.random(1, 1e9))
  bad = 0
end
local text = ${JSON.stringify(JSON.stringify(text))}
request = function()
  counter = counter + 1
  local body = '{"jsonrpc":"2.0","id":' .. counter .. ',"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"' .. prefix .. '-' .. counter .. '","parts":[{"kind":"text","text":' .. text .. '}]}}}'
  return wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, body)
end
response = function(status, headers, body)
  if status ~= 200 or not string.find(body, '"state":"completed"', 1, true) then
    bad = bad + 1
    if bad == 1 then io.stderr:write("unexpected answer: " .. string.sub(body, 1, 300) .. "\\n") end
  end
end
function done(summary, latency, requests)
  local bad_total = 0
  for _, t in ipairs(threads) do bad_total = bad_total + (tonumber(t:get("bad")) or 0) end
  io.write(string.format('WRK_JSON {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"bad":%d,"socket_errors":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), bad_total,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
`;

export interface WrkResult {
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
}

/** `connections` clients on one wrk thread for `seconds`, against `url`. */
export async function wrkLoad(url: string, text: string, connections: number, seconds: number): Promise<WrkResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-wrk-'));
  const file = path.join(dir, 'send.lua');
  fs.writeFileSync(file, script(text));
  try {
    const out = await new Promise<string>((resolve, reject) =>
      execFile('wrk', ['-t1', `-c${connections}`, `-d${Math.max(1, Math.round(seconds))}s`, '--timeout', '30s', '-s', file, url], (err, stdout, stderr) =>
        err ? reject(new Error(`wrk failed: ${stderr || err.message}`)) : resolve(stdout),
      ),
    );
    const line = /WRK_JSON (\{.*\})/.exec(out);
    if (!line) throw new Error(`wrk printed no summary:\n${out}`);
    const s = JSON.parse(line[1]) as { requests: number; duration_us: number; p50_us: number; p99_us: number; bad: number; socket_errors: number };
    if (s.bad > 0 || s.socket_errors > 0) throw new Error(`wrk: ${s.bad} unexpected answers, ${s.socket_errors} socket errors of ${s.requests}`);
    return { requests: s.requests, seconds: s.duration_us / 1e6, p50: s.p50_us / 1000, p99: s.p99_us / 1000 };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
