#!/usr/bin/env node
// bench/serve/serve_bench.mjs: load and fault benchmark of `attractor serve` (docs/server.md).
//
//   node bench/serve/serve_bench.mjs ATTRACTOR [OUT_DIR] [options]
//
// Phases (--phases, comma separated, default "load,load-default,fault,fault-early"):
//   load          one server with --max-concurrent = --runs; --runs runs of a --stages-stage
//                 simulated pipeline submitted at once, --clients-per-run SSE clients on each.
//                 Measures wall time, throughput, event delivery delay (receive time minus the
//                 event's `ts`), the server's peak RSS, and checks that every client received
//                 every line of its run's events.jsonl exactly once, in order.
//   load-default  the same with the server's default --max-concurrent (the number of cores).
//   fault         the same load on a fresh logs root; the server is killed with SIGKILL once
//                 --kill-fraction of all stage completions have been seen on the streams, a new
//                 server is started on the same logs root, every run that did not complete is
//                 resumed with POST /pipelines/{id}/resume, and every final checkpoint.json is
//                 compared with the checkpoint of an uninterrupted run. The SSE clients stay
//                 attached through all of it (reconnecting with Last-Event-ID), so the
//                 exactly-once check also covers the restart. The runs are submitted with at
//                 most --fault-submit-parallel (4) requests in flight, so that submitting ends
//                 long before the kill (see README: the server's listen backlog is 5).
//   fault-early   the same, killed right after the last POST /pipelines was answered (201):
//                 runs accepted but not yet started.
//
// Options: --runs N (50)  --stages N (20)  --clients-per-run N (2)  --kill-fraction F (0.5)
//          --fault-submit-parallel N (4; 0 = all at once)
//          --connect-parallel N (0 = no limit): TCP connections the bench establishes at once
//          --pause-every K (4) --pause S (0.2): a tool stage `sleep S` after every K-th simulated
//          stage, so that a run lasts long enough to be killed in the middle (0 = none)
//          --timeout S (240: per phase)  --server-log-level L (warn)
//
// Node.js 20, no packages. Prints a human table on stderr and the JSON summary on stdout; both
// are also written to OUT_DIR (summary.json, summary.txt) with the servers' stderr logs.

import http from 'node:http';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';

// ---------------------------------------------------------------------------------------------
// Arguments

function parseArgs(argv) {
  const opts = {
    binary: null,
    out: null,
    runs: 50,
    stages: 20,
    clientsPerRun: 2,
    killFraction: 0.5,
    pauseEvery: 4,
    pauseS: 0.2,
    serverLogLevel: 'warn',
    timeoutS: 240,
    phases: ['load', 'load-default', 'fault', 'fault-early'],
    faultSubmitParallel: 4,
    connectParallel: 0,
  };
  const positional = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    switch (a) {
      case '--runs': opts.runs = Number(value()); break;
      case '--stages': opts.stages = Number(value()); break;
      case '--clients-per-run': opts.clientsPerRun = Number(value()); break;
      case '--kill-fraction': opts.killFraction = Number(value()); break;
      case '--fault-submit-parallel': opts.faultSubmitParallel = Number(value()); break;
      case '--connect-parallel': opts.connectParallel = Number(value()); break;
      case '--pause-every': opts.pauseEvery = Number(value()); break;
      case '--pause': opts.pauseS = Number(value()); break;
      case '--server-log-level': opts.serverLogLevel = value(); break;
      case '--timeout': opts.timeoutS = Number(value()); break;
      case '--phases': opts.phases = value().split(',').filter(Boolean); break;
      case '-h':
      case '--help':
        process.stderr.write(fs.readFileSync(new URL(import.meta.url)).toString().split('\n')
          .filter((l) => l.startsWith('//')).map((l) => l.slice(3)).join('\n') + '\n');
        process.exit(0);
      default:
        if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
        positional.push(a);
    }
  }
  if (positional.length < 1) throw new Error('usage: serve_bench.mjs ATTRACTOR [OUT_DIR] [options]');
  opts.binary = path.resolve(positional[0]);
  opts.out = path.resolve(positional[1] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-serve-bench.')));
  for (const p of opts.phases) {
    if (!['load', 'load-default', 'fault', 'fault-early'].includes(p)) throw new Error(`unknown phase ${p}`);
  }
  return opts;
}

// ---------------------------------------------------------------------------------------------
// Small helpers

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const nowMs = () => performance.timeOrigin + performance.now();

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (v) => (v === null ? null : Math.round(v * 10) / 10);
  return {
    count: sorted.length,
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.length ? sorted[sorted.length - 1] : null),
    mean: round(sorted.length ? sorted.reduce((s, v) => s + v, 0) / sorted.length : null),
  };
}

function log(msg) {
  process.stderr.write(`[${new Date().toISOString().slice(11, 23)}] ${msg}\n`);
}

/// The complete lines of a file (a last line without its newline is reported apart, as the
/// server's read_event_lines leaves it out too).
function readLines(file) {
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return { lines: [], torn: null };
  }
  const parts = text.split('\n');
  const torn = parts.pop();
  return { lines: parts, torn: torn === '' ? null : torn };
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/// JSON with object keys sorted, for comparisons.
function canonical(v) {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') {
    const out = {};
    for (const k of Object.keys(v).sort()) out[k] = canonical(v[k]);
    return out;
  }
  return v;
}

