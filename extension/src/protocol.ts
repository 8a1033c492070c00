/**
 * The wire contract between the extension and the council sidecar, mirrored in TypeScript.
 *
 * Single source of truth: the pydantic models in the Python package
 *   server/council/protocol/methods.py     (requests, params, results)
 *   server/council/protocol/events.py      (the `council/event` notification union)
 *   server/council/protocol/completion.py  (server → client `council/complete` + `council/completeDelta`)
 *   server/council/protocol/errors.py      (JSON-RPC error `data`)
 *   server/council/session/entities.py, outputs.py (entities carried by events and results)
 * Wire JSON is camelCase; fields the sidecar omits when null are optional here.
 * `extension/test/unit/protocol.test.ts` checks EVENT_TYPES and METHOD names against the Python registry.
 */

// ---------------------------------------------------------------------------------------------- methods

export const Methods = {
  turn: 'council/turn',
  answer: 'council/answer',
  cancel: 'council/cancel',
  snapshot: 'council/snapshot',
  personas: 'council/personas',
  providers: 'council/providers',
} as const;
export type MethodName = (typeof Methods)[keyof typeof Methods];

export const EVENT_METHOD = 'council/event';
export const COMPLETE_METHOD = 'council/complete';
export const COMPLETE_DELTA_METHOD = 'council/completeDelta';

/** Slash commands a client may forward with a turn (TurnCommand). */
export const TURN_COMMANDS = ['new', 'skip', 'skipAll', 'more', 'defer', 'extend', 'cancel', 'status', 'personas', 'retry'] as const;
export type TurnCommand = (typeof TURN_COMMANDS)[number];

export type Intent =
  | 'new_problem' | 'answer' | 'skip' | 'skip_all' | 'defer' | 'more_questions'
  | 'extend_debate' | 'cancel' | 'status' | 'personas' | 'retry';

export type SessionStatus = 'created' | 'clarifying' | 'debating' | 'final' | 'completed' | 'cancelled';
export type Awaiting = 'answer' | 'nothing';
export type Depth = 'brief' | 'standard' | 'deep';

export interface Reference {
  name: string; // 1..300
  uri?: string; // ≤ 2000
  content?: string; // ≤ MAX_CONTEXT
}

export const MAX_TEXT = 20_000;
export const MAX_CONTEXT = 200_000;
export const MAX_REFERENCES = 50;

export interface SessionOptions {
  personas?: string[];
  depth?: Depth;
  maxCycles?: number;
  maxPersonas?: number;
  extendedDebate?: boolean;
  clarify?: boolean;
  provider?: string;
  model?: string;
  userId?: string;
}

export interface ClientCapabilities {
  completion: boolean;
  completionModel?: string;
}

export interface TurnParams {
  sessionId?: string;
  text: string;
  command?: TurnCommand;
  references?: Reference[];
  options?: SessionOptions;
  client?: ClientCapabilities;
  idempotencyKey?: string;
  /** The id to give the session if this turn starts one (lets the client route events from the first one). */
  newSessionId?: string;
}

export type AnswerAction = 'answer' | 'skip' | 'defer';

export interface AnswerParams {
  sessionId: string;
  questionId: string;
  action: AnswerAction;
  text?: string;
  choice?: string; // the value of a choice
  client?: ClientCapabilities;
  idempotencyKey: string; // 1..200
}

export interface SessionRef {
  sessionId: string;
}

export interface SnapshotParams extends SessionRef {
  includeJournal?: boolean;
}

export interface TurnResult {
  /** Absent only when no session exists (e.g. `/status` or `/personas` first). */
  sessionId?: string;
  intent: Intent;
  status?: SessionStatus;
  awaiting: Awaiting;
  question?: ClarificationQuestion;
  finalAnswer?: string;
  canExtend?: boolean;
  /** The last debate stopped at its cycle cap rather than by agreement. */
  limitReached?: boolean;
  message?: string;
  duplicate?: boolean;
}

export interface CancelResult {
  sessionId: string;
  status: SessionStatus;
  cancelledCalls?: number;
}

export interface PersonaInfo {
  id: string;
  name: string;
  council: string;
  soul: string;
  focus: string[];
  constraints: string[];
  allowedTools: string[];
  source: string;
}

export interface PersonasResult {
  personas: PersonaInfo[];
  councils: Record<string, string[]>;
}

export interface ProviderInfo {
  id: string;
  kind: string;
  model: string;
  available: boolean;
  detail?: string;
}

export interface ProvidersResult {
  default: string;
  providers: ProviderInfo[];
}

export interface SnapshotResult {
  session: ConversationSession;
  journal?: Record<string, unknown>[];
  transcriptMarkdown: string;
}

