/** Sample wire objects (camelCase, as the sidecar sends them, markdown included) for the unit tests. */
import type { ClarificationQuestion, CouncilEvent, EventType, PersonaResponse } from '../../src/wire';

export const SID = 'sess-1';
const AT = '2026-11-22T10:00:00Z';
const moderator = { participantId: 'p0', type: 'system' as const, name: 'Moderator' };

export function question(id = 'q1', overrides: Partial<ClarificationQuestion> = {}): ClarificationQuestion {
  return {
    questionId: id,
    sessionId: SID,
    roundNumber: 1,
    sequenceInRound: 1,
    question: 'What is the team size?',
    targetAmbiguity: 'scope',
    askedBy: moderator,
    choices: [
      { label: 'Under 10 engineers', value: 'small' },
      { label: '10 to 50 engineers', value: 'medium' },
    ],
    freeTextAllowed: true,
    defaultAssumption: 'A team of about 20 engineers',
    status: 'pending',
    revisited: false,
    timesAsked: 1,
    createdAt: AT,
    ...overrides,
  };
}

export function response(persona = "Devil's Advocate", cycle = 1): PersonaResponse {
  const devil = persona === "Devil's Advocate"; // its advice ends with its counterpoints, as the sidecar sends it
  return {
    persona,
    cycle,
    position: 'Do not split yet',
    summary: ['Too early'],
    advice: ['Modularise the monolith first', ...(devil ? ['Counterpoint: Distributed complexity'] : [])],
    counterpoints: devil ? ['Distributed complexity'] : [],
    risks: ['Distributed complexity'],
    assumptions: [],
    questions: [],
    nextSteps: ['Map the bounded contexts'],
    confidence: 'high',
    confidenceRationale: 'Seen it before',
    changedPosition: false,
    changeReason: '',
    optionId: '',
    backs: '',
    voteConfidence: 0.5,
    continueDebate: true,
    abstained: false,
    conformityFlag: false,
    evidenceRequests: [],
    model: '',
  };
}

/** What the sidecar writes for each sample event (test data: the extension prints it as is). */
export const MARKDOWN: Record<EventType, string> = {
  'status.changed': '',
  progress: '',
  'session.replaced': '> ℹ️ The earlier council session is gone (VS Code was reloaded), so this starts a new session.\n\n',
  'personas.selected': "**The council:** **Devil's Advocate** and **Ops Architect**. _Chosen for a question about engineering._\n\n",
  'question.asked': '**The moderator asks**\n\nWhat is the team size?\n\n1. Under 10 engineers\n2. 10 to 50 engineers\n\n',
  'questions.dropped': '_Not asked: “Which cloud do you use?” — every likely answer favours “Modularise first”._\n\n',
  'question.resolved': '✓ _What is the team size?_ — **Under 10 engineers**\n\n',
  'question.confirmNew': 'That reads like a new question. Is it your answer to *“What is the team size?”*, or a new question?\n\n> Should we use Kafka?\n\n',
  'assumption.recorded': '> **Assumed:** Budget is flat\n\n',
  'cycle.started': '### Cycle 1 of 3\n\n',
  'persona.started': '',
  'seating.decided': "_🪑 Seats: Devil's Advocate → Beta Two; Ops Architect → Alpha One. The moderator and the chair: Alpha One._\n\n",
  'seat.fellBack': "_⚠️ Beta Two cannot be used (Council has no permission to use it): Devil's Advocate speaks with Alpha One from now on._\n\n",
  'cost.estimated': '_💰 About 5–7 model calls expected (5 if the first vote settles it, 7 with one debate cycle); at most 18 model calls (9 planned, up to 9 retries) — 6 on Alpha One, 3 on Beta Two._\n\n',
  'persona.delta': "#### Devil's Advocate\n\nSplitting now **adds risk**",
  'persona.completed': '\n\n_Confidence: high — Seen it before_\n\n',
  'vote.cast': "🗳️ **Devil's Advocate** votes **B · Modularise first** (80% confident)\n\n",
  'cycle.completed': '**After cycle 1:** agreed to modularise first. _The council is converging._\n\n',
  'debate.limitReached': '> The debate reached its limit of 3 cycles.\n\n',
  'options.proposed': '**Options:** A · Split now, B · Modularise first\n\n',
  'votes.tallied': '**Vote:** B · Modularise first wins 2 to 1.\n\n',
  'answer.delta': "## The council's answer\n\nModularise first",
  'answer.withdrawn': "\n\n_The chair's draft above could not be used: it is withdrawn, and the council's answer below replaces it._\n\n",
  'final.answer': "## The council's answer\n\n**Modularise first**, then split the billing service.\n",
  'followUp.delta': '#### Moderator\n\nThe Devil\'s Advocate voted B',
  'followUp.answered': ' because splitting now adds risk.\n\n_To have the council debate this, send `/extend <what to weigh>`._\n\n',
  'debate.reopened': '**You re-opened the debate:** the budget doubled\n\n',
  'cycle.dropped': '',
  'session.stopped': '**Stopped.** 1 completed cycle kept — resume with `/retry` (or the Resume button); `/cancel` ends the session.\n\n',
  'session.resumed': '_Resuming where the council stopped._\n\n',
  'evidence.gathered': '**Evidence from the workspace**\n\n- ✓ **E1** read `src/app.py` — 120 lines\n\n',
  'memory.recalled': '**The council recalls 1 similar past decision**\n\n- 2026-11-01 · _Split the monolith?_ → **Modularise first**\n\n',
  error: '> ⚠️ **Ops Architect** could not answer: the model timed out.\n\n',
};

