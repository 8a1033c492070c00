/**
 * The sidecar's stderr in the Council log channel, each record at its own level. The sidecar writes
 * `YYYY-MM-DD HH:MM:SS,mmm LEVEL logger: message` (server/council/logs.py). Lines that do not start a record (the
 * traceback under `log.exception`, a multi-line message) stay with the record above them; output outside any record
 * (an uncaught traceback, a warning Python prints itself) is an error, kept together as one entry.
 * vscode-languageclient would log every stderr line as an error: `sidecarStdio` replaces that default.
 */
import * as readline from 'node:readline';
import type { Readable } from 'node:stream';

export type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error';

/** What the router writes to: the LogOutputChannel's level methods. */
export type LevelSink = Record<Level, (message: string) => void>;

const HEADER = /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)? (TRACE|DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL) (.*)$/;
const LEVELS: Record<string, Level> = {
  TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARNING: 'warn', WARN: 'warn', ERROR: 'error', CRITICAL: 'error', FATAL: 'error',
};
const RANK: Record<Level, number> = { trace: 0, debug: 1, info: 2, warn: 3, error: 4 };
const TRACEBACK = /^Traceback \(most recent call last\):/;

/**
 * Groups stderr lines into records and writes each once it is complete: when the next record starts, when no line
 * came for `settleMs` (a record is written in one go, so its lines arrive together), or at `end()`.
 */
export class StderrRouter {
  private pending: { level: Level; lines: string[] } | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly sink: LevelSink,
    private readonly settleMs = 100,
  ) {}

  line(text: string): void {
    const header = HEADER.exec(text);
    if (header) {
      this.flush();
      this.pending = { level: LEVELS[header[1]], lines: [header[2]] };
    } else if (this.pending && !(TRACEBACK.test(text) && RANK[this.pending.level] < RANK.warn)) {
      this.pending.lines.push(text);
    } else {
      // Not part of a record (or a traceback after a routine record: Python's own crash report): an error.
      this.flush();
      this.pending = { level: 'error', lines: [text] };
    }
    this.arm();
  }

  /** Write what is pending (the stream ended or went quiet). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const p = this.pending;
    this.pending = undefined;
    if (!p) return;
    while (p.lines.length && !p.lines[p.lines.length - 1].trim()) p.lines.pop();
    if (p.lines.length) this.sink[p.level].call(this.sink, p.lines.join('\n'));
  }

  end(): void {
    this.flush();
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), this.settleMs);
    this.timer.unref?.();
  }
}

export function routeStderr(input: Readable, sink: LevelSink, settleMs?: number): StderrRouter {
  const router = new StderrRouter(sink, settleMs);
  const lines = readline.createInterface({ input, crlfDelay: Infinity, terminal: false, historySize: 0 });
  lines.on('line', (text) => router.line(text));
  lines.on('close', () => router.end());
  return router;
}

/**
 * `LanguageClientOptions.stdioOptions` for the sidecar: stderr through the router; stdout (only read by the client
 * for non-stdio transports) at info, as the library's default does.
 */
export function sidecarStdio(): Record<'stdout' | 'stderr', (input: Readable, channel: LevelSink) => void> {
  return {
    stdout: (input, channel) => {
      readline.createInterface({ input, crlfDelay: Infinity, terminal: false, historySize: 0 }).on('line', (text) => channel.info(text));
    },
    stderr: (input, channel) => {
      routeStderr(input, channel);
    },
  };
}