/** Params and result of every client → server request, by method name. */
export interface MethodTypes {
  'council/turn': { params: TurnParams; result: TurnResult };
  'council/answer': { params: AnswerParams; result: TurnResult };
  'council/cancel': { params: SessionRef; result: CancelResult };
  'council/snapshot': { params: SnapshotParams; result: SnapshotResult };
  'council/personas': { params: Record<string, never>; result: PersonasResult };
  'council/providers': { params: Record<string, never>; result: ProvidersResult };
}

// ---------------------------------------------------------------------------------------------- entities

export type ParticipantType = 'user' | 'persona' | 'system';

export interface Participant {
  participantId: string;
  type: ParticipantType;
  name: string;
  role?: string;
}

export interface Choice {
  label: string;
  value: string;
}

export type QuestionStatus = 'pending' | 'answered' | 'skipped' | 'deferred';

export interface ClarificationAnswer {
  answerId: string;
  questionId: string;
  sessionId: string;
  answer: string;
  skipCommand?: boolean;
  confidence?: 'high' | 'medium' | 'low';
  createdAt: string;
}

export interface ClarificationQuestion {
  questionId: string;
  sessionId: string;
  roundNumber: number;
  sequenceInRound: number;
  question: string;
  targetAmbiguity: string;
  askedBy: Participant;
  choices?: Choice[];
  freeTextAllowed?: boolean;
  defaultAssumption: string;
  userAnswer?: ClarificationAnswer;
  status?: QuestionStatus;
  revisited?: boolean;
  createdAt: string;
  answeredAt?: string;
}

export interface Assumption {
  assumptionId: string;
  sessionId: string;
  relatedQuestionId?: string;
  assumption: string;
  rationale: string;
  addedAt: string;
}

export interface PersonaSelection {
  selectionId: string;
  sessionId: string;
  requestClassification: string;
  selectedPersonas: Participant[];
  reason: string;
  userOverride?: boolean;
  overriddenPersonas?: string[];
  method?: string;
  createdAt: string;
}

export type Level = 'low' | 'medium' | 'high';

export interface PersonaResponse {
  position: string;
  summary: string[];
  advice: string[];
  risks?: string[];
  assumptions?: string[];
  questions?: string[];
  nextSteps: string[];
  confidence: Level;
  confidenceRationale: string;
  changedPosition?: boolean;
  changeReason?: string;
  continueDebate?: boolean;
  persona: string;
  cycle: number;
  abstained?: boolean;
  note?: string;
  conformityFlag?: boolean;
  turnId?: string;
}

export interface VoteOption {
  id: string;
  label: string;
  description: string;
}

export interface Vote {
  persona: string;
  optionId: string;
  confidence: number;
  rationale: string;
  continueDebate?: boolean;
  conclusion?: string;
  cycle?: number;
}

export type Consensus = 'unanimous' | 'majority' | 'tie' | 'none';

export interface VoteTally {
  options: VoteOption[];
  counts: Record<string, number>;
  weights: Record<string, number>;
  winner?: string | null;
  consensus: Consensus;
  voters: number;
  abstentions?: string[];
}

export interface CouncilSynthesis {
  recommendation: string;
  agreements?: string[];
  conflicts?: string[];
  risksTradeoffs?: string[];
  nextSteps?: string[];
  notes?: string[];
  dissent?: string[];
  assumptions?: string[];
  source?: 'model' | 'consolidated';
}

/** The whole session as `council/snapshot` returns it; only the fields the extension reads are typed. */
export interface ConversationSession {
  sessionId: string;
  requestText: string;
  status: SessionStatus;
  debateCycles?: number;
  finalAnswer?: string;
  [key: string]: unknown;
}

// ---------------------------------------------------------------------------------------------- events

export type ErrorCode = 'validation' | 'permission' | 'internal';

interface EventBase {
  sessionId: string;
  seq: number; // strictly increasing per session, from 1
  at: string;
}

