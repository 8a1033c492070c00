/** `node --require` hook: `require('vscode')` resolves to the small mock in this folder (unit tests only). */
import Module = require('node:module');
import * as path from 'node:path';

const mockPath = path.join(__dirname, 'index.js');
type Resolve = (request: string, ...rest: unknown[]) => string;
const mod = Module as unknown as { _resolveFilename: Resolve };
const original = mod._resolveFilename;
mod._resolveFilename = function (request: string, ...rest: unknown[]): string {
  if (request === 'vscode') return mockPath;
  return original.call(this, request, ...rest);
};