/// Paths where two JSON values differ ("a.b[3]"), at most `limit`.
function jsonDiff(a, b, prefix = '', out = [], limit = 20) {
  if (out.length >= limit) return out;
  const isObj = (x) => x && typeof x === 'object' && !Array.isArray(x);
  if (isObj(a) && isObj(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const p = prefix ? `${prefix}.${k}` : k;
      if (!(k in a) || !(k in b)) out.push(p);
      else jsonDiff(a[k], b[k], p, out, limit);
    }
  } else if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) out.push(`${prefix} (length ${a.length} vs ${b.length})`);
    else for (let i = 0; i < a.length; i++) jsonDiff(a[i], b[i], `${prefix}[${i}]`, out, limit);
  } else if (JSON.stringify(a) !== JSON.stringify(b)) {
    out.push(prefix);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The pipeline

/// The number of pause (tool) stages of the pipeline.
function pauseCount(opts) {
  return opts.pauseEvery > 0 && opts.pauseS > 0 ? Math.floor(opts.stages / opts.pauseEvery) : 0;
}

function pipelineDot(opts) {
  const lines = [
    'digraph serve_bench {',
    '  graph [goal="exercise attractor serve"]',
    '  start [shape=Mdiamond]',
    '  exit [shape=Msquare]',
  ];
  let prev = 'start';
  let pauses = 0;
  for (let i = 1; i <= opts.stages; i++) {
    lines.push(`  s${i} [shape=box, llm_provider=simulate, prompt="Stage ${i} of ${opts.stages}: $goal"]`);
    lines.push(`  ${prev} -> s${i}`);
    prev = `s${i}`;
    if (pauseCount(opts) > 0 && i % opts.pauseEvery === 0) {
      pauses++;
      lines.push(`  p${pauses} [shape=parallelogram, tool_command="sleep ${opts.pauseS}"]`);
      lines.push(`  ${prev} -> p${pauses}`);
      prev = `p${pauses}`;
    }
  }
  lines.push(`  ${prev} -> exit`);
  lines.push('}');
  return lines.join('\n') + '\n';
}

// ---------------------------------------------------------------------------------------------
// HTTP

// No keep-alive: the server gives every connection a thread of its pool for as long as it is
// open, so idle pooled connections would take threads from the event streams.
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

/// At most `limit` TCP connections being established at once (0: no limit). The server listens
/// with a backlog of 5: a burst of connection attempts overflows its accept queue when its accept
/// thread does not get the CPU in time, and the kernel drops the handshakes (the client retries
/// after 1, 3, 7... s). `--connect-parallel 4` keeps the bench's side below that.
const connectGate = {
  limit: 0,
  busy: 0,
  waiting: [],
  async acquire() {
    if (this.limit <= 0) return () => {};
    if (this.busy >= this.limit) await new Promise((resolve) => this.waiting.push(resolve));
    else this.busy++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.busy--;
    };
  },
};

/// Calls `release` once `req`'s connection is established (or failed).
function releaseOnConnect(req, release) {
  req.on('socket', (socket) => {
    if (!socket.connecting) release();
    else socket.once('connect', release);
  });
  req.on('error', release);
  req.on('response', release);
}

async function request(port, method, urlPath, body) {
  const release = await connectGate.acquire();
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? null : Buffer.from(JSON.stringify(body));
    const headers = { Accept: 'application/json', Authorization: `Bearer ${BENCH_TOKEN}` };
    if (method === 'POST') {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = payload ? payload.length : 0;
    }
    const req = http.request({ host: '127.0.0.1', port, method, path: urlPath, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json = null;
        try {
          json = JSON.parse(text);
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode, text, json });
      });
      res.on('error', reject);
    });
    releaseOnConnect(req, release);
    req.on('error', reject);
    req.end(payload ?? undefined);
  });
}

// ---------------------------------------------------------------------------------------------
// The server process

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/// TcpExtListenOverflows of /proc/net/netstat: connection attempts dropped because a listening
/// socket's accept queue was full (system-wide).
function listenOverflows() {
  try {
    const lines = fs.readFileSync('/proc/net/netstat', 'utf8').split('\n');
    for (let i = 0; i + 1 < lines.length; i += 2) {
      if (!lines[i].startsWith('TcpExt:')) continue;
      const names = lines[i].split(' ');
      const values = lines[i + 1].split(' ');
      const k = names.indexOf('ListenOverflows');
      return k >= 0 ? Number(values[k]) : null;
    }
  } catch {
    // not Linux
  }
  return null;
}

/// The access token every bench server is started with (--token-file).
const BENCH_TOKEN = crypto.randomBytes(32).toString('hex');

const liveServers = new Set();
process.on('exit', () => {
  for (const s of liveServers) s.proc.kill('SIGKILL');
});

class Server {
  constructor(opts, logsRoot, graphsDir, maxConcurrent, logFile) {
    this.opts = opts;
    // The server requires a token on loopback too, and the pause stages run `sleep`.
    const tokenFile = path.join(path.dirname(logsRoot), 'bench-token');
    fs.writeFileSync(tokenFile, `${BENCH_TOKEN}\n`, { mode: 0o600 });
    this.args = ['serve', '--listen', '127.0.0.1:0', '--logs-root', logsRoot, '--graphs-dir', graphsDir,
      '--log-level', opts.serverLogLevel, '--token-file', tokenFile, '--allow-commands'];
    if (maxConcurrent) this.args.push('--max-concurrent', String(maxConcurrent));
    this.logFile = logFile;
    this.peakRssKb = 0;
    this.rssSamples = 0;
    this.exited = null;
  }