export interface StatusChangedEvent extends EventBase {
  type: 'status.changed';
  previous: SessionStatus;
  status: SessionStatus;
  reason?: string;
}
export interface ProgressEvent extends EventBase {
  type: 'progress';
  message: string;
}
export interface PersonasSelectedEvent extends EventBase {
  type: 'personas.selected';
  selection: PersonaSelection;
}
export interface QuestionAskedEvent extends EventBase {
  type: 'question.asked';
  question: ClarificationQuestion;
  remainingInRound?: number;
  roundCap?: number;
}
export interface QuestionResolvedEvent extends EventBase {
  type: 'question.resolved';
  question: ClarificationQuestion;
}
export interface AssumptionRecordedEvent extends EventBase {
  type: 'assumption.recorded';
  assumption: Assumption;
}
export interface PersonaStartedEvent extends EventBase {
  type: 'persona.started';
  persona: string;
  cycle: number;
  phase?: 'debate' | 'vote';
  provider?: string;
  model?: string;
}
export interface PersonaDeltaEvent extends EventBase {
  type: 'persona.delta';
  persona: string;
  cycle: number;
  text: string;
}
export interface PersonaCompletedEvent extends EventBase {
  type: 'persona.completed';
  persona: string;
  cycle: number;
  response: PersonaResponse;
}
export interface CycleCompletedEvent extends EventBase {
  type: 'cycle.completed';
  cycle: number;
  resolutionSummary: string;
  convergence?: string;
}
export interface DebateLimitReachedEvent extends EventBase {
  type: 'debate.limitReached';
  cycles: number;
  limit: number;
  canExtend: boolean;
  extendedLimit: number;
}
export interface OptionsProposedEvent extends EventBase {
  type: 'options.proposed';
  options: VoteOption[];
}
export interface VotesTalliedEvent extends EventBase {
  type: 'votes.tallied';
  tally: VoteTally;
}
export interface FinalAnswerEvent extends EventBase {
  type: 'final.answer';
  markdown: string;
  synthesis: CouncilSynthesis;
}
export interface ErrorEvent extends EventBase {
  type: 'error';
  code: ErrorCode;
  message: string;
  persona?: string | null;
  details?: Record<string, unknown>;
}

export type CouncilEvent =
  | StatusChangedEvent
  | ProgressEvent
  | PersonasSelectedEvent
  | QuestionAskedEvent
  | QuestionResolvedEvent
  | AssumptionRecordedEvent
  | PersonaStartedEvent
  | PersonaDeltaEvent
  | PersonaCompletedEvent
  | CycleCompletedEvent
  | DebateLimitReachedEvent
  | OptionsProposedEvent
  | VotesTalliedEvent
  | FinalAnswerEvent
  | ErrorEvent;

export type EventType = CouncilEvent['type'];

/** Every event type, in the order of the Python union (checked against the sidecar by a unit test). */
export const EVENT_TYPES = [
  'status.changed',
  'progress',
  'personas.selected',
  'question.asked',
  'question.resolved',
  'assumption.recorded',
  'persona.started',
  'persona.delta',
  'persona.completed',
  'cycle.completed',
  'debate.limitReached',
  'options.proposed',
  'votes.tallied',
  'final.answer',
  'error',
] as const satisfies readonly EventType[];

// Compile-time check that EVENT_TYPES lists every member of the union.
type _Missing = Exclude<EventType, (typeof EVENT_TYPES)[number]>;
const _allListed: [_Missing] extends [never] ? true : false = true;
void _allListed;

/** A structural check of an incoming notification (unknown types are accepted and later ignored). */
export function isCouncilEvent(value: unknown): value is CouncilEvent {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.sessionId === 'string' && typeof v.seq === 'number' && typeof v.type === 'string';
}

export function isKnownEventType(type: string): type is EventType {
  return (EVENT_TYPES as readonly string[]).includes(type);
}

// ---------------------------------------------------------------------------------------------- completion

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface CompleteParams {
  sessionId: string;
  streamId: string;
  purpose: string; // a persona name, `clarifier`, `moderator` or `synthesizer`
  messages: ChatMessage[];
  jsonSchema?: Record<string, unknown>;
  maxTokens?: number;
  temperature?: number;
}

export interface CompleteResult {
  text: string;
  model?: string;
}

export interface CompleteDelta {
  streamId: string;
  text: string;
}

// ---------------------------------------------------------------------------------------------- errors