const ALPHA = { id: 'alpha/one', provider: 'client', model: 'Alpha One', vendor: 'alpha', family: 'alpha-1' };
const BETA = { id: 'beta/two', provider: 'client', model: 'Beta Two', vendor: 'beta', family: 'beta-2' };

let seq = 0;
export function resetSeq(n = 0): void {
  seq = n;
}

type Payloads = { [K in EventType]: Omit<Extract<CouncilEvent, { type: K }>, 'sessionId' | 'seq' | 'at' | 'markdown' | 'type'> };

const option = (id: string, label: string, description: string) => ({ id, label, description });

const PAYLOADS: Payloads = {
  'status.changed': { previous: 'created', status: 'clarifying', reason: '' },
  progress: { message: 'Convening the council…' },
  'session.replaced': { reason: 'unknown_session' },
  'personas.selected': {
    selection: {
      selectionId: 's1',
      sessionId: SID,
      requestClassification: 'engineering',
      selectedPersonas: [
        { participantId: 'a', type: 'persona', name: "Devil's Advocate", role: 'skeptic' },
        { participantId: 'b', type: 'persona', name: 'Ops Architect' },
      ],
      reason: 'An architecture decision with operational risk',
      userOverride: false,
      overriddenPersonas: [],
      method: 'keywords',
      chosenFor: { 'Ops Architect': ['deploy', 'outage'] },
      createdAt: AT,
    },
  },
  'question.asked': { question: question(), remainingInRound: 1, roundCap: 3, revisit: false },
  'questions.dropped': { questions: [question('q9')], reason: 'not_decisive', asked: 1 },
  'question.resolved': {
    question: question('q1', {
      status: 'answered',
      userAnswer: { answerId: 'a1', questionId: 'q1', sessionId: SID, answer: 'Under 10 engineers', skipCommand: false, createdAt: AT },
    }),
    reused: false,
  },
  'question.confirmNew': { questionId: 'q1', text: 'Should we use Kafka?' },
  'assumption.recorded': {
    assumption: { assumptionId: 'as1', sessionId: SID, assumption: 'Budget is flat', rationale: 'Skipped question 2', addedAt: AT },
  },
  'cycle.started': { cycle: 1, limit: 3 },
  'persona.started': { persona: "Devil's Advocate", cycle: 1, provider: 'client', model: 'test-model', modelId: '' },
  'seating.decided': {
    seating: {
      policy: 'diverse', offered: 2, chair: ALPHA, misses: [], found: false,
      seats: [{ persona: "Devil's Advocate", model: BETA, why: 'diverse' }, { persona: 'Ops Architect', model: ALPHA, why: 'diverse' }],
    },
  },
  'seat.fellBack': { personas: ["Devil's Advocate"], fromModel: BETA, toModel: ALPHA, reason: 'no_consent' },
  'cost.estimated': {
    plan: {
      phase: 'start', planned: 9, maxCalls: 18, byModel: { 'Alpha One': 6, 'Beta Two': 3 }, seats: 2, cycles: 3,
      clarifier: true, firstLimit: 9, callLimit: 18, expectedLow: 5, expectedHigh: 7, speculates: false,
    },
  },
  'persona.delta': { persona: "Devil's Advocate", cycle: 1 },
  'persona.completed': { persona: "Devil's Advocate", cycle: 1, response: response() },
  'vote.cast': { vote: { persona: "Devil's Advocate", optionId: 'B', confidence: 0.8, rationale: 'Less risk', continueDebate: false, conclusion: '', cycle: 1 } },
  'cycle.completed': {
    cycle: 1,
    resolutionSummary: 'Agreed to modularise first',
    convergence: { round: 1, status: 'refining', agreement: 0.67, leader: 'B', stopRequests: 0.5, reason: 'most agree' },
  },
  'debate.limitReached': { cycles: 3, limit: 3, canExtend: true, extendedLimit: 20 },
  'options.proposed': { options: [option('A', 'Split now', 'Start extracting services'), option('B', 'Modularise first', 'Clean module boundaries')] },
  'votes.tallied': {
    tally: {
      options: [option('A', 'Split now', 'x'), option('B', 'Modularise first', 'y')],
      counts: { A: 1, B: 2 },
      weights: { A: 0.5, B: 1.6 },
      winner: 'B',
      consensus: 'majority',
      voters: 3,
      abstentions: [],
    },
  },
  'answer.delta': { text: 'Modularise first' },
  'answer.withdrawn': { text: 'Modularise first' },
  'final.answer': {
    synthesis: { recommendation: 'Modularise first', agreements: [], conflicts: [], risksTradeoffs: [], nextSteps: ['Map contexts'], notes: [], dissent: [], assumptions: [], userAnswers: [], source: 'model', hinges: [] },
  },
  'followUp.delta': { followUpId: 'f1' },
  'followUp.answered': {
    followUp: { followUpId: 'f1', sessionId: SID, question: "Why did the Devil's Advocate disagree?", answer: 'Splitting now adds risk.', afterCycle: 1, askedAt: AT, answeredAt: AT },
  },
  'debate.reopened': { input: { inputId: 'i1', sessionId: SID, text: 'the budget doubled', afterCycle: 1, addedAt: AT }, limit: 4 },
  'cycle.dropped': { cycle: 2, reason: 'stopped' },
  'session.stopped': { status: 'debating', completedCycles: 1 },
  'session.resumed': { status: 'debating' },
  'evidence.gathered': {
    cycle: 1,
    uses: [
      {
        useId: 'E1', cycle: 1, requestedBy: ['Ops Architect'], tool: 'read_file', query: 'src/app.py', regex: false, ok: true, detail: '',
        text: '(120 lines)', size: 3000, count: 120, truncated: false, files: ['src/app.py'], uris: ['file:///ws/src/app.py'],
      },
    ],
    references: ['file:///ws/src/app.py'],
  },
  'memory.recalled': {
    precedents: [
      { decisionId: 'd1', decidedAt: AT, question: 'Split the monolith?', outcome: 'Modularise first', consensus: 'majority', tally: 'A 1 · B 2', arguments: [], dissent: [], similarity: 0.8 },
    ],
    method: 'tfidf',
  },
  error: { code: 'internal', message: 'model timed out', persona: 'Ops Architect', retryable: false, details: {} },
};

