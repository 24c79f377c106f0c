'use strict';
// dsh Code Mode runner: plain Node.js (>= 20), no dependencies. Installed by the host into
// <cwd>/.dsh-e2b/ and verified by SHA-256; the host reads its first frame (`boot`) and
// compares the hash the runner computed over its own file.
//
// Wire (both directions): one frame per line, each line = base64(UTF-8 JSON), so every
// line is ASCII whatever the transport does to bytes.
//   runner -> host: boot {v,pid,sha}, call {run,id,tool,args}, log {run,text},
//                   output-limit {run}, done {run,ok,value | error{kind,message}}
//   host -> runner: run {run,code,tools,limits{heapMb,cpuMs,maxOutputBytes}},
//                   reply {run,id,ok,value | error{message}}, stop {run,reason,message}
// Values (call args, reply values, the program's result) use the lossless tagged JSON
// encoding of `makeCodec` below; the host implements the same encoding in Rust.
//
// Each program runs in a FRESH worker thread (empty environment, heap cap); the next
// worker is pre-spawned while the runner is idle.

const wt = require('node:worker_threads');

const TAG = '$dsh';
const MAX_DEPTH = 1000;

// The lossless codec. Called before any program code runs: every intrinsic it uses is
// captured here, so a program that replaces JSON.stringify, Array/Object methods or adds
// Object.prototype.toJSON cannot change what crosses the boundary.
function makeCodec() {
  const ReflectApply = Reflect.apply;
  const JSONStringify = JSON.stringify;
  const JSONParse = JSON.parse;
  const ObjectKeys = Object.keys;
  const ObjectGetPrototypeOf = Object.getPrototypeOf;
  const ObjectGetOwnPropertySymbols = Object.getOwnPropertySymbols;
  const ObjectDefineProperty = Object.defineProperty;
  const ObjectPrototype = Object.prototype;
  const ObjectHasOwn = Object.hasOwn;
  const ObjectIs = Object.is;
  const ArrayIsArray = Array.isArray;
  const ArrayPrototypeJoin = Array.prototype.join;
  const ArrayPrototypePush = Array.prototype.push;
  const StringPrototypeIsWellFormed = String.prototype.isWellFormed;
  const StringPrototypeCharCodeAt = String.prototype.charCodeAt;
  const StringFromCharCode = String.fromCharCode;
  const NumberIsFinite = Number.isFinite;
  const NumberIsNaN = Number.isNaN;
  const NumberIsSafeInteger = Number.isSafeInteger;
  const BigIntCtor = BigInt;
  const TypeErrorCtor = TypeError;
  const SetCtor = Set;
  const SetHas = Set.prototype.has;
  const SetAdd = Set.prototype.add;
  const SetDelete = Set.prototype.delete;
  const RegExpTest = RegExp.prototype.test;
  const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

  const push = (array, value) => ReflectApply(ArrayPrototypePush, array, [value]);
  const join = (array, sep) => ReflectApply(ArrayPrototypeJoin, array, [sep]);

  function childPath(path, key) {
    if (typeof key === 'number') return path + '[' + key + ']';
    return ReflectApply(RegExpTest, IDENT, [key]) ? path + '.' + key : path + '[' + JSONStringify(key) + ']';
  }

  class LosslessError extends TypeErrorCtor {
    constructor(path, message) {
      super(message + ' at ' + path);
      this.name = 'LosslessError';
      this.path = path;
    }
  }

  function encodeString(s) {
    if (ReflectApply(StringPrototypeIsWellFormed, s, [])) return JSONStringify(s);
    const units = [];
    for (let i = 0; i < s.length; i++) push(units, '' + ReflectApply(StringPrototypeCharCodeAt, s, [i]));
    return '{"$dsh":"str","u":[' + join(units, ',') + ']}';
  }

  function describe(value) {
    if (typeof value === 'function') return 'a function';
    if (typeof value === 'symbol') return 'a symbol';
    let name = 'an object';
    try {
      const proto = ObjectGetPrototypeOf(value);
      const ctor = proto && ObjectHasOwn(proto, 'constructor') ? proto.constructor : undefined;
      if (typeof ctor === 'function' && typeof ctor.name === 'string' && ctor.name) name = 'a ' + ctor.name;
    } catch {}
    return name;
  }

  // value -> tagged JSON text
  function encode(value, path, ancestors, depth) {
    switch (typeof value) {
      case 'undefined': return '{"$dsh":"undefined"}';
      case 'boolean': return value ? 'true' : 'false';
      case 'string': return encodeString(value);
      case 'bigint': return '{"$dsh":"bigint","v":"' + value + '"}';
      case 'number':
        if (NumberIsNaN(value)) return '{"$dsh":"nan"}';
        if (value === Infinity) return '{"$dsh":"inf"}';
        if (value === -Infinity) return '{"$dsh":"-inf"}';
        if (ObjectIs(value, -0)) return '{"$dsh":"-0"}';
        return '' + value;
      case 'function':
      case 'symbol':
        throw new LosslessError(path, 'cannot send ' + describe(value) + ' across the boundary');
      default: break;
    }
    if (value === null) return 'null';
    if (depth > MAX_DEPTH) throw new LosslessError(path, 'value nested deeper than ' + MAX_DEPTH + ' levels');
    if (ReflectApply(SetHas, ancestors, [value])) throw new LosslessError(path, 'cannot send a cyclic structure across the boundary');
    ReflectApply(SetAdd, ancestors, [value]);
    try {
      if (ArrayIsArray(value)) {
        const parts = [];
        const length = value.length;
        for (let i = 0; i < length; i++) push(parts, encode(value[i], childPath(path, i), ancestors, depth + 1));
        return '[' + join(parts, ',') + ']';
      }
      const proto = ObjectGetPrototypeOf(value);
      if (proto !== ObjectPrototype && proto !== null) {
        throw new LosslessError(path, 'cannot send ' + describe(value) + ' across the boundary (only plain objects, arrays and primitives cross)');
      }
      if (ObjectGetOwnPropertySymbols(value).length > 0) {
        throw new LosslessError(path, 'cannot send an object with symbol keys across the boundary');
      }
      const keys = ObjectKeys(value);
      let escape = false;
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        if (key === TAG || !ReflectApply(StringPrototypeIsWellFormed, key, [])) { escape = true; break; }
      }
      const parts = [];
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        const encoded = encode(value[key], childPath(path, key), ancestors, depth + 1);
        push(parts, escape ? '[' + encodeString(key) + ',' + encoded + ']' : JSONStringify(key) + ':' + encoded);
      }
      return escape ? '{"$dsh":"obj","e":[' + join(parts, ',') + ']}' : '{' + join(parts, ',') + '}';
    } finally {
      ReflectApply(SetDelete, ancestors, [value]);
    }
  }

  function define(target, key, value) {
    ObjectDefineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  }

  function bad(path, message) { throw new LosslessError(path, message); }

  function exactKeys(obj, keys, path) {
    const own = ObjectKeys(obj);
    if (own.length !== keys.length) bad(path, 'malformed tagged value');
    for (let i = 0; i < keys.length; i++) if (!ObjectHasOwn(obj, keys[i])) bad(path, 'malformed tagged value');
  }

  function decodeString(v, path) {
    if (typeof v === 'string') return v;
    if (v !== null && typeof v === 'object' && !ArrayIsArray(v) && v[TAG] === 'str') {
      exactKeys(v, [TAG, 'u'], path);
      const units = v.u;
      if (!ArrayIsArray(units)) bad(path, 'malformed string');
      let out = '';
      for (let i = 0; i < units.length; i++) {
        const u = units[i];
        if (!NumberIsSafeInteger(u) || u < 0 || u > 0xffff) bad(path, 'malformed string');
        out += StringFromCharCode(u);
      }
      return out;
    }
    return bad(path, 'expected a string');
  }

  // parsed tagged JSON -> value
  function decodeParsed(v, path, depth) {
    if (depth > MAX_DEPTH + 2) bad(path, 'value nested too deep');
    if (v === null || typeof v !== 'object') return v;
    if (ArrayIsArray(v)) {
      const out = [];
      for (let i = 0; i < v.length; i++) define(out, i, decodeParsed(v[i], childPath(path, i), depth + 1));
      return out;
    }
    if (ObjectHasOwn(v, TAG)) {
      const tag = v[TAG];
      switch (tag) {
        case 'undefined': exactKeys(v, [TAG], path); return undefined;
        case 'nan': exactKeys(v, [TAG], path); return NaN;
        case 'inf': exactKeys(v, [TAG], path); return Infinity;
        case '-inf': exactKeys(v, [TAG], path); return -Infinity;
        case '-0': exactKeys(v, [TAG], path); return -0;
        case 'bigint': {
          exactKeys(v, [TAG, 'v'], path);
          if (typeof v.v !== 'string' || !ReflectApply(RegExpTest, /^-?(0|[1-9][0-9]*)$/, [v.v])) bad(path, 'malformed bigint');
          return BigIntCtor(v.v);
        }
        case 'str': return decodeString(v, path);
        case 'obj': {
          exactKeys(v, [TAG, 'e'], path);
          if (!ArrayIsArray(v.e)) bad(path, 'malformed object');
          const out = {};
          const seen = new SetCtor();
          for (let i = 0; i < v.e.length; i++) {
            const entry = v.e[i];
            if (!ArrayIsArray(entry) || entry.length !== 2) bad(path, 'malformed object entry');
            const key = decodeString(entry[0], path);
            if (ReflectApply(SetHas, seen, [key])) bad(path, 'duplicate key ' + JSONStringify(key));
            ReflectApply(SetAdd, seen, [key]);
            define(out, key, decodeParsed(entry[1], childPath(path, key), depth + 1));
          }
          return out;
        }
        default: return bad(path, 'unknown tag ' + JSONStringify('' + tag));
      }
    }
    const out = {};
    const keys = ObjectKeys(v);
    for (let i = 0; i < keys.length; i++) define(out, keys[i], decodeParsed(v[keys[i]], childPath(path, keys[i]), depth + 1));
    return out;
  }

  return {
    LosslessError,
    encode: (value) => encode(value, '$', new SetCtor(), 0),
    decodeParsed: (parsed) => decodeParsed(parsed, '$', 0),
    decodeText: (text) => decodeParsed(JSONParse(text), '$', 0),
  };
}