  start() {
    return new Promise((resolve, reject) => {
      const log = fs.createWriteStream(this.logFile, { flags: 'a' });
      log.write(`# ${this.opts.binary} ${this.args.join(' ')}\n`);
      this.proc = spawn(this.opts.binary, this.args, { stdio: ['ignore', 'ignore', 'pipe'] });
      this.pid = this.proc.pid;
      liveServers.add(this);
      this.exitPromise = new Promise((res) => this.proc.on('exit', (code, signal) => {
        this.exited = { code, signal };
        liveServers.delete(this);
        clearInterval(this.poller);
        log.end();
        res(this.exited);
      }));
      let pending = '';
      const timer = setTimeout(() => reject(new Error('the server did not print its address within 20 s')), 20000);
      this.proc.stderr.setEncoding('utf8');
      this.proc.stderr.on('data', (chunk) => {
        log.write(chunk);
        if (this.port) return;
        pending += chunk;
        const m = pending.match(/attractor serve: listening on http:\/\/127\.0\.0\.1:(\d+)\//);
        if (m) {
          this.port = Number(m[1]);
          clearTimeout(timer);
          this.baseRssKb = this.status().VmRSS ?? null;
          this.poller = setInterval(() => this.sample(), 50);
          resolve(this.port);
        }
      });
      this.proc.on('exit', () => {
        clearTimeout(timer);
        if (!this.port) reject(new Error(`the server exited before listening; see ${this.logFile}`));
      });
    });
  }

  /// /proc/PID/status fields in kB.
  status() {
    const out = {};
    try {
      for (const line of fs.readFileSync(`/proc/${this.pid}/status`, 'utf8').split('\n')) {
        const m = line.match(/^(Vm\w+|Threads):\s+(\d+)/);
        if (m) out[m[1]] = Number(m[2]);
      }
    } catch {
      // gone
    }
    return out;
  }

  sample() {
    const s = this.status();
    if (s.VmRSS) {
      this.rssSamples++;
      this.peakRssKb = Math.max(this.peakRssKb, s.VmRSS);
    }
    if (s.Threads) this.peakThreads = Math.max(this.peakThreads ?? 0, s.Threads);
  }

  /// User + system CPU seconds of the process so far.
  cpuSeconds() {
    try {
      const stat = fs.readFileSync(`/proc/${this.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return +((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS).toFixed(2);
    } catch {
      return null;
    }
  }

  memory() {
    this.sample();
    const s = this.status();
    return {
      base_rss_mb: this.baseRssKb ? +(this.baseRssKb / 1024).toFixed(1) : null,
      peak_rss_mb_polled: +(this.peakRssKb / 1024).toFixed(1),
      vm_hwm_mb: s.VmHWM ? +(s.VmHWM / 1024).toFixed(1) : null,
      rss_now_mb: s.VmRSS ? +(s.VmRSS / 1024).toFixed(1) : null,
      peak_threads: this.peakThreads ?? null,
      rss_samples: this.rssSamples,
    };
  }

  async stop() {
    if (this.exited) return this.exited;
    this.proc.kill('SIGTERM');
    let timer;
    const r = await Promise.race([this.exitPromise, new Promise((res) => (timer = setTimeout(() => res(null), 15000)))]);
    clearTimeout(timer);
    if (r) return r;
    this.proc.kill('SIGKILL');
    return this.exitPromise;
  }
}

// ---------------------------------------------------------------------------------------------
// SSE clients

const FINAL_EVENTS = new Set(['PipelineCompleted', 'PipelineFailed']);

class SseClient {
  constructor(bench, runId, index) {
    this.bench = bench;
    this.runId = runId;
    this.index = index;
    this.ids = [];
    this.datas = [];
    this.delays = [];      // ms, per received event
    this.live = [];        // true: the event was created while this connection was open
    this.lastId = 0;
    this.connections = 0;
    this.rejected = {};    // HTTP status -> count (503: too many streams)
    this.reconnectEvents = 0;
    this.drops = 0;
    this.endsBeforeFinal = 0;
    this.errors = 0;
    this.keepalives = 0;
    this.sawFinal = false;
    this.done = false;
    this.doneAt = null;
    this.gaveUp = false;
    this.history = [];     // per connection attempt: start (ms after the first submit), outcome, events
    // Per attempt that got a response: ms from the request to the status line. The server sends
    // a stream's status line with its first chunk (an event, `end`, or a keep-alive).
    this.responseMs = [];
  }

  async run(deadline) {
    while (!this.done) {
      if (this.bench.abandoned.has(this.runId)) {
        this.abandoned = true;
        return;
      }
      if (nowMs() > deadline) {
        this.gaveUp = true;
        return;
      }
      if (this.bench.serverDown) await this.bench.serverUp;
      const before = this.ids.length;
      const started = nowMs();
      const responses = this.responseMs.length;
      const outcome = await this.connectOnce();
      if (this.history.length < 200) {
        const waited = this.responseMs.length > responses ? ` after ${Math.round(this.responseMs[responses])}ms` : '';
        this.history.push(`at ${Math.round(started - this.bench.t0)}ms: ${outcome}${waited}, +${this.ids.length - before} events`);
      }
      if (outcome === 'end') {
        if (this.sawFinal) {
          this.done = true;
          this.doneAt = nowMs();
        } else {
          // The stream ended before the run did (an interrupted run waiting for its resume).
          this.endsBeforeFinal++;
          await sleep(200);
        }
      } else if (outcome === 'reconnect') {
        this.reconnectEvents++;
      } else if (outcome === 'drop') {
        this.drops++;
        await sleep(50);
      } else if (outcome === 'error') {
        this.errors++;
        await sleep(100);
      } else {
        // an HTTP error status (503 when 64 streams are open already): try again shortly
        await sleep(200 + Math.random() * 400);
      }
    }
  }

  async connectOnce() {
    const release = await connectGate.acquire();
    return new Promise((resolve) => {
      let settled = false;
      const settle = (v) => {
        if (!settled) {
          settled = true;
          resolve(v);
        }
      };
      const headers = { Accept: 'text/event-stream', Authorization: `Bearer ${BENCH_TOKEN}` };
      if (this.lastId > 0) headers['Last-Event-ID'] = String(this.lastId);
      const port = this.bench.port;
      const asked = nowMs();
      const req = http.get({ host: '127.0.0.1', port, path: `/pipelines/${this.runId}/events`, headers, agent }, (res) => {
        this.responseMs.push(nowMs() - asked);
        if (res.statusCode !== 200) {
          this.rejected[res.statusCode] = (this.rejected[res.statusCode] ?? 0) + 1;
          res.resume();
          res.on('end', () => settle(`http-${res.statusCode}`));
          res.on('error', () => settle(`http-${res.statusCode}`));
          return;
        }
        this.connections++;
        const openedAt = nowMs();
        let result = 'drop';
        let buf = '';
        let ev = { id: null, event: null, data: [] };
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          const at = nowMs();
          buf += chunk;
          const lines = buf.split('\n');
          buf = lines.pop();
          for (let line of lines) {
            if (line.endsWith('\r')) line = line.slice(0, -1);
            if (line === '') {
              if (ev.event === 'end') result = 'end';
              else if (ev.event === 'reconnect') result = 'reconnect';
              else if (ev.id !== null) this.receive(Number(ev.id), ev.data.join('\n'), at, openedAt);
              ev = { id: null, event: null, data: [] };
              continue;
            }
            if (line.startsWith(':')) {
              this.keepalives++;
              continue;
            }
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            let value = colon < 0 ? '' : line.slice(colon + 1);
            if (value.startsWith(' ')) value = value.slice(1);
            if (field === 'id') ev.id = value;
            else if (field === 'event') ev.event = value;
            else if (field === 'data') ev.data.push(value);
          }
        });
        res.on('end', () => settle(result));
        res.on('close', () => settle(result));
        res.on('error', () => settle(result));
      });
      releaseOnConnect(req, release);
      req.on('error', () => settle('error'));
    });
  }

  receive(id, data, at, openedAt) {
    this.ids.push(id);
    this.datas.push(data);
    if (id > this.lastId) this.lastId = id;
    let parsed = null;
    try {
      parsed = JSON.parse(data);
    } catch {
      // checked against the file later
    }
    const ts = parsed && typeof parsed.ts === 'string' ? Date.parse(parsed.ts) : NaN;
    if (!Number.isNaN(ts)) {
      this.delays.push(at - ts);
      // ts has whole milliseconds: an event created in the millisecond the stream opened counts as live
      this.live.push(ts >= Math.floor(openedAt));
    } else {
      this.delays.push(null);
      this.live.push(null);
    }
    if (parsed && FINAL_EVENTS.has(parsed.event)) this.sawFinal = true;
    this.bench.observe(this.runId, id, parsed);
  }
}

// ---------------------------------------------------------------------------------------------
// One load (optionally with the fault)

class Bench {
  constructor(opts, name, dirs, maxConcurrent) {
    this.opts = opts;
    this.name = name;
    this.dirs = dirs;
    this.maxConcurrent = maxConcurrent;
    this.clients = [];
    this.runIds = [];
    this.submitMs = [];
    this.submitFailures = [];
    this.serverDown = false;
    this.serverUp = Promise.resolve();
    this.stageCompletionsSeen = new Set();
    this.expectedCompletions = 0;
    this.killTrigger = null;
    this.submitted = false;
    this.abandoned = new Set();  // runs that could not be resumed: their clients stop
  }

  observe(runId, id, parsed) {
    if (!parsed || parsed.event !== 'StageCompleted' || this.killed) return;
    const key = `${runId}:${id}`;
    if (this.stageCompletionsSeen.has(key)) return;
    this.stageCompletionsSeen.add(key);
    if (this.killTrigger && this.stageCompletionsSeen.size >= this.killTrigger.at) this.killTrigger.fire();
  }

  /// POST /pipelines `runs` times, `parallel` requests in flight at most (0: all at once), and
  /// attaches the SSE clients of each run as soon as its 201 arrives.
  async submitAll(parallel = 0) {
    const deadline = nowMs() + this.opts.timeoutS * 1000;
    this.t0 = nowMs();
    const clientRuns = [];
    let left = this.opts.runs;
    const lanes = parallel > 0 ? Math.min(parallel, left) : left;
    await Promise.all(Array.from({ length: lanes }, async () => {
      while (left > 0) {
        left--;
        await this.submitOne(deadline, clientRuns);
      }
    }));
    this.tSubmitted = nowMs();
    this.submitted = true;
    this.clientsFinished = Promise.all(clientRuns);
  }

  async submitOne(deadline, clientRuns) {
    const t = nowMs();
    let r;
    try {
      r = await request(this.port, 'POST', '/pipelines', { graph: 'serve_bench.dot' });
    } catch (e) {
      this.submitFailures.push(String(e));
      return;
    }
    this.submitMs.push(nowMs() - t);
    if (r.status !== 201 || !r.json?.id) {
      this.submitFailures.push(`${r.status} ${r.text.trim()}`);
      return;
    }
    this.runIds.push(r.json.id);
    for (let k = 0; k < this.opts.clientsPerRun; k++) {
      const c = new SseClient(this, r.json.id, k);
      this.clients.push(c);
      clientRuns.push(c.run(deadline));
    }
  }

  /// Polls GET /pipelines/{id} until every run has a final status; returns id -> description.
  async waitForRuns(timeoutMs) {
    const final = new Set(['completed', 'failed', 'cancelled', 'stopped']);
    const deadline = nowMs() + timeoutMs;
    const described = {};
    for (;;) {
      const pending = this.runIds.filter((id) => !this.abandoned.has(id) &&
        (!described[id] || !final.has(described[id].status)));
      if (pending.length === 0) return described;
      for (const id of pending) {
        try {
          const r = await request(this.port, 'GET', `/pipelines/${id}`);
          if (r.json) described[id] = r.json;
        } catch {
          // try again
        }
      }
      if (nowMs() > deadline) return described;
      await sleep(250);
    }
  }

  /// Every client's stream against its run's events.jsonl after the run ended.
  verifyClients() {
    const files = {};
    for (const id of this.runIds) {
      const f = readLines(path.join(this.dirs.logsRoot, id, 'events.jsonl'));
      const bad = f.lines.filter((l) => {
        try {
          JSON.parse(l);
          return false;
        } catch {
          return true;
        }
      }).length;
      files[id] = { ...f, invalidJsonLines: bad };
    }
    const summary = {
      clients: this.clients.length,
      exactly_once_in_order: 0,
      with_gaps: 0,
      with_duplicates: 0,
      out_of_order: 0,
      with_data_mismatch: 0,
      with_ids_beyond_file: 0,
      incomplete: 0,
      gave_up: 0,
      of_runs_that_could_not_be_resumed: 0,
      events_received: 0,
      events_expected: 0,
      runs_with_torn_last_line: 0,
      runs_with_invalid_json_lines: 0,
      problems: [],
    };
    for (const id of this.runIds) {
      if (files[id].torn !== null) summary.runs_with_torn_last_line++;
      if (files[id].invalidJsonLines > 0) summary.runs_with_invalid_json_lines++;
    }
    for (const c of this.clients) {
      const { lines } = files[c.runId];
      summary.events_received += c.ids.length;
      summary.events_expected += lines.length;
      const seen = new Set();
      let gaps = 0;
      let dups = 0;
      let order = 0;
      let mismatch = 0;
      let beyond = 0;
      let firstProblem = null;
      let prev = 0;
      for (let i = 0; i < c.ids.length; i++) {
        const id = c.ids[i];
        if (seen.has(id)) {
          dups++;
          firstProblem ??= `id ${id} received twice (position ${i + 1})`;
        }
        seen.add(id);
        if (id < prev) {
          order++;
          firstProblem ??= `id ${id} after id ${prev}`;
        }
        if (id > prev + 1) {
          gaps += id - prev - 1;
          firstProblem ??= `ids ${prev + 1}..${id - 1} missing (got ${id} after ${prev})`;
        }
        prev = Math.max(prev, id);
        if (id > lines.length) {
          beyond++;
          firstProblem ??= `id ${id} beyond the file's ${lines.length} lines: ${c.datas[i].slice(0, 160)}`;
        } else if (c.datas[i] !== lines[id - 1]) {
          mismatch++;
          firstProblem ??= `id ${id}: received ${c.datas[i].slice(0, 160)} / file line ${id}: ${lines[id - 1].slice(0, 160)}`;
        }
      }
      const missingTail = Math.max(0, lines.length - prev);
      if (missingTail > 0) firstProblem ??= `ids ${prev + 1}..${lines.length} never received`;
      const ok = gaps === 0 && dups === 0 && order === 0 && mismatch === 0 && beyond === 0 && missingTail === 0 &&
        c.ids.length === lines.length && c.done;
      if (ok) summary.exactly_once_in_order++;
      if (gaps) summary.with_gaps++;
      if (dups) summary.with_duplicates++;
      if (order) summary.out_of_order++;
      if (mismatch) summary.with_data_mismatch++;
      if (beyond) summary.with_ids_beyond_file++;
      if (missingTail || !c.done) summary.incomplete++;
      if (c.gaveUp) summary.gave_up++;
      if (c.abandoned) {
        summary.of_runs_that_could_not_be_resumed++;
        firstProblem ??= 'its run could not be resumed';
      }
      if (!ok && summary.problems.length < 12) {
        summary.problems.push({ run: c.runId, client: c.index, received: c.ids.length, file_lines: lines.length,
          gaps, duplicates: dups, mismatches: mismatch, beyond_file: beyond, missing_tail: missingTail,
          first_problem: firstProblem ?? (c.done ? null : 'the client never saw the end') });
      }
    }
    this.files = files;
    return summary;
  }