/** The `data` member of every JSON-RPC error the sidecar sends (and of errors we answer `council/complete` with). */
export interface ErrorData {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/** JSON-RPC numeric codes per error kind (errors.py JSONRPC_CODES). */
export const JSONRPC_CODES: Record<ErrorCode, number> = {
  validation: -32602,
  permission: -32001,
  internal: -32603,
};

export function isErrorData(value: unknown): value is ErrorData {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (v.code === 'validation' || v.code === 'permission' || v.code === 'internal') && typeof v.message === 'string';
}

// ---------------------------------------------------------------------------------------------- field lists

/** `keys` must list every key of T exactly (checked at compile time), so the runtime list mirrors the type. */
function fields<T>() {
  return <const K extends readonly (keyof T & string)[]>(
    ...keys: K & (Exclude<keyof T, K[number]> extends never ? unknown : { missing: Exclude<keyof T, K[number]> })
  ): readonly string[] => keys;
}

type EventOf<K extends EventType> = Extract<CouncilEvent, { type: K }>;

/**
 * Wire field names of each contract model, by its Python class name (compared with the pydantic schemas by a
 * unit test). Entity payloads nested inside events are typed above but not listed here.
 */
export const WIRE_FIELDS: Record<string, readonly string[]> = {
  StatusChanged: fields<EventOf<'status.changed'>>()('sessionId', 'seq', 'at', 'type', 'previous', 'status', 'reason'),
  Progress: fields<EventOf<'progress'>>()('sessionId', 'seq', 'at', 'type', 'message'),
  PersonasSelected: fields<EventOf<'personas.selected'>>()('sessionId', 'seq', 'at', 'type', 'selection'),
  QuestionAsked: fields<EventOf<'question.asked'>>()('sessionId', 'seq', 'at', 'type', 'question', 'remainingInRound', 'roundCap'),
  QuestionResolved: fields<EventOf<'question.resolved'>>()('sessionId', 'seq', 'at', 'type', 'question'),
  AssumptionRecorded: fields<EventOf<'assumption.recorded'>>()('sessionId', 'seq', 'at', 'type', 'assumption'),
  PersonaStarted: fields<EventOf<'persona.started'>>()('sessionId', 'seq', 'at', 'type', 'persona', 'cycle', 'phase', 'provider', 'model'),
  PersonaDelta: fields<EventOf<'persona.delta'>>()('sessionId', 'seq', 'at', 'type', 'persona', 'cycle', 'text'),
  PersonaCompleted: fields<EventOf<'persona.completed'>>()('sessionId', 'seq', 'at', 'type', 'persona', 'cycle', 'response'),
  CycleCompleted: fields<EventOf<'cycle.completed'>>()('sessionId', 'seq', 'at', 'type', 'cycle', 'resolutionSummary', 'convergence'),
  DebateLimitReached: fields<EventOf<'debate.limitReached'>>()('sessionId', 'seq', 'at', 'type', 'cycles', 'limit', 'canExtend', 'extendedLimit'),
  OptionsProposed: fields<EventOf<'options.proposed'>>()('sessionId', 'seq', 'at', 'type', 'options'),
  VotesTallied: fields<EventOf<'votes.tallied'>>()('sessionId', 'seq', 'at', 'type', 'tally'),
  FinalAnswer: fields<EventOf<'final.answer'>>()('sessionId', 'seq', 'at', 'type', 'markdown', 'synthesis'),
  ErrorEvent: fields<EventOf<'error'>>()('sessionId', 'seq', 'at', 'type', 'code', 'message', 'persona', 'details'),
  TurnParams: fields<TurnParams>()(
    'sessionId', 'text', 'command', 'references', 'options', 'client', 'idempotencyKey', 'newSessionId',
  ),
  AnswerParams: fields<AnswerParams>()('sessionId', 'questionId', 'action', 'text', 'choice', 'client', 'idempotencyKey'),
  TurnResult: fields<TurnResult>()(
    'sessionId', 'intent', 'status', 'awaiting', 'question', 'finalAnswer', 'canExtend', 'limitReached', 'message',
    'duplicate',
  ),
  CancelResult: fields<CancelResult>()('sessionId', 'status', 'cancelledCalls'),
  SessionOptions: fields<SessionOptions>()('personas', 'depth', 'maxCycles', 'maxPersonas', 'extendedDebate', 'clarify', 'provider', 'model', 'userId'),
  ClientCapabilities: fields<ClientCapabilities>()('completion', 'completionModel'),
  Reference: fields<Reference>()('name', 'uri', 'content'),
  SnapshotParams: fields<SnapshotParams>()('sessionId', 'includeJournal'),
  SnapshotResult: fields<SnapshotResult>()('session', 'journal', 'transcriptMarkdown'),
  PersonaInfo: fields<PersonaInfo>()('id', 'name', 'council', 'soul', 'focus', 'constraints', 'allowedTools', 'source'),
  ProviderInfo: fields<ProviderInfo>()('id', 'kind', 'model', 'available', 'detail'),
  CompleteParams: fields<CompleteParams>()('sessionId', 'streamId', 'purpose', 'messages', 'jsonSchema', 'maxTokens', 'temperature'),
  CompleteResult: fields<CompleteResult>()('text', 'model'),
  CompleteDelta: fields<CompleteDelta>()('streamId', 'text'),
  ClarificationQuestion: fields<ClarificationQuestion>()(
    'questionId', 'sessionId', 'roundNumber', 'sequenceInRound', 'question', 'targetAmbiguity', 'askedBy', 'choices',
    'freeTextAllowed', 'defaultAssumption', 'userAnswer', 'status', 'revisited', 'createdAt', 'answeredAt',
  ),
  Choice: fields<Choice>()('label', 'value'),
  Assumption: fields<Assumption>()('assumptionId', 'sessionId', 'relatedQuestionId', 'assumption', 'rationale', 'addedAt'),
  VoteTally: fields<VoteTally>()('options', 'counts', 'weights', 'winner', 'consensus', 'voters', 'abstentions'),
  CouncilSynthesis: fields<CouncilSynthesis>()(
    'recommendation', 'agreements', 'conflicts', 'risksTradeoffs', 'nextSteps', 'notes', 'dissent', 'assumptions', 'source',
  ),
};
