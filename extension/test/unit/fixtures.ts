/** Sample wire objects (camelCase, as the sidecar sends them) for the unit tests. */
import type {
  ClarificationQuestion,
  CouncilEvent,
  EventType,
  PersonaResponse,
} from '../../src/protocol';

export const SID = 'sess-1';
const AT = '2026-11-22T10:00:00Z';
const chair = { participantId: 'p0', type: 'system' as const, name: 'Chair' };

export function question(id = 'q1', overrides: Partial<ClarificationQuestion> = {}): ClarificationQuestion {
  return {
    questionId: id,
    sessionId: SID,
    roundNumber: 1,
    sequenceInRound: 1,
    question: 'What is the team size?',
    targetAmbiguity: 'scope',
    askedBy: chair,
    choices: [
      { label: 'Under 10 engineers', value: 'small' },
      { label: '10 to 50 engineers', value: 'medium' },
    ],
    freeTextAllowed: true,
    defaultAssumption: 'A team of about 20 engineers',
    status: 'pending',
    createdAt: AT,
    ...overrides,
  };
}

export function response(persona = "Devil's Advocate", cycle = 1): PersonaResponse {
  return {
    persona,
    cycle,
    position: 'Do not split yet',
    summary: ['Too early'],
    advice: ['Modularise the monolith first'],
    risks: ['Distributed complexity'],
    nextSteps: ['Map the bounded contexts'],
    confidence: 'high',
    confidenceRationale: 'Seen it before',
  };
}

let seq = 0;
export function resetSeq(n = 0): void {
  seq = n;
}

/** One sample event per type; `seq` increases with each call. */
export function sample(type: EventType): CouncilEvent {
  const base = { sessionId: SID, seq: ++seq, at: AT };
  const all: { [K in EventType]: Extract<CouncilEvent, { type: K }> } = {
    'status.changed': { ...base, type: 'status.changed', previous: 'created', status: 'clarifying', reason: '' },
    progress: { ...base, type: 'progress', message: 'Convening the council…' },
    'personas.selected': {
      ...base,
      type: 'personas.selected',
      selection: {
        selectionId: 's1',
        sessionId: SID,
        requestClassification: 'engineering',
        selectedPersonas: [
          { participantId: 'a', type: 'persona', name: "Devil's Advocate", role: 'skeptic' },
          { participantId: 'b', type: 'persona', name: 'Ops Architect' },
        ],
        reason: 'An architecture decision with operational risk',
        method: 'keywords',
        createdAt: AT,
      },
    },
    'question.asked': { ...base, type: 'question.asked', question: question(), remainingInRound: 1, roundCap: 3 },
    'question.resolved': {
      ...base,
      type: 'question.resolved',
      question: question('q1', {
        status: 'answered',
        userAnswer: { answerId: 'a1', questionId: 'q1', sessionId: SID, answer: 'Under 10 engineers', createdAt: AT },
      }),
    },
    'assumption.recorded': {
      ...base,
      type: 'assumption.recorded',
      assumption: { assumptionId: 'as1', sessionId: SID, assumption: 'Budget is flat', rationale: 'Skipped question 2', addedAt: AT },
    },
    'persona.started': { ...base, type: 'persona.started', persona: "Devil's Advocate", cycle: 1, phase: 'debate' },
    'persona.delta': { ...base, type: 'persona.delta', persona: "Devil's Advocate", cycle: 1, text: 'Splitting now **adds risk**' },
    'persona.completed': { ...base, type: 'persona.completed', persona: "Devil's Advocate", cycle: 1, response: response() },
    'cycle.completed': { ...base, type: 'cycle.completed', cycle: 1, resolutionSummary: 'Agreed to modularise first', convergence: 'converging' },
    'debate.limitReached': { ...base, type: 'debate.limitReached', cycles: 3, limit: 3, canExtend: true, extendedLimit: 20 },
    'options.proposed': {
      ...base,
      type: 'options.proposed',
      options: [
        { id: 'A', label: 'Split now', description: 'Start extracting services' },
        { id: 'B', label: 'Modularise first', description: 'Clean module boundaries' },
      ],
    },
    'votes.tallied': {
      ...base,
      type: 'votes.tallied',
      tally: {
        options: [
          { id: 'A', label: 'Split now', description: 'x' },
          { id: 'B', label: 'Modularise first', description: 'y' },
        ],
        counts: { A: 1, B: 2 },
        weights: { A: 0.5, B: 1.6 },
        winner: 'B',
        consensus: 'majority',
        voters: 3,
        abstentions: [],
      },
    },
    'final.answer': {
      ...base,
      type: 'final.answer',
      markdown: '**Modularise first**, then split the billing service.',
      synthesis: { recommendation: 'Modularise first', nextSteps: ['Map contexts'] },
    },
    error: { ...base, type: 'error', code: 'internal', message: 'model timed out', persona: 'Ops Architect', details: {} },
  };
  return all[type];
}

/** A recording ChatResponseStream. */
export class FakeStream {
  readonly parts: { kind: 'progress' | 'markdown' | 'button'; value: any }[] = [];
  progress(value: string): void {
    this.parts.push({ kind: 'progress', value });
  }
  markdown(value: string | { value: string }): void {
    this.parts.push({ kind: 'markdown', value: typeof value === 'string' ? value : value.value });
  }
  button(value: { command: string; title: string; arguments?: unknown[] }): void {
    this.parts.push({ kind: 'button', value });
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