  clientCounters() {
    const sum = (f) => this.clients.reduce((s, c) => s + f(c), 0);
    // The clients that waited longest for a response to one request, with their attempts.
    const slowest = [...this.clients].sort((a, b) => Math.max(0, ...b.responseMs) - Math.max(0, ...a.responseMs))
      .slice(0, 3)
      .map((c) => ({ run: c.runId, client: c.index, done_ms: c.doneAt ? Math.round(c.doneAt - this.t0) : null,
        attempts: c.history.length, history: c.history.slice(-12) }));
    const rejected = {};
    for (const c of this.clients) {
      for (const [k, v] of Object.entries(c.rejected)) rejected[k] = (rejected[k] ?? 0) + v;
    }
    return {
      connections: sum((c) => c.connections),
      clients_needing_more_than_one_connection: this.clients.filter((c) => c.connections > 1).length,
      rejected_by_status: rejected,
      reconnect_events: sum((c) => c.reconnectEvents),
      dropped_connections: sum((c) => c.drops),
      ends_before_final_event: sum((c) => c.endsBeforeFinal),
      connect_errors: sum((c) => c.errors),
      keepalive_comments: sum((c) => c.keepalives),
      response_ms: stats(this.clients.flatMap((c) => c.responseMs)),
      responses_slower_than_900ms: this.clients.reduce((s, c) => s + c.responseMs.filter((v) => v > 900).length, 0),
      slowest_clients: slowest,
    };
  }

