/**
 * A small `vscode` module mock for `node --test`: the classes and namespaces the extension touches, with
 * recorders (`__mock`) tests can inspect and reset. Behaviour follows the real API where the code depends on it.
 */
 
type Listener<T> = (e: T) => unknown;

export class Disposable {
  constructor(private readonly fn: () => void = () => {}) {}
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => items.forEach((i) => i.dispose()));
  }
  dispose(): void {
    this.fn();
  }
}

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  event = (listener: Listener<T>): Disposable => {
    this.listeners.push(listener);
    return new Disposable(() => (this.listeners = this.listeners.filter((l) => l !== listener)));
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners = [];
  }
}

export interface CancellationToken {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: Listener<void>): Disposable;
}

export class CancellationTokenSource {
  private readonly emitter = new EventEmitter<void>();
  private cancelled = false;
  readonly token: CancellationToken;
  constructor() {
    const self = this;
    this.token = {
      get isCancellationRequested(): boolean {
        return self.cancelled;
      },
      onCancellationRequested: (l: Listener<void>): Disposable => {
        if (self.cancelled) {
          setImmediate(() => l());
          return new Disposable();
        }
        return self.emitter.event(l);
      },
    };
  }
  cancel(): void {
    if (!this.cancelled) {
      this.cancelled = true;
      this.emitter.fire();
    }
  }
  dispose(): void {
    this.emitter.dispose();
  }
}

export class CancellationError extends Error {
  constructor() {
    super('Canceled');
    this.name = 'Canceled';
  }
}

export class Uri {
  private constructor(readonly scheme: string, readonly path: string, readonly query = '') {}
  static file(p: string): Uri {
    return new Uri('file', p);
  }
  static from(parts: { scheme: string; path?: string; query?: string }): Uri {
    return new Uri(parts.scheme, parts.path ?? '', parts.query ?? '');
  }
  static parse(s: string): Uri {
    const m = /^([a-z]+):\/\/(.*)$/.exec(s);
    return m ? new Uri(m[1], m[2]) : new Uri('file', s);
  }
  static joinPath(base: Uri, ...parts: string[]): Uri {
    return new Uri(base.scheme, [base.path, ...parts].join('/'));
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return `${this.scheme}://${this.path}${this.query ? `?${this.query}` : ''}`;
  }
}

export class Position {
  constructor(readonly line: number, readonly character: number) {}
}
export class Range {
  constructor(readonly start: Position, readonly end: Position) {}
}
export class Location {
  constructor(readonly uri: Uri, readonly range: Range) {}
}

export class MarkdownString {
  constructor(public value = '') {}
  appendMarkdown(v: string): this {
    this.value += v;
    return this;
  }
}

export class ThemeIcon {
  constructor(readonly id: string) {}
}

export enum LanguageModelChatMessageRole {
  User = 1,
  Assistant = 2,
}
export class LanguageModelChatMessage {
  constructor(readonly role: LanguageModelChatMessageRole, readonly content: string, readonly name?: string) {}
  static User(content: string): LanguageModelChatMessage {
    return new LanguageModelChatMessage(LanguageModelChatMessageRole.User, content);
  }
  static Assistant(content: string): LanguageModelChatMessage {
    return new LanguageModelChatMessage(LanguageModelChatMessageRole.Assistant, content);
  }
}

export class LanguageModelError extends Error {
  constructor(message: string, readonly code: string) {
    super(message);
    this.name = 'LanguageModelError';
  }
  static NoPermissions(message = 'no permission'): LanguageModelError {
    return new LanguageModelError(message, 'NoPermissions');
  }
  static Blocked(message = 'blocked'): LanguageModelError {
    return new LanguageModelError(message, 'Blocked');
  }
  static NotFound(message = 'not found'): LanguageModelError {
    return new LanguageModelError(message, 'NotFound');
  }
}
// The real API's static factories have these names (err.code === LanguageModelError.NoPermissions.name).
Object.defineProperty(LanguageModelError.NoPermissions, 'name', { value: 'NoPermissions' });
Object.defineProperty(LanguageModelError.Blocked, 'name', { value: 'Blocked' });
Object.defineProperty(LanguageModelError.NotFound, 'name', { value: 'NotFound' });

