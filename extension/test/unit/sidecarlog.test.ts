/** The sidecar stderr router: each record at its level, multi-line records and tracebacks kept together. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import type { Level } from '../../src/sidecarlog';
import { StderrRouter, routeStderr, sidecarStdio } from '../../src/sidecarlog';

const ROOT = path.resolve(__dirname, '../../../..');

function recorder() {
  const entries: { level: Level; text: string }[] = [];
  const sink = {
    entries,
    trace: (text: string) => entries.push({ level: 'trace', text }),
    debug: (text: string) => entries.push({ level: 'debug', text }),
    info: (text: string) => entries.push({ level: 'info', text }),
    warn: (text: string) => entries.push({ level: 'warn', text }),
    error: (text: string) => entries.push({ level: 'error', text }),
  };
  return sink;
}

const at = '2026-11-23 10:54:11,568';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('sidecar stderr router', () => {
  it('logs each record at its own level, without the timestamp and level the channel adds itself', () => {
    const sink = recorder();
    const r = new StderrRouter(sink);
    for (const [lvl, msg] of [['DEBUG', 'd'], ['INFO', 'council sidecar ready: 11 personas'], ['WARNING', 'malformed frame'], ['ERROR', 'e'], ['CRITICAL', 'c']]) {
      r.line(`${at} ${lvl} council.serve: ${msg}`);
    }
    r.end();
    assert.deepEqual(sink.entries, [
      { level: 'debug', text: 'council.serve: d' },
      { level: 'info', text: 'council.serve: council sidecar ready: 11 personas' },
      { level: 'warn', text: 'council.serve: malformed frame' },
      { level: 'error', text: 'council.serve: e' },
      { level: 'error', text: 'council.serve: c' },
    ]);
  });

  it("keeps a log.exception traceback with its record, and a multi-line message at the record's level", () => {
    const sink = recorder();
    const r = new StderrRouter(sink);
    r.line(`${at} INFO council.personas: loaded:`);
    r.line('  - ops-architect');
    r.line(`${at} ERROR council.service: turn failed`);
    r.line('Traceback (most recent call last):');
    r.line('  File "x.py", line 1, in <module>');
    r.line('ValueError: boom');
    r.line('');
    r.end();
    assert.deepEqual(sink.entries, [
      { level: 'info', text: 'council.personas: loaded:\n  - ops-architect' },
      { level: 'error', text: 'council.service: turn failed\nTraceback (most recent call last):\n  File "x.py", line 1, in <module>\nValueError: boom' },
    ]);
  });

  it('output outside any record is one error entry; a crash right after a routine record is not part of it', () => {
    const sink = recorder();
    const r = new StderrRouter(sink);
    r.line('Traceback (most recent call last):');
    r.line('ModuleNotFoundError: No module named pygls');
    r.line(`${at} INFO council.serve: input closed; exiting`);
    r.line('Traceback (most recent call last):');
    r.line('KeyboardInterrupt');
    r.end();
    assert.deepEqual(sink.entries, [
      { level: 'error', text: 'Traceback (most recent call last):\nModuleNotFoundError: No module named pygls' },
      { level: 'info', text: 'council.serve: input closed; exiting' },
      { level: 'error', text: 'Traceback (most recent call last):\nKeyboardInterrupt' },
    ]);
  });

  it('writes a record once the stream goes quiet, without waiting for the next one', async () => {
    const sink = recorder();
    const r = new StderrRouter(sink, 10);
    r.line(`${at} WARNING council.gate: slow`);
    assert.equal(sink.entries.length, 0, 'a record may still have continuation lines');
    await sleep(40);
    assert.deepEqual(sink.entries, [{ level: 'warn', text: 'council.gate: slow' }]);
    r.line('a stray line printed much later');
    r.end();
    assert.deepEqual(sink.entries[1], { level: 'error', text: 'a stray line printed much later' });
  });

  it('reads a stream whose chunks split lines, and flushes when it ends', async () => {
    const sink = recorder();
    const input = new PassThrough();
    routeStderr(input, sink, 1000);
    input.write(`${at} INF`);
    input.write(`O council.serve: one\r\n${at} ERROR council.x: two\nTraceback (most`);
    input.end(' recent call last):\nRuntimeError: x\n');
    await sleep(20);
    assert.deepEqual(sink.entries, [
      { level: 'info', text: 'council.serve: one' },
      { level: 'error', text: 'council.x: two\nTraceback (most recent call last):\nRuntimeError: x' },
    ]);
  });

  it("the languageclient's stderr hook uses the router and calls the channel's methods on the channel", async () => {
    const entries: string[] = [];
    const channel = {
      prefix: 'ch',
      trace(this: { prefix: string }, t: string) { entries.push(`${this.prefix}:trace:${t}`); },
      debug(this: { prefix: string }, t: string) { entries.push(`${this.prefix}:debug:${t}`); },
      info(this: { prefix: string }, t: string) { entries.push(`${this.prefix}:info:${t}`); },
      warn(this: { prefix: string }, t: string) { entries.push(`${this.prefix}:warn:${t}`); },
      error(this: { prefix: string }, t: string) { entries.push(`${this.prefix}:error:${t}`); },
    };
    const input = new PassThrough();
    sidecarStdio().stderr(input, channel);
    input.end(`${at} INFO council.serve: ready\n`);
    await sleep(20);
    assert.deepEqual(entries, ['ch:info:council.serve: ready']);
  });

  it("routes the real sidecar's log format (council.logs) at the right levels", { skip: spawnSync('python3', ['--version']).status !== 0 && 'no python3' }, async () => {
    const script = [
      'import logging',
      'from council.logs import setup_logging',
      'setup_logging("DEBUG")',
      'log = logging.getLogger("council.probe")',
      'log.debug("d"); log.info("i"); log.warning("w")',
      'try:\n    1 / 0\nexcept ZeroDivisionError:\n    log.exception("failed")',
    ].join('\n');
    const out = spawnSync('python3', ['-c', script], { env: { ...process.env, PYTHONPATH: path.join(ROOT, 'server') }, encoding: 'utf8' });
    assert.equal(out.status, 0, out.stderr);
    const sink = recorder();
    const input = new PassThrough();
    routeStderr(input, sink, 1000);
    input.end(out.stderr);
    await sleep(20);
    assert.deepEqual(sink.entries.map((e) => e.level), ['debug', 'info', 'warn', 'error']);
    assert.equal(sink.entries[1].text, 'council.probe: i');
    assert.match(sink.entries[3].text, /^council\.probe: failed\nTraceback \(most recent call last\):\n[\s\S]*ZeroDivisionError: division by zero$/);
  });
});
