/** One logging module: everything goes to the "Council" log output channel (or nowhere before activation). */

export interface Logger {
  trace(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
  error(message: string | Error, ...args: unknown[]): void;
}

const silent: Logger = { trace() {}, info() {}, warn() {}, error() {} };
let current: Logger = silent;

/** Route the module's log calls to `logger` (the extension's LogOutputChannel); returns a restore function. */
export function registerLogger(logger: Logger): () => void {
  current = logger;
  return () => {
    current = silent;
  };
}

export const log: Logger = {
  trace: (m, ...a) => current.trace(m, ...a),
  info: (m, ...a) => current.info(m, ...a),
  warn: (m, ...a) => current.warn(m, ...a),
  error: (m, ...a) => current.error(m, ...a),
};

export function describeError(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  if (typeof err === 'string') return err;
  try {
    return JSON.stringify(err);
  } catch {
    return String(err);
  }
}