// ---------------------------------------------------------------------------------------
// Worker thread: runs one program, then is terminated by the runner.
function workerMain() {
  const codec = makeCodec();
  const util = require('node:util');
  const port = wt.parentPort;
  const ReflectApply = Reflect.apply;
  const PostMessage = wt.MessagePort.prototype.postMessage;
  const PromiseCtor = Promise;
  const ErrorCtor = Error;
  const MapCtor = Map;
  const MapGet = Map.prototype.get;
  const MapSet = Map.prototype.set;
  const MapDelete = Map.prototype.delete;
  const ObjectCreate = Object.create;
  const ObjectFreeze = Object.freeze;
  const ObjectDefineProperty = Object.defineProperty;
  const StringPrototypeToWellFormed = String.prototype.toWellFormed;
  const StringPrototypeSplit = String.prototype.split;
  const StringPrototypeIncludes = String.prototype.includes;
  const ArrayPrototypeFilter = Array.prototype.filter;
  const ArrayPrototypeJoin = Array.prototype.join;
  const FormatWithOptions = util.formatWithOptions;
  const Inspect = util.inspect;
  const AsyncFunction = (async function () {}).constructor;
  const StringPrototypeReplace = String.prototype.replace;
  const EVAL_FRAME = /eval at .*?, <anonymous>:(\d+):(\d+)/;
  const programFrame = (_, line, column) => 'program.ts:' + (Number(line) - 2) + ':' + column;
  const globalObject = globalThis;

  const send = (message) => ReflectApply(PostMessage, port, [message]);
  const pending = new MapCtor();
  let nextId = 1;
  let started = false;
  let logBudget = 0;
  let logged = 0;

  class ToolCallError extends ErrorCtor {
    constructor(toolName, message) {
      super(message);
      ObjectDefineProperty(this, 'name', { value: 'ToolCallError', writable: true, configurable: true });
      this.toolName = toolName;
    }
  }

  function log(args) {
    let text;
    try { text = ReflectApply(FormatWithOptions, undefined, [{}, ...args]); } catch (e) { text = '[unprintable log arguments]'; }
    text = ReflectApply(StringPrototypeToWellFormed, text, []);
    logged += text.length;
    // The runner keeps the authoritative ledger; stop queueing once far over it.
    if (logged > logBudget * 4 + 1024) return;
    send({ t: 'log', text });
  }

  const consoleObject = ObjectCreate(null);
  for (const name of ['log', 'info', 'warn', 'error', 'debug', 'trace']) {
    consoleObject[name] = (...args) => log(args);
  }
  ObjectFreeze(consoleObject);

  function callTool(name, args) {
    return new PromiseCtor((resolve, reject) => {
      let text;
      try {
        text = codec.encode(args);
      } catch (error) {
        reject(error);
        return;
      }
      const id = nextId++;
      ReflectApply(MapSet, pending, [id, { resolve, reject, name }]);
      send({ t: 'call', id, tool: name, args: text });
    });
  }

  function describeError(error) {
    try {
      if (error instanceof ErrorCtor) {
        const head = '' + error.name + ': ' + error.message;
        const stack = typeof error.stack === 'string' ? error.stack : '';
        const lines = ReflectApply(StringPrototypeSplit, stack, ['\n']);
        for (let i = 0; i < lines.length; i++) lines[i] = ReflectApply(StringPrototypeReplace, lines[i], [EVAL_FRAME, programFrame]);
        const frames = ReflectApply(ArrayPrototypeFilter, lines, [
          (line) => ReflectApply(StringPrototypeIncludes, line, ['program.ts:']),
        ]);
        return ReflectApply(StringPrototypeToWellFormed, frames.length ? head + '\n' + ReflectApply(ArrayPrototypeJoin, frames, ['\n']) : head, []);
      }
      return ReflectApply(StringPrototypeToWellFormed, 'Uncaught ' + Inspect(error), []);
    } catch {
      return 'Uncaught exception (not printable)';
    }
  }

  async function run(message) {
    logBudget = message.maxOutputBytes;
    const tools = ObjectCreate(null);
    for (const name of message.tools) {
      if (name === 'run_code') continue;
      tools[name] = function (args) { return callTool(name, arguments.length === 0 ? {} : args); };
    }
    ObjectFreeze(tools);
    for (const [key, value] of [['console', consoleObject], ['tools', tools], ['ToolCallError', ToolCallError]]) {
      ObjectDefineProperty(globalObject, key, { value, writable: true, configurable: true, enumerable: false });
    }
    let fn;
    try {
      // The constructor parses the code as a function body alone: it cannot close the
      // function early. Its frames say `<anonymous>:L:C` with the body from line 3.
      fn = new AsyncFunction('tools', 'console', 'ToolCallError', message.code);
    } catch (error) {
      send({ t: 'done', ok: false, kind: 'exception', message: describeError(error) });
      return;
    }
    let value;
    try {
      value = await fn(tools, consoleObject, ToolCallError);
    } catch (error) {
      send({ t: 'done', ok: false, kind: 'exception', message: describeError(error) });
      return;
    }
    let text;
    try {
      text = codec.encode(value);
    } catch (error) {
      send({ t: 'done', ok: false, kind: 'exception', message: 'the returned value cannot cross the boundary: ' + describeError(error) });
      return;
    }
    send({ t: 'done', ok: true, value: text });
  }

  port.on('message', (message) => {
    if (message.t === 'run' && !started) {
      started = true;
      run(message);
    } else if (message.t === 'reply') {
      const call = ReflectApply(MapGet, pending, [message.id]);
      if (!call) return;
      ReflectApply(MapDelete, pending, [message.id]);
      if (message.ok) {
        let value;
        try {
          value = codec.decodeParsed(message.value);
        } catch (error) {
          call.reject(error);
          return;
        }
        call.resolve(value);
      } else {
        call.reject(new ToolCallError(call.name, '' + message.message));
      }
    }
  });
  send({ t: 'ready' });
}

