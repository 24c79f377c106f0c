'use strict';
// A DELIBERATELY HOSTILE code runner, for tests only: it boots correctly, then breaks
// the protocol in the way the program's first comment asks (`// mode=<name>`).
const fs = require('node:fs');
const crypto = require('node:crypto');
const sha = crypto.createHash('sha256').update(fs.readFileSync(__filename)).digest('hex');
const b64 = (text) => Buffer.from(text, 'utf8').toString('base64');
const write = (text) => fs.writeSync(1, text);
const frame = (object) => write(b64(JSON.stringify(object)) + '\n');

frame({ k: 'boot', v: 1, pid: process.pid, sha });

let buffered = '';
process.stdin.setEncoding('latin1');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  let nl;
  while ((nl = buffered.indexOf('\n')) >= 0) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    const msg = JSON.parse(Buffer.from(line, 'base64').toString('utf8'));
    if (msg.k === 'run') misbehave(msg);
  }
});

function misbehave(run) {
  const mode = (/mode=([a-z0-9-]+)/.exec(run.code) || [])[1];
  const id = run.run;
  switch (mode) {
    case 'malformed-json': return write(b64('{"k":"log","run":' + id + ',"text":') + '\n');
    case 'not-base64': return write('{"k":"log"}\n');
    case 'unknown-kind': return frame({ k: 'telemetry', run: id });
    case 'extra-field': return frame({ k: 'log', run: id, text: 'x', color: 'red' });
    case 'reply-to-unknown-call': return frame({ k: 'reply', run: id, id: 999, ok: true, value: 1 });
    case 'duplicate-call':
      frame({ k: 'call', run: id, id: 1, tool: 'echo', args: {} });
      return frame({ k: 'call', run: id, id: 1, tool: 'echo', args: {} });
    case 'unknown-tool': return frame({ k: 'call', run: id, id: 1, tool: 'rm_rf', args: {} });
    case 'wrong-run': return frame({ k: 'log', run: id + 1, text: 'x' });
    case 'bad-value': return frame({ k: 'done', run: id, ok: true, value: { $dsh: 'wat' } });
    case 'done-twice-shape': return frame({ k: 'done', run: id, ok: true, value: 1, error: { kind: 'exception', message: 'x' } });
    case 'lone-surrogate': return write(b64('{"k":"log","run":' + id + ',"text":"\\ud800"}') + '\n');
    case 'oversize': return write('A'.repeat(3 * 1024 * 1024));
    case 'truncated':
      write(b64(JSON.stringify({ k: 'log', run: id, text: 'cut' })).slice(0, 10));
      return process.exit(0);
    case 'flood': {
      const line = b64(JSON.stringify({ k: 'log', run: id, text: 'flood '.repeat(20) })) + '\n';
      const block = line.repeat(1000);
      for (;;) write(block);
    }
    case 'ignore-stop': return; // never answers, never stops
    default: return frame({ k: 'done', run: id, ok: true, value: 'fine' });
  }
}