  delayStats() {
    const all = [];
    const live = [];
    const catchup = [];
    for (const c of this.clients) {
      for (let i = 0; i < c.delays.length; i++) {
        const d = c.delays[i];
        if (d === null) continue;
        all.push(d);
        (c.live[i] ? live : catchup).push(d);
      }
    }
    return { all: stats(all), live: stats(live), catch_up: stats(catchup) };
  }

  /// From the run directories: stage completions and the last PipelineCompleted ts.
  runFacts() {
    let stageCompletions = 0;
    let simulatedCompletions = 0;
    let lastCompleted = 0;
    let firstStarted = Infinity;
    const durations = [];
    for (const id of this.runIds) {
      const { lines } = this.files[id];
      let started = null;
      for (const l of lines) {
        let e;
        try {
          e = JSON.parse(l);
        } catch {
          continue;
        }
        const ts = Date.parse(e.ts);
        if (e.event === 'StageCompleted') {
          stageCompletions++;
          if (/^s\d+$/.test(e.name)) simulatedCompletions++;
        }
        if (e.event === 'PipelineStarted') {
          started ??= ts;
          firstStarted = Math.min(firstStarted, ts);
        }
        if (e.event === 'PipelineCompleted') {
          lastCompleted = Math.max(lastCompleted, ts);
          if (started !== null) durations.push(ts - started);
        }
      }
    }
    return { stageCompletions, simulatedCompletions, lastCompleted, firstStarted, durations };
  }
}

async function startServer(bench, logName) {
  const server = new Server(bench.opts, bench.dirs.logsRoot, bench.dirs.graphs, bench.maxConcurrent,
    path.join(bench.opts.out, logName));
  bench.port = await server.start();
  return server;
}

async function loadPhase(opts, name, graphs, maxConcurrent) {
  const dirs = { logsRoot: path.join(opts.out, `runs-${name}`), graphs };
  const bench = new Bench(opts, name, dirs, maxConcurrent);
  const overflows0 = listenOverflows();
  const server = await startServer(bench, `serve-${name}.log`);
  log(`${name}: server pid ${server.pid} on port ${bench.port}, --max-concurrent ${maxConcurrent ?? 'default'}`);
  await bench.submitAll();
  log(`${name}: ${bench.runIds.length} runs submitted in ${(bench.tSubmitted - bench.t0).toFixed(0)} ms`);
  const described = await bench.waitForRuns(opts.timeoutS * 1000);
  await bench.clientsFinished;
  const tClientsDone = Math.max(...bench.clients.map((c) => c.doneAt ?? 0));
  const memory = server.memory();
  const cpu = server.cpuSeconds();
  const verify = bench.verifyClients();
  const facts = bench.runFacts();
  await server.stop();
  const statusCounts = {};
  for (const id of bench.runIds) {
    const s = described[id]?.status ?? 'unknown';
    statusCounts[s] = (statusCounts[s] ?? 0) + 1;
  }
  const wallS = (facts.lastCompleted - bench.t0) / 1000;
  const deliveryWallS = (tClientsDone - bench.t0) / 1000;
  log(`${name}: done, ${verify.exactly_once_in_order}/${verify.clients} clients exactly once`);
  return {
    phase: name,
    max_concurrent: maxConcurrent ?? `default (${os.cpus().length} cores)`,
    runs: bench.runIds.length,
    submit_failures: bench.submitFailures,
    submit_ms: stats(bench.submitMs),
    final_status_counts: statusCounts,
    wall_s_first_submit_to_last_run_completed: +wallS.toFixed(3),
    wall_s_first_submit_to_last_client_done: +deliveryWallS.toFixed(3),
    run_duration_ms: stats(facts.durations),
    stage_completions: facts.stageCompletions,
    stages_per_s: +(facts.stageCompletions / wallS).toFixed(1),
    simulated_stage_completions: facts.simulatedCompletions,
    simulated_stages_per_s: +(facts.simulatedCompletions / wallS).toFixed(1),
    events_delivered: verify.events_received,
    events_per_s_delivered: +(verify.events_received / deliveryWallS).toFixed(1),
    delivery_delay_ms: bench.delayStats(),
    memory,
    server_cpu_s: cpu,
    listen_queue_overflows: listenOverflows() - overflows0,
    streams: bench.clientCounters(),
    exactly_once: verify,
  };
}