// ---------------------------------------------------------------------------------------
// Main thread: the protocol with the host and the workers' lifecycle.
function runnerMain() {
  const fs = require('node:fs');
  const crypto = require('node:crypto');
  const { Worker } = wt;
  const MAX_INPUT_LINE = 256 * 1024 * 1024;
  const selfSha = crypto.createHash('sha256').update(fs.readFileSync(__filename)).digest('hex');

  function writeFrame(json) {
    const line = Buffer.from(json, 'utf8').toString('base64') + '\n';
    try {
      fs.writeSync(1, line);
    } catch (error) {
      if (error && error.code === 'EAGAIN') {
        // Non-blocking pipe full: fall back to a blocking retry loop.
        let offset = 0;
        const bytes = Buffer.from(line, 'latin1');
        while (offset < bytes.length) {
          try { offset += fs.writeSync(1, bytes, offset); } catch (e) { if (!e || e.code !== 'EAGAIN') throw e; }
        }
      } else {
        process.exit(3);
      }
    }
  }
  const send = (frame) => writeFrame(JSON.stringify(frame));

  let spare = null;
  let current = null;
  const dying = new Set();

  function spawnWorker(heapMb) {
    const worker = new Worker(__filename, {
      env: {},
      argv: [],
      execArgv: [],
      stdin: false,
      stdout: true,
      stderr: true,
      resourceLimits: { maxOldGenerationSizeMb: heapMb },
    });
    const entry = { worker, heapMb, error: null, exited: false, run: null };
    worker.on('message', (message) => onWorkerMessage(entry, message));
    worker.on('error', (error) => { if (!entry.error) entry.error = error; });
    worker.on('exit', (code) => onWorkerExit(entry, code));
    const forward = (chunk) => { if (entry.run) onLog(entry.run, chunk.toString('utf8')); };
    worker.stdout.on('data', forward);
    worker.stderr.on('data', forward);
    return entry;
  }

  function ensureSpare(heapMb) {
    if (spare && spare.heapMb !== heapMb) { retire(spare); spare = null; }
    if (!spare) spare = spawnWorker(heapMb);
  }

  function retire(entry) {
    entry.run = null;
    if (entry.exited) return;
    dying.add(entry);
    entry.terminateStarted = Date.now();
    entry.worker.terminate();
  }

  function killLeftovers() {
    // Processes the program started: our group (we lead it) or our direct children.
    let names;
    try { names = fs.readdirSync('/proc'); } catch { return; }
    for (const name of names) {
      const pid = Number(name);
      if (!Number.isSafeInteger(pid) || pid === process.pid) continue;
      let stat;
      try { stat = fs.readFileSync('/proc/' + name + '/stat', 'latin1'); } catch { continue; }
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(fields[1]);
      const pgid = Number(fields[2]);
      if (pgid === process.pid || ppid === process.pid) {
        try { process.kill(pid, 'SIGKILL'); } catch {}
      }
    }
  }

  function onLog(run, text) {
    if (run !== current || run.ending) return;
    const bytes = Buffer.byteLength(text, 'utf8');
    if (run.outputBytes + bytes > run.maxOutputBytes) {
      send({ k: 'output-limit', run: run.id });
      finish(run, { kind: 'output-limit', message: 'the output limit of ' + run.maxOutputBytes + ' bytes was reached' }, true);
      return;
    }
    run.outputBytes += bytes;
    send({ k: 'log', run: run.id, text });
  }

  function onWorkerMessage(entry, message) {
    const run = entry.run;
    if (!run || run !== current || run.ending || message === null || typeof message !== 'object') return;
    switch (message.t) {
      case 'log':
        if (typeof message.text === 'string') onLog(run, message.text);
        break;
      case 'call':
        if (!Number.isSafeInteger(message.id) || typeof message.tool !== 'string' || typeof message.args !== 'string') return;
        run.pending.add(message.id);
        writeFrame('{"k":"call","run":' + run.id + ',"id":' + message.id + ',"tool":' + JSON.stringify(message.tool) + ',"args":' + message.args + '}');
        break;
      case 'done':
        if (message.ok && typeof message.value === 'string') {
          const bytes = Buffer.byteLength(message.value, 'utf8');
          if (run.outputBytes + bytes > run.maxOutputBytes) {
            send({ k: 'output-limit', run: run.id });
            finish(run, { kind: 'output-limit', message: 'the returned value does not fit the output limit of ' + run.maxOutputBytes + ' bytes' }, false);
          } else {
            finish(run, { value: message.value }, false);
          }
        } else {
          const kind = message.kind === 'exception' ? 'exception' : 'invalid-output';
          finish(run, { kind, message: typeof message.message === 'string' ? message.message : 'unknown failure' }, false);
        }
        break;
      default:
        break;
    }
  }

  function onWorkerExit(entry, code) {
    entry.exited = true;
    dying.delete(entry);
    if (spare === entry) spare = null;
    const run = entry.run;
    if (run && run === current && !run.ending) {
      const error = entry.error;
      let outcome;
      if (error && error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        outcome = { kind: 'worker-exit', message: 'the program exceeded its heap limit of ' + entry.heapMb + ' MiB' };
      } else if (error) {
        let text;
        try { text = (error && error.stack) || String(error); } catch { text = 'uncaught exception'; }
        outcome = { kind: 'exception', message: 'Uncaught ' + String(text).toWellFormed() };
      } else {
        outcome = { kind: 'worker-exit', message: 'the program\'s worker exited with code ' + code };
      }
      finish(run, outcome, false);
    }
  }

  function finish(run, outcome, terminateFirst) {
    if (run.ending) return;
    run.ending = true;
    clearInterval(run.timer);
    const entry = run.entry;
    const complete = () => {
      current = null;
      if (outcome.value !== undefined) {
        writeFrame('{"k":"done","run":' + run.id + ',"ok":true,"value":' + outcome.value + '}');
      } else {
        send({ k: 'done', run: run.id, ok: false, error: { kind: outcome.kind, message: outcome.message } });
      }
      ensureSpare(run.heapMb);
      killLeftovers();
    };
    if (terminateFirst && !entry.exited) {
      // Stopping a running program: report only once its worker is gone. A worker that
      // never stops (blocked in a system call) leaves the host waiting; it then kills
      // this runner's whole process group.
      entry.run = null;
      entry.worker.terminate().then(() => { entry.exited = true; complete(); });
    } else {
      retire(entry);
      complete();
    }
  }

  function startRun(frame) {
    const limits = frame.limits;
    let entry = spare;
    spare = null;
    if (!entry || entry.heapMb !== limits.heapMb || entry.exited) {
      if (entry) retire(entry);
      entry = spawnWorker(limits.heapMb);
    }
    const run = {
      id: frame.run,
      entry,
      heapMb: limits.heapMb,
      maxOutputBytes: limits.maxOutputBytes,
      outputBytes: 0,
      pending: new Set(),
      ending: false,
      timer: null,
    };
    entry.run = run;
    current = run;
    const base = entry.worker.performance.eventLoopUtilization();
    run.timer = setInterval(() => {
      if (run.ending) return;
      const used = entry.worker.performance.eventLoopUtilization(base).active;
      if (used > limits.cpuMs) {
        finish(run, { kind: 'timeout', message: 'the program used its busy-compute budget of ' + limits.cpuMs + ' ms' }, true);
      }
    }, Math.max(5, Math.min(50, limits.cpuMs / 4)));
    entry.worker.postMessage({ t: 'run', code: frame.code, tools: frame.tools, maxOutputBytes: limits.maxOutputBytes });
  }

  function fatal(message) {
    send({ k: 'fatal', message });
    process.exit(2);
  }

  const isInt = (v) => Number.isSafeInteger(v) && v >= 0;

  function onFrame(frame) {
    if (frame === null || typeof frame !== 'object') return fatal('frame is not an object');
    switch (frame.k) {
      case 'run': {
        const l = frame.limits;
        if (current) return fatal('run while another run is active');
        if (!isInt(frame.run) || typeof frame.code !== 'string' || !Array.isArray(frame.tools) || !l || !isInt(l.heapMb) || !isInt(l.cpuMs) || !isInt(l.maxOutputBytes)) {
          return fatal('malformed run frame');
        }
        return startRun(frame);
      }
      case 'reply': {
        const run = current;
        if (!run || run.id !== frame.run || run.ending || !run.pending.has(frame.id)) return; // a late reply
        run.pending.delete(frame.id);
        if (frame.ok === true) run.entry.worker.postMessage({ t: 'reply', id: frame.id, ok: true, value: frame.value });
        else run.entry.worker.postMessage({ t: 'reply', id: frame.id, ok: false, message: String(frame.error && frame.error.message) });
        return;
      }
      case 'stop': {
        const run = current;
        if (!run || run.id !== frame.run) return;
        const kind = frame.reason === 'abort' || frame.reason === 'output-limit' ? frame.reason : 'timeout';
        return finish(run, { kind, message: typeof frame.message === 'string' ? frame.message : kind }, true);
      }
      default:
        return fatal('unknown frame kind');
    }
  }

  let buffered = [];
  let bufferedLength = 0;
  process.stdin.on('data', (chunk) => {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl < 0) break;
      buffered.push(chunk.subarray(start, nl));
      const line = Buffer.concat(buffered).toString('latin1');
      buffered = [];
      bufferedLength = 0;
      start = nl + 1;
      let frame;
      try {
        frame = JSON.parse(Buffer.from(line, 'base64').toString('utf8'));
      } catch {
        return fatal('malformed frame');
      }
      onFrame(frame);
    }
    if (start < chunk.length) {
      buffered.push(chunk.subarray(start));
      bufferedLength += chunk.length - start;
      if (bufferedLength > MAX_INPUT_LINE) fatal('frame over the size cap');
    }
  });
  const shutdown = () => {
    for (const entry of [spare, current && current.entry, ...dying]) if (entry) entry.worker.terminate();
    killLeftovers();
    process.exit(0);
  };
  process.stdin.on('end', shutdown);
  process.stdin.on('error', shutdown);

  // A worker that will not die (blocked in a system call) is not left behind: the runner
  // takes its whole group down and the host starts a new one.
  setInterval(() => {
    const now = Date.now();
    for (const entry of dying) {
      if (now - entry.terminateStarted > 5000) process.kill(-process.pid, 'SIGKILL');
    }
  }, 1000).unref();

  send({ k: 'boot', v: 1, pid: process.pid, sha: selfSha });
  ensureSpare(Number(process.argv[2]) > 0 ? Number(process.argv[2]) : 512);
}

// Test helper: decode and re-encode tagged values, one base64 line each way, so the host
// can check the JS codec against the Rust one.
function codecEcho() {
  const codec = makeCodec();
  let rest = '';
  process.stdin.setEncoding('latin1');
  process.stdin.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    let out = '';
    for (const line of lines) {
      let reply;
      try {
        reply = codec.encode(codec.decodeText(Buffer.from(line, 'base64').toString('utf8')));
      } catch (error) {
        reply = JSON.stringify({ error: String(error.message) });
      }
      out += Buffer.from(reply, 'utf8').toString('base64') + '\n';
    }
    process.stdout.write(out);
  });
}

if (!wt.isMainThread) workerMain();
else if (process.argv[2] === '--codec-echo') codecEcho();
else runnerMain();
