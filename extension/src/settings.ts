/**
 * Typed access to the `council.*` settings (their meaning: package.json's descriptions) and what they mean for the
 * sidecar and each session.
 */
import * as path from 'node:path';
import { HTTP_PROVIDER_SETTING, PROVIDER_SETTING } from './providerKinds';
import type { SessionOptions } from './wire';
import { LIMITS, MAX_CONTEXT } from './wire';

/** `council.models`: how the personas are seated on the user's chat models (`SessionOptions.seating`). */
export type ModelsSetting = NonNullable<SessionOptions['seating']>;

/** The part of vscode.WorkspaceConfiguration we read (keeps this module free of `vscode`). */
export interface ConfigReader {
  get<T>(section: string): T | undefined;
}

export function pick<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value) ? (value as T) : fallback;
}

function int<F extends number | undefined>(value: unknown, min: number, max: number, fallback: F): number | F {
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(max, Math.max(min, Math.round(value))) : fallback;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.trim()) : [];
}

const OPTION = LIMITS.SessionOptions;
const PERSONA_KEY = 80; // SeatingPolicy's persona names (server/council/protocol/seating.py)

/** `council.models`: "diverse" (also for anything unreadable), "chat", or a map persona → model id (only string pairs kept). */
export function modelsSetting(value: unknown): ModelsSetting {
  if (value === 'chat' || value === 'diverse') return value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'diverse';
  const map: Record<string, string> = {};
  for (const [persona, model] of Object.entries(value as Record<string, unknown>)) {
    const key = persona.trim();
    const id = typeof model === 'string' ? model.trim() : '';
    if (key && key.length <= PERSONA_KEY && id && id.length <= LIMITS.ClientModel.id.maxLength) map[key] = id;
  }
  return map;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

export type CouncilSettings = ReturnType<typeof readSettings>;

/**
 * Read and validate `council.*` (the `config` is `workspace.getConfiguration('council')`). An undefined number is the
 * sidecar's own default: defaults live in one place, the sidecar's SessionSettings.
 */
export function readSettings(config: ConfigReader) {
  return {
    provider: pick(config.get('provider'), PROVIDER_SETTING, 'chat'),
    http: {
      provider: pick(config.get('http.provider'), HTTP_PROVIDER_SETTING, 'auto'),
      model: str(config.get('http.model')),
      baseUrl: str(config.get('http.baseUrl')),
      apiKeyEnv: str(config.get('http.apiKeyEnv')),
    },
    personas: strings(config.get('personas')).slice(0, OPTION.personas.maxItems),
    personasDirs: strings(config.get('personasDirs')),
    maxPersonas: int(config.get('maxPersonas'), OPTION.maxPersonas.minimum, OPTION.maxPersonas.maximum, undefined),
    maxCycles: int(config.get('maxCycles'), OPTION.maxCycles.minimum, OPTION.maxCycles.maximum, undefined),
    depth: pick(config.get('depth'), ['brief', 'standard', 'deep'], 'standard'),
    clarify: config.get('clarify') !== false,
    referencesMaxChars: int(config.get('references.maxChars'), 0, MAX_CONTEXT, 50_000),
    pythonInterpreter: str(config.get('python.interpreter')),
    embeddings: config.get('routing.embeddings') !== false,
    trace: pick(config.get('trace.server'), ['off', 'messages', 'verbose'], 'off'),
    evidence: config.get('evidence.enabled') !== false,
    memory: config.get('memory.enabled') === true,
    transcriptsDirectory: str(config.get('transcripts.directory')),
    models: modelsSetting(config.get('models')),
    maxModelCalls: int(config.get('maxModelCalls'), OPTION.maxModelCalls.minimum, OPTION.maxModelCalls.maximum, undefined),
    language: pick(config.get('language'), ['auto', 'en', 'ru'], 'auto'),
    speculate: pick(config.get('debate.speculate'), ['auto', 'always', 'never'], 'auto'),
  };
}

/**
 * The per-session options sent with every turn (honoured by the sidecar when the turn starts a session). With a
 * `chatModel` the `client` provider is requested explicitly: a configured default provider would otherwise win over it.
 */
export function sessionOptions(s: CouncilSettings, chatModel?: string, uiLanguage?: string): SessionOptions {
  const options: SessionOptions = { depth: s.depth, clarify: s.clarify };
  if (s.language !== 'auto') options.language = s.language;
  if (uiLanguage) options.uiLanguage = uiLanguage.slice(0, OPTION.uiLanguage.maxLength);
  if (s.maxCycles !== undefined) options.maxCycles = s.maxCycles;
  if (s.maxPersonas !== undefined) options.maxPersonas = s.maxPersonas;
  if (s.personas.length > 0) options.personas = s.personas;
  if (s.maxModelCalls !== undefined) options.maxModelCalls = s.maxModelCalls;
  if (s.speculate !== 'auto') options.speculate = s.speculate; // auto: the sidecar's default
  if (chatModel !== undefined) {
    options.provider = 'client';
    if (chatModel) options.model = chatModel.slice(0, OPTION.model.maxLength);
    options.seating = s.models;
  }
  return options;
}

/** Where the sidecar runs: the workspace folder (only when the workspace is trusted) and the transcripts folder. */
export interface SidecarPlace {
  workspace?: string;
  transcriptDir?: string;
}

/** `council.transcripts.directory` as an absolute folder (relative: inside the workspace folder), or undefined. */
export function transcriptDir(s: CouncilSettings, home: string, workspaceFolder: string | undefined): string | undefined {
  if (!s.transcriptsDirectory) return undefined;
  const expanded = expandPath(s.transcriptsDirectory, home, workspaceFolder);
  if (path.isAbsolute(expanded)) return expanded;
  return workspaceFolder ? path.join(workspaceFolder, expanded) : undefined;
}

/**
 * The arguments after `-m council serve|mcp` (server/council/cli/serve.py); `personasDirs` in override order (shipped
 * first). In `chat` mode the HTTP provider (if any) becomes the sidecar's default, i.e. the fallback: turns that lend
 * the chat model ask for the `client` provider explicitly (see `sessionOptions`). For `council mcp` in `chat` mode it
 * goes in the environment instead (`COUNCIL_PROVIDER` …: a configured default), so the MCP client's own model
 * (sampling) comes first, as in the chat; an explicit `council.provider` stays `--provider` and wins.
 */
export function sidecarLaunch(s: CouncilSettings, personasDirs: string[], place: SidecarPlace = {}, subcommand: 'serve' | 'mcp' = 'serve'): SidecarLaunch {
  const args: string[] = [];
  const env: Record<string, string> = {};
  if (place.workspace) {
    args.push('--workspace', place.workspace);
    if (!s.evidence) args.push('--no-evidence');
    if (s.memory) args.push('--memory');
  } else if (subcommand === 'mcp') {
    args.push('--no-roots'); // untrusted: `council mcp` must not take VS Code's folders (its MCP roots) instead
  }
  if (place.transcriptDir) args.push('--transcript-dir', place.transcriptDir);
  for (const dir of personasDirs) args.push('--personas-dir', dir);
  if (!s.embeddings) args.push('--no-embeddings');
  const kind = s.provider === 'chat' ? (s.http.provider === 'auto' ? undefined : s.http.provider) : s.provider;
  if (kind && subcommand === 'mcp' && s.provider === 'chat') {
    env.COUNCIL_PROVIDER = kind;
    if (s.http.model) env.COUNCIL_MODEL = s.http.model;
    if (s.http.baseUrl && kind !== 'scripted') env.COUNCIL_BASE_URL = s.http.baseUrl;
    if (s.http.apiKeyEnv && kind !== 'scripted') env.COUNCIL_API_KEY_ENV = s.http.apiKeyEnv;
  } else if (kind) {
    args.push('--provider', kind);
    if (s.http.model) args.push('--model', s.http.model);
    if (s.http.baseUrl && kind !== 'scripted') args.push('--base-url', s.http.baseUrl);
    if (s.http.apiKeyEnv && kind !== 'scripted') args.push('--api-key-env', s.http.apiKeyEnv);
  }
  return { args, env };
}

/** How to start `council serve` or `council mcp`: the command, its arguments, environment and working folder. */
export interface SidecarCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

export type SidecarLaunch = Pick<SidecarCommand, 'args' | 'env'>;

/**
 * The sidecar's process from the prepared Python and the launch arguments. Its working folder is the extension's own
 * storage, never the workspace, for the reason python.ts's `neutralCwd` gives (in an untrusted workspace too).
 */
export function sidecarProcess(
  python: { command: string; env: Record<string, string> }, launch: SidecarLaunch, subcommand: 'serve' | 'mcp', storagePath: string,
): Required<SidecarCommand> {
  return { command: python.command, args: ['-m', 'council', subcommand, ...launch.args], env: { ...python.env, ...launch.env }, cwd: storagePath };
}

/** Expand `~` and `${workspaceFolder}` in a user-supplied path. */
export function expandPath(p: string, home: string, workspaceFolder: string | undefined): string {
  let out = p.replace(/\$\{userHome\}/g, home);
  if (workspaceFolder) out = out.replace(/\$\{workspaceFolder\}/g, workspaceFolder);
  if (out === '~' || out.startsWith('~/')) out = path.join(home, out.slice(1));
  return out;
}