// ---------------------------------------------------------------------------------------------
// The fault phase

/// The checkpoint with the fields that differ between any two runs of the same pipeline removed.
const IGNORED_CHECKPOINT_FIELDS = [
  'run_id',                   // a new id per run ("<start ms>-<random hex>")
  'context.internal.run_id',  // the same id, copied into the context
  'timestamp',                // when the checkpoint was written (ISO)
  'timestamp_ms',             // the same in milliseconds
];

function normalizeCheckpoint(cp) {
  const c = JSON.parse(JSON.stringify(cp));
  delete c.run_id;
  delete c.timestamp;
  delete c.timestamp_ms;
  if (c.context) delete c.context['internal.run_id'];
  return canonical(c);
}

function checkpointOf(runDir) {
  return readJson(path.join(runDir, 'checkpoint.json'));
}

/// The state of each run directory right after the kill (before any restart touches it).
function diskStateAfterKill(bench) {
  const out = { checkpoint_stage_counts: {}, events_lines: 0, torn_last_lines: 0, runs: {} };
  for (const id of bench.runIds) {
    const dir = path.join(bench.dirs.logsRoot, id);
    const cp = checkpointOf(dir);
    const f = readLines(path.join(dir, 'events.jsonl'));
    const done = cp ? (cp.completed_nodes ?? []).length : 0;
    out.checkpoint_stage_counts[done] = (out.checkpoint_stage_counts[done] ?? 0) + 1;
    out.events_lines += f.lines.length;
    if (f.torn !== null) out.torn_last_lines++;
    const maxSeen = Math.max(0, ...bench.clients.filter((c) => c.runId === id).map((c) => c.lastId));
    out.runs[id] = { file_lines: f.lines.length, torn: f.torn !== null, max_id_streamed: maxSeen,
      state: cp?.state ?? null, completed_nodes: done };
  }
  const ahead = Object.values(out.runs).filter((r) => r.max_id_streamed > r.file_lines);
  out.runs_streamed_beyond_file = ahead.length;
  out.events_streamed_but_not_in_file = ahead.reduce((s, r) => s + r.max_id_streamed - r.file_lines, 0);
  return out;
}