/** One sample event per type, with the sidecar's markdown; `seq` increases with each call. */
export function sample<K extends EventType>(type: K, overrides: Partial<Extract<CouncilEvent, { type: K }>> = {}): Extract<CouncilEvent, { type: K }> {
  const event = { sessionId: SID, seq: ++seq, at: AT, markdown: MARKDOWN[type], type, ...PAYLOADS[type], ...overrides };
  return event as unknown as Extract<CouncilEvent, { type: K }>;
}

/** A recording ChatResponseStream. */
export class FakeStream {
  readonly parts: { kind: 'progress' | 'markdown' | 'button' | 'reference'; value: any }[] = [];
  progress(value: string): void {
    this.parts.push({ kind: 'progress', value });
  }
  markdown(value: string | { value: string }): void {
    this.parts.push({ kind: 'markdown', value: typeof value === 'string' ? value : value.value });
  }
  button(value: { command: string; title: string; arguments?: unknown[] }): void {
    this.parts.push({ kind: 'button', value });
  }
  reference(value: { toString(): string }): void {
    this.parts.push({ kind: 'reference', value });
  }
  get references(): string[] {
    return this.parts.filter((p) => p.kind === 'reference').map((p) => String(p.value));
  }
  get text(): string {
    return this.parts.filter((p) => p.kind === 'markdown').map((p) => p.value as string).join('');
  }
  get buttons(): { command: string; title: string; arguments?: any[] }[] {
    return this.parts.filter((p) => p.kind === 'button').map((p) => p.value);
  }
  get progressLines(): string[] {
    return this.parts.filter((p) => p.kind === 'progress').map((p) => p.value as string);
  }
}