export class ChatRequestTurn {
  constructor(readonly prompt: string, readonly command: string | undefined, readonly references: unknown[], readonly participant: string) {}
}
export class ChatResponseTurn {
  constructor(readonly response: unknown[], readonly result: { metadata?: unknown }, readonly participant: string, readonly command?: string) {}
}

export enum FileType {
  Unknown = 0,
  File = 1,
  Directory = 2,
  SymbolicLink = 64,
}
export enum QuickPickItemKind {
  Separator = -1,
  Default = 0,
}
export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}

export class LanguageModelTextPart {
  constructor(readonly value: string) {}
}
export class LanguageModelToolResult {
  constructor(readonly content: unknown[]) {}
}
export class McpStdioServerDefinition {
  cwd?: Uri;
  constructor(
    readonly label: string,
    public command: string,
    public args: string[] = [],
    public env: Record<string, string | number | null> = {},
    public version?: string,
  ) {}
}

/** Recorders and knobs for tests. */
export const __mock = {
  messages: [] as { level: string; text: string; items: string[]; options?: { modal?: boolean; detail?: string } }[],
  /** What the user clicks in a message (undefined: dismissed). */
  reply: undefined as undefined | ((text: string, items: string[]) => string | undefined),
  executed: [] as { command: string; args: unknown[] }[],
  commands: new Map<string, (...args: any[]) => any>(),
  config: new Map<string, unknown>(),
  participants: [] as { id: string; handler: unknown; followupProvider?: unknown }[],
  tools: new Map<string, any>(),
  mcpProviders: new Map<string, any>(),
  contentProviders: new Map<string, any>(),
  chatModels: [] as unknown[],
  /** Other installed extensions by id (`vscode.extensions.getExtension`). */
  extensions: new Map<string, unknown>(),
  executeHook: undefined as undefined | ((command: string, args: unknown[]) => unknown),
  quickPicks: [] as { items: any[]; options?: any }[],
  quickPick: undefined as undefined | ((items: any[], options?: any) => unknown),
  reset(): void {
    this.quickPicks.length = 0;
    this.quickPick = undefined;
    this.messages.length = 0;
    this.executed.length = 0;
    this.commands.clear();
    this.config.clear();
    this.participants.length = 0;
    this.tools.clear();
    this.mcpProviders.clear();
    this.contentProviders.clear();
    this.chatModels.length = 0;
    this.extensions.clear();
    this.executeHook = undefined;
    this.reply = undefined;
  },
};

const show =
  (level: string) =>
  (text: string, ...rest: any[]): Promise<string | undefined> => {
    const options = rest.length > 0 && typeof rest[0] === 'object' && rest[0] !== null ? rest.shift() : undefined;
    const items = rest.filter((i) => typeof i === 'string');
    __mock.messages.push({ level, text, items, ...(options ? { options } : {}) });
    return Promise.resolve(__mock.reply?.(text, items));
  };

export const window = {
  /** The editor whose folder `/review` picks (tests set it). */
  activeTextEditor: undefined as undefined | { document: { uri: Uri } },
  showInformationMessage: show('info'),
  showWarningMessage: show('warn'),
  showErrorMessage: show('error'),
  showInputBox: (): Promise<string | undefined> => Promise.resolve(undefined),
  /** Records the picker (items, options); answers with `__mock.quickPick` (undefined: dismissed). */
  showQuickPick: (items: any[], options?: any): Promise<unknown> => {
    __mock.quickPicks.push({ items, options });
    return Promise.resolve(__mock.quickPick?.(items, options));
  },
  showTextDocument: (): Promise<unknown> => Promise.resolve({}),
  withProgress: <T>(_o: unknown, task: (p: { report(v: unknown): void }) => Promise<T>): Promise<T> => task({ report() {} }),
  createOutputChannel: (name: string) => ({
    name,
    lines: [] as string[],
    appendLine(l: string) {
      this.lines.push(l);
    },
    append() {},
    trace() {},
    debug() {},
    info() {},
    warn() {},
    error() {},
    show() {},
    dispose() {},
  }),
};