async function faultPhase(opts, name, killFraction, graphs, referenceCheckpoint, loadCheckpoint) {
  const dirs = { logsRoot: path.join(opts.out, `runs-${name}`), graphs };
  const bench = new Bench(opts, name, dirs, opts.runs);
  const overflows0 = listenOverflows();
  let server = await startServer(bench, `serve-${name}-1.log`);
  log(`${name}: server pid ${server.pid} on port ${bench.port}`);
  const perRun = 1 + opts.stages + pauseCount(opts);  // start, the simulated stages, the pauses
  bench.expectedCompletions = opts.runs * perRun;
  // SIGKILL as soon as the share of stage completions has been seen on the streams (from the
  // clients' data handler, so nothing else runs in between), but only once every submission was
  // answered: a run whose POST is cut off is not what this phase is about.
  let fired;
  const killed = new Promise((resolve) => (fired = resolve));
  let killAt = null;
  let seenAtKill = 0;
  let killedMemory = null;
  let killedCpu = null;
  let up;
  const doKill = (why) => {
    if (killAt !== null || (!bench.submitted && why === 'trigger')) return;
    bench.serverUp = new Promise((resolve) => (up = resolve));
    bench.serverDown = true;
    seenAtKill = bench.stageCompletionsSeen.size;
    killedMemory = server.memory();  // VmHWM and CPU time are gone with the process
    killedCpu = server.cpuSeconds();
    killAt = nowMs();
    server.proc.kill('SIGKILL');
    bench.killed = true;
    fired(why);
  };
  bench.killTrigger = { at: Math.ceil(killFraction * bench.expectedCompletions), fire: () => doKill('trigger') };
  await bench.submitAll(opts.faultSubmitParallel);
  log(`${name}: ${bench.runIds.length} runs submitted in ${(bench.tSubmitted - bench.t0).toFixed(0)} ms`);
  if (bench.stageCompletionsSeen.size >= bench.killTrigger.at) doKill('trigger');
  // If everything finishes before the trigger (a very fast machine), kill anyway and say so.
  bench.clientsFinished.then(() => doKill('all runs had completed'));
  const outcome = await killed;
  await server.exitPromise;
  const kill = {
    trigger: outcome,
    killed_at_ms_after_first_submit: Math.round(killAt - bench.t0),
    stage_completions_seen_on_streams: seenAtKill,
    stage_completions_total: bench.expectedCompletions,
    memory_of_killed_server: killedMemory,
    cpu_s_of_killed_server: killedCpu,
  };
  const afterKill = diskStateAfterKill(bench);
  log(`${name}: SIGKILL at ${kill.killed_at_ms_after_first_submit} ms, ${kill.stage_completions_seen_on_streams}/` +
    `${kill.stage_completions_total} stage completions seen`);

  server = await startServer(bench, `serve-${name}-2.log`);
  bench.serverDown = false;
  up();
  log(`${name}: restarted, pid ${server.pid} on port ${bench.port}`);
  const list = await request(bench.port, 'GET', '/pipelines');
  const mine = new Set(bench.runIds);
  const statusAfterRestart = {};
  for (const r of list.json ?? []) {
    if (!mine.has(r.id)) continue;
    statusAfterRestart[r.status] = (statusAfterRestart[r.status] ?? 0) + 1;
  }
  const statusById = Object.fromEntries((list.json ?? []).map((r) => [r.id, r.status]));
  // A run whose checkpoint says it finished must be completed; any other must be interrupted.
  const wrongStatus = [];
  for (const id of bench.runIds) {
    const expected = afterKill.runs[id].state === 'success' ? 'completed' : 'interrupted';
    if (statusById[id] !== expected) {
      wrongStatus.push({ id, status: statusById[id] ?? 'missing', expected, checkpoint_state: afterKill.runs[id].state });
    }
  }
  const resumeReplies = {};
  const resumeFailures = [];
  const tResume = nowMs();
  for (const id of bench.runIds) {
    if (statusById[id] === 'completed') continue;
    const r = await request(bench.port, 'POST', `/pipelines/${id}/resume`);
    resumeReplies[r.status] = (resumeReplies[r.status] ?? 0) + 1;
    if (r.status !== 202) {
      resumeFailures.push({ id, status: r.status, body: r.text.trim() });
      bench.abandoned.add(id);
    }
  }
  log(`${name}: resume replies ${JSON.stringify(resumeReplies)}`);
  const described = await bench.waitForRuns(opts.timeoutS * 1000);
  const tAllDone = nowMs();
  await bench.clientsFinished;
  for (const id of bench.abandoned) {
    const r = await request(bench.port, 'GET', `/pipelines/${id}`).catch(() => null);
    described[id] = r?.json ?? { status: `HTTP ${r?.status}` };
    if (r?.status === 404) described[id].status = '404';
  }
  const memory = server.memory();
  const cpu = server.cpuSeconds();
  const verify = bench.verifyClients();
  await server.stop();

  const finalStatus = {};
  for (const id of bench.runIds) {
    const s = described[id]?.status ?? 'unknown';
    finalStatus[s] = (finalStatus[s] ?? 0) + 1;
  }
  // Checkpoints.
  const refNorm = normalizeCheckpoint(referenceCheckpoint);
  const loadNorm = loadCheckpoint ? normalizeCheckpoint(loadCheckpoint) : null;
  let equalRef = 0;
  let equalLoad = 0;
  const differences = [];
  for (const id of bench.runIds) {
    const cp = checkpointOf(path.join(dirs.logsRoot, id));
    if (!cp) {
      differences.push({ id, diff: ['no checkpoint.json'] });
      continue;
    }
    const n = normalizeCheckpoint(cp);
    const d = jsonDiff(refNorm, n);
    if (d.length === 0) equalRef++;
    else if (differences.length < 10) differences.push({ id, resumed: statusById[id] !== 'completed', diff: d });
    if (loadNorm && jsonDiff(loadNorm, n).length === 0) equalLoad++;
  }
  log(`${name}: ${equalRef}/${bench.runIds.length} final checkpoints equal the reference`);
  return {
    phase: name,
    runs: bench.runIds.length,
    submit_failures: bench.submitFailures,
    submit_ms: stats(bench.submitMs),
    kill,
    disk_after_kill: {
      runs_by_completed_nodes_in_checkpoint: afterKill.checkpoint_stage_counts,
      runs_with_torn_last_event_line: afterKill.torn_last_lines,
      runs_whose_streams_were_ahead_of_events_jsonl: afterKill.runs_streamed_beyond_file,
      events_streamed_but_not_in_events_jsonl: afterKill.events_streamed_but_not_in_file,
    },
    status_after_restart: statusAfterRestart,
    missing_from_list_after_restart: bench.runIds.filter((id) => !(id in statusById)).length,
    wrong_status_after_restart: wrongStatus.slice(0, 10),
    wrong_status_count: wrongStatus.length,
    resumed: Object.values(resumeReplies).reduce((s, v) => s + v, 0),
    resume_replies_by_status: resumeReplies,
    resume_failures: resumeFailures.slice(0, 10),
    s_from_resume_to_all_completed: +((tAllDone - tResume) / 1000).toFixed(3),
    final_status_counts: finalStatus,
    memory_of_second_server: memory,
    cpu_s_of_second_server: cpu,
    listen_queue_overflows: listenOverflows() - overflows0,
    streams: bench.clientCounters(),
    delivery_delay_ms: bench.delayStats(),
    exactly_once: verify,
    checkpoints: {
      ignored_fields: IGNORED_CHECKPOINT_FIELDS,
      equal_to_cli_reference: equalRef,
      equal_to_uninterrupted_server_run: loadNorm ? equalLoad : null,
      all_equal: equalRef === bench.runIds.length && bench.runIds.length === opts.runs,
      differences,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Report

function table(summary) {
  const out = [];
  const row = (k, v) => out.push(`  ${k.padEnd(44)} ${v}`);
  const d = (s) => `p50 ${s.p50} / p99 ${s.p99} / max ${s.max} ms (n=${s.count})`;
  out.push(`attractor serve benchmark, ${summary.date}, ${summary.machine.cpus} cores, load ${summary.machine.loadavg_at_start.join(' ')}`);
  out.push(`pipeline: ${summary.pipeline.description}`);
  out.push(`client: TCP connects at once: ${summary.pipeline.connect_parallel}; fault phases submit ` +
    `${summary.pipeline.fault_submit_parallel} POSTs at a time`);
  for (const p of summary.phases) {
    out.push('');
    out.push(`== ${p.phase}`);
    if (!p.phase.startsWith('fault')) {
      row('max concurrent', p.max_concurrent);
      row('runs / final statuses', `${p.runs} ${JSON.stringify(p.final_status_counts)}`);
      row('submit (POST /pipelines) latency', `p50 ${p.submit_ms.p50} / max ${p.submit_ms.max} ms`);
      row('wall: first submit -> last run completed', `${p.wall_s_first_submit_to_last_run_completed} s`);
      row('wall: first submit -> last client done', `${p.wall_s_first_submit_to_last_client_done} s`);
      row('run duration', `p50 ${p.run_duration_ms.p50} / max ${p.run_duration_ms.max} ms`);
      row('server CPU (user + system)', `${p.server_cpu_s} s`);
      row('throughput', `${p.stages_per_s} stages/s (${p.simulated_stages_per_s} simulated LLM stages/s), ` +
        `${p.events_per_s_delivered} events/s delivered`);
    } else {
      row('killed at', `${p.kill.killed_at_ms_after_first_submit} ms, ${p.kill.stage_completions_seen_on_streams}/` +
        `${p.kill.stage_completions_total} stage completions seen (${p.kill.trigger})`);
      row('checkpoints at kill (nodes done: runs)', JSON.stringify(p.disk_after_kill.runs_by_completed_nodes_in_checkpoint));
      row('events streamed but not in events.jsonl', `${p.disk_after_kill.events_streamed_but_not_in_events_jsonl} ` +
        `(in ${p.disk_after_kill.runs_whose_streams_were_ahead_of_events_jsonl} runs)`);
      row('torn last event line after kill', p.disk_after_kill.runs_with_torn_last_event_line);
      row('submit', `${p.submit_ms.count} POSTs, p50 ${p.submit_ms.p50} / max ${p.submit_ms.max} ms`);
      row('status after restart (GET /pipelines)', `${JSON.stringify(p.status_after_restart)}, ` +
        `${p.missing_from_list_after_restart} missing`);
      row('wrong status after restart', p.wrong_status_count);
      row('resume replies', JSON.stringify(p.resume_replies_by_status));
      row('resume -> all completed', `${p.s_from_resume_to_all_completed} s`);
      row('final statuses', JSON.stringify(p.final_status_counts));
      row('checkpoints equal (CLI reference)', `${p.checkpoints.equal_to_cli_reference}/${p.runs}`);
      row('checkpoints equal (uninterrupted server run)', `${p.checkpoints.equal_to_uninterrupted_server_run}/${p.runs}`);
      row('all equal', p.checkpoints.all_equal ? 'yes' : 'NO');
    }
    row('delivery delay, all events', d(p.delivery_delay_ms.all));
    row('  live (created while connected)', d(p.delivery_delay_ms.live));
    row('  catch-up (replayed on connect)', d(p.delivery_delay_ms.catch_up));
    const m = p.memory ?? p.memory_of_second_server;
    if (p.phase.startsWith('fault')) {
      const k = p.kill.memory_of_killed_server;
      row('server RSS (killed server)', `base ${k.base_rss_mb} MB, peak ${k.peak_rss_mb_polled} MB polled, ` +
        `VmHWM ${k.vm_hwm_mb} MB at the kill, CPU ${p.kill.cpu_s_of_killed_server} s`);
    }
    row('server RSS', `base ${m.base_rss_mb} MB, peak ${m.peak_rss_mb_polled} MB polled, VmHWM ${m.vm_hwm_mb} MB, ` +
      `${m.peak_threads} threads at most`);
    row('listen queue overflows (system-wide)', p.listen_queue_overflows);
    row('stream requests: time to response', `p50 ${p.streams.response_ms.p50} / p99 ${p.streams.response_ms.p99} / ` +
      `max ${p.streams.response_ms.max} ms, ${p.streams.responses_slower_than_900ms} over 900 ms`);
    row('streams', `${p.streams.connections} connections, rejected ${JSON.stringify(p.streams.rejected_by_status)}, ` +
      `${p.streams.reconnect_events} reconnect events, ${p.streams.dropped_connections} drops`);
    const e = p.exactly_once;
    row('runs whose events.jsonl has non-JSON / torn lines', `${p.exactly_once.runs_with_invalid_json_lines} / ` +
      `${p.exactly_once.runs_with_torn_last_line}`);
    row('exactly once, in order, equal to events.jsonl', `${e.exactly_once_in_order}/${e.clients} clients ` +
      `(${e.events_received} events received, ${e.events_expected} expected)`);
    if (e.exactly_once_in_order !== e.clients) {
      row('  gaps / duplicates / order / data / beyond file / incomplete',
        `${e.with_gaps} / ${e.with_duplicates} / ${e.out_of_order} / ${e.with_data_mismatch} / ` +
        `${e.with_ids_beyond_file} / ${e.incomplete}`);
      for (const pr of e.problems.slice(0, 4)) row('  e.g.', `${pr.run}#${pr.client}: ${pr.first_problem}`);
    }
  }
  return out.join('\n') + '\n';
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  connectGate.limit = opts.connectParallel;
  fs.mkdirSync(opts.out, { recursive: true });
  const graphs = path.join(opts.out, 'graphs');
  fs.mkdirSync(graphs, { recursive: true });
  const graphFile = path.join(graphs, 'serve_bench.dot');
  fs.writeFileSync(graphFile, pipelineDot(opts));
  const loadavg = os.loadavg().map((v) => +v.toFixed(2));
  log(`output in ${opts.out}; load average ${loadavg.join(' ')}`);

  // The uninterrupted reference: the same graph through `attractor run`.
  const refDir = path.join(opts.out, 'reference');
  const ref = spawnSync(opts.binary, ['run', graphFile, '--simulate', '--logs-root', refDir, '--quiet'], { encoding: 'utf8' });
  if (ref.status !== 0) throw new Error(`attractor run failed (${ref.status}): ${ref.stderr}`);
  let referenceCheckpoint = checkpointOf(refDir);
  if (!referenceCheckpoint) {
    const sub = fs.readdirSync(refDir).find((d) => fs.existsSync(path.join(refDir, d, 'checkpoint.json')));
    referenceCheckpoint = sub ? checkpointOf(path.join(refDir, sub)) : null;
  }
  if (!referenceCheckpoint) throw new Error(`no checkpoint.json under ${refDir}`);

  const summary = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpu_model: os.cpus()[0]?.model ?? null, loadavg_at_start: loadavg,
      mem_total_mb: Math.round(os.totalmem() / 2 ** 20), node: process.version },
    binary: opts.binary,
    out: opts.out,
    pipeline: {
      stages: opts.stages,
      pause_stages: pauseCount(opts),
      pause_s: pauseCount(opts) > 0 ? opts.pauseS : 0,
      connect_parallel: opts.connectParallel || 'no limit',
      fault_submit_parallel: opts.faultSubmitParallel || 'all at once',
      description: `start -> s1..s${opts.stages} (llm_provider=simulate)` +
        (pauseCount(opts) > 0 ? ` with a tool stage \`sleep ${opts.pauseS}\` after every ${opts.pauseEvery}th` : '') +
        ` -> exit; ${opts.runs} runs, ${opts.clientsPerRun} SSE clients per run`,
    },
    phases: [],
  };
  let loadCheckpoint = null;
  for (const phase of opts.phases) {
    if (phase === 'load' || phase === 'load-default') {
      const r = await loadPhase(opts, phase, graphs, phase === 'load' ? opts.runs : null);
      summary.phases.push(r);
      if (!loadCheckpoint) {
        const dir = path.join(opts.out, `runs-${phase}`);
        const first = fs.readdirSync(dir).sort()[0];
        loadCheckpoint = first ? checkpointOf(path.join(dir, first)) : null;
      }
    } else {
      summary.phases.push(await faultPhase(opts, phase, phase === 'fault' ? opts.killFraction : 0, graphs,
        referenceCheckpoint, loadCheckpoint));
    }
  }
  const text = table(summary);
  fs.writeFileSync(path.join(opts.out, 'summary.json'), JSON.stringify(summary, null, 2) + '\n');
  fs.writeFileSync(path.join(opts.out, 'summary.txt'), text);
  process.stderr.write('\n' + text);
  process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
  const ok = summary.phases.every((p) => p.exactly_once.exactly_once_in_order === p.exactly_once.clients &&
    (!p.phase.startsWith('fault') || p.checkpoints.all_equal));
  process.exitCode = ok ? 0 : 1;
}

main().catch((e) => {
  process.stderr.write(`serve_bench: ${e.stack ?? e}\n`);
  process.exit(2);
});