export const commands = {
  registerCommand(command: string, fn: (...args: any[]) => any): Disposable {
    __mock.commands.set(command, fn);
    return new Disposable(() => __mock.commands.delete(command));
  },
  async executeCommand(command: string, ...args: unknown[]): Promise<unknown> {
    __mock.executed.push({ command, args });
    if (__mock.executeHook) return __mock.executeHook(command, args);
    const fn = __mock.commands.get(command);
    return fn ? fn(...args) : undefined;
  },
};

export const workspace = {
  workspaceFolders: undefined as undefined | { uri: Uri; name: string; index: number }[],
  /** The open documents (VS Code restores tabs before extensions start). */
  textDocuments: [] as { uri: Uri }[],
  getConfiguration(section?: string) {
    return {
      get<T>(key: string, dflt?: T): T | undefined {
        const full = section ? `${section}.${key}` : key;
        return (__mock.config.has(full) ? __mock.config.get(full) : dflt) as T | undefined;
      },
    };
  },
  asRelativePath(p: Uri | string): string {
    return typeof p === 'string' ? p : p.path.replace(/^\/ws\//, '');
  },
  onDidChangeConfiguration: () => new Disposable(),
  onDidGrantWorkspaceTrust: () => new Disposable(),
  isTrusted: true,
  registerTextDocumentContentProvider: (scheme: string, provider: unknown): Disposable => {
    __mock.contentProviders.set(scheme, provider);
    return new Disposable(() => __mock.contentProviders.delete(scheme));
  },
  fs: {
    stat: (): Promise<{ type: FileType; size: number }> => Promise.resolve({ type: FileType.File, size: 10 }),
    readFile: (): Promise<Uint8Array> => Promise.resolve(new TextEncoder().encode('file content')),
  },
  openTextDocument: (arg: unknown) =>
    Promise.resolve({ uri: Uri.parse('untitled://doc'), getText: () => 'selected text', arg }),
};

export const chat = {
  createChatParticipant(id: string, handler: unknown) {
    const p = { id, handler, iconPath: undefined as unknown, followupProvider: undefined as unknown, dispose() {} };
    __mock.participants.push(p);
    return p;
  },
};

export const lm = {
  /** The mock's models that match every field the selector names (as the real API filters by vendor, family, id …). */
  selectChatModels: (selector: Record<string, unknown> = {}): Promise<unknown[]> =>
    Promise.resolve(__mock.chatModels.filter((m) => Object.entries(selector).every(([k, v]) => v === undefined || (m as Record<string, unknown>)[k] === v))),
  registerTool(name: string, tool: unknown): Disposable {
    __mock.tools.set(name, tool);
    return new Disposable(() => __mock.tools.delete(name));
  },
  registerMcpServerDefinitionProvider(id: string, provider: unknown): Disposable {
    __mock.mcpProviders.set(id, provider);
    return new Disposable(() => __mock.mcpProviders.delete(id));
  },
};

export const extensions = {
  getExtension: (id: string): unknown => __mock.extensions.get(id),
};

export const env = { appName: 'mock', language: 'en' };
export const version = '1.95.0';

/** vscode.l10n without a bundle: the English message with its `{0}` arguments filled in. */
export const l10n = {
  t(message: string | { message: string; args?: unknown[] }, ...args: unknown[]): string {
    const text = typeof message === 'string' ? message : message.message;
    const values = typeof message === 'string' ? args : (message.args ?? []);
    return text.replace(/\{(\d+)\}/g, (m, i: string) => (Number(i) < values.length ? String(values[Number(i)]) : m));
  },
};
