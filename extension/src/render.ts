/**
 * Renders the sidecar's `council/event` stream into a chat response: progress lines, the council's members,
 * each persona under its own name (streamed), questions with buttons, assumptions, cycle summaries, the limit
 * notice, the tally and the final answer. Pure string formatting plus a small amount of per-turn state.
 */
import type { ButtonCommand } from './buttons';
import { extendButton, questionButtons } from './buttons';
import type {
  Assumption,
  ClarificationQuestion,
  CouncilEvent,
  ErrorEvent,
  PersonaResponse,
  PersonaSelection,
  SessionStatus,
  VoteOption,
  VoteTally,
} from './protocol';
import { isKnownEventType } from './protocol';

/** The part of vscode.ChatResponseStream the renderer uses. */
export interface ResponseSink {
  progress(value: string): void;
  markdown(value: string): void;
  button(command: ButtonCommand): void;
}

/** What the rendered events told us about the session (feeds ChatResult.metadata and followups). */
export interface RenderSummary {
  sessionId?: string;
  status?: SessionStatus;
  question?: ClarificationQuestion;
  canExtend: boolean;
  finalAnswer: boolean;
  personas: string[];
  errors: number;
}

const bullet = (items: readonly string[] | undefined): string => (items ?? []).map((i) => `- ${i}`).join('\n');

export function formatSelection(sel: PersonaSelection): string {
  const members = sel.selectedPersonas.map((p) => `- **${p.name}**${p.role ? ` — ${p.role}` : ''}`).join('\n');
  const how = sel.userOverride ? 'chosen by you' : `picked by ${sel.method ?? 'topic'}`;
  return `**The council** (${how}):\n${members}\n\n_${sel.reason}_\n\n`;
}

export function formatQuestion(q: ClarificationQuestion, remaining?: number): string {
  const more = remaining ? ` · ${remaining} more in this round` : '';
  let md = `\n---\n**Question ${q.roundNumber}.${q.sequenceInRound}** _(from ${q.askedBy.name}${more})_\n\n${q.question}\n\n`;
  if (q.choices && q.choices.length > 0) md += q.choices.map((c) => `- ${c.label}`).join('\n') + '\n\n';
  md += `_If you skip, the council assumes: ${q.defaultAssumption}_`;
  if (q.freeTextAllowed !== false) md += ' — or type your own answer.';
  return md + '\n\n';
}

export function formatResolved(q: ClarificationQuestion): string {
  if (q.status === 'skipped') return `_Skipped: “${q.question}”._\n\n`;
  if (q.status === 'deferred') return `_Deferred: “${q.question}”._\n\n`;
  const answer = q.userAnswer?.answer;
  return answer ? `✓ _${q.question}_ → **${answer}**\n\n` : '';
}

export function formatAssumption(a: Assumption): string {
  return `> **Assumption:** ${a.assumption}\n> _${a.rationale}_\n\n`;
}

export function formatPersonaResponse(r: PersonaResponse): string {
  if (r.abstained) return `_${r.persona} abstained${r.note ? `: ${r.note}` : ''}._\n\n`;
  const parts = [`**Position:** ${r.position}`];
  if (r.changedPosition && r.changeReason) parts.push(`_Changed position: ${r.changeReason}_`);
  if (r.advice.length) parts.push(`**Advice**\n${bullet(r.advice)}`);
  if (r.risks?.length) parts.push(`**Risks**\n${bullet(r.risks)}`);
  if (r.nextSteps.length) parts.push(`**Next steps**\n${bullet(r.nextSteps)}`);
  parts.push(`_Confidence: ${r.confidence} — ${r.confidenceRationale}_`);
  return parts.join('\n\n') + '\n\n';
}

export function formatOptions(options: readonly VoteOption[]): string {
  return `**Options on the table**\n${options.map((o) => `- **${o.id}. ${o.label}** — ${o.description}`).join('\n')}\n\n`;
}

export function formatTally(t: VoteTally): string {
  const rows = t.options.map((o) => {
    const name = o.id === t.winner ? `**${o.id}. ${o.label}** ✓` : `${o.id}. ${o.label}`;
    const w = t.weights[o.id];
    return `| ${name} | ${t.counts[o.id] ?? 0} | ${w === undefined ? '' : w.toFixed(2)} |`;
  });
  const abst = t.abstentions?.length ? `\n\n_Abstained: ${t.abstentions.join(', ')}_` : '';
  return `**Vote** — ${t.voters} voter${t.voters === 1 ? '' : 's'}, consensus: ${t.consensus}\n\n| Option | Votes | Weight |\n|---|---|---|\n${rows.join('\n')}${abst}\n\n`;
}

export function formatError(e: Pick<ErrorEvent, 'code' | 'message' | 'persona'>): string {
  const who = e.persona ? `**${e.persona}** could not answer` : e.code === 'validation' ? 'The council could not accept that' : 'The council hit a problem';
  const hint =
    e.code === 'permission'
      ? ' Check that Council may use the selected chat model (Manage Language Model Access), or configure `council.http.*`.'
      : e.code === 'internal' && !e.persona
        ? ' Details are in **Council: Show Logs**.'
        : '';
  return `> ⚠️ ${who}: ${e.message}${hint}\n\n`;
}

/** Markdown that arrives as a model's raw JSON is not shown while it streams; the completed response is. */
function looksLikeJson(text: string): boolean {
  const t = text.trimStart();
  return t.startsWith('{') || t.startsWith('[') || t.startsWith('```');
}

type StreamMode = 'pending' | 'markdown' | 'json';

export class EventRenderer {
  readonly summary: RenderSummary = { canExtend: false, finalAnswer: false, personas: [], errors: 0 };
  private currentSpeaker: string | undefined;
  private readonly modes = new Map<string, StreamMode>();
  private readonly buffered = new Map<string, string>();
  private readonly shownQuestions = new Set<string>();

  constructor(private readonly out: ResponseSink, private readonly onUnknown: (type: string) => void = () => {}) {}

  render(event: CouncilEvent): void {
    this.summary.sessionId = event.sessionId;
    switch (event.type) {
      case 'status.changed':
        this.summary.status = event.status;
        if (event.status === 'cancelled') this.out.markdown(`\n\n_Session cancelled${event.reason ? `: ${event.reason}` : ''}._\n\n`);
        return;
      case 'progress':
        this.out.progress(event.message);
        return;
      case 'personas.selected':
        this.summary.personas = event.selection.selectedPersonas.map((p) => p.name);
        this.out.markdown(formatSelection(event.selection));
        return;
      case 'question.asked': {
        const q = event.question;
        this.summary.question = q;
        this.summary.status = 'clarifying';
        if (this.shownQuestions.has(q.questionId)) return;
        this.shownQuestions.add(q.questionId);
        this.currentSpeaker = undefined;
        this.out.markdown(formatQuestion(q, event.remainingInRound));
        for (const b of questionButtons(q)) this.out.button(b);
        return;
      }
      case 'question.resolved':
        if (this.summary.question?.questionId === event.question.questionId) this.summary.question = undefined;
        this.out.markdown(formatResolved(event.question));
        return;
      case 'assumption.recorded':
        this.out.markdown(formatAssumption(event.assumption));
        return;
      case 'persona.started': {
        const key = this.key(event.persona, event.cycle);
        this.modes.set(key, 'pending');
        this.buffered.set(key, '');
        this.speaker(event.persona, event.cycle, event.phase);
        this.out.progress(`${event.persona} is ${event.phase === 'vote' ? 'voting' : 'thinking'}…`);
        return;
      }
      case 'persona.delta':
        this.delta(event.persona, event.cycle, event.text);
        return;
      case 'persona.completed': {
        const key = this.key(event.persona, event.cycle);
        const mode = this.modes.get(key);
        if (mode === 'pending' && (this.buffered.get(key) ?? '').trim() !== '') {
          // Short reply that never decided: show what was buffered if it is prose.
          const text = this.buffered.get(key) ?? '';
          if (!looksLikeJson(text)) {
            this.speaker(event.persona, event.cycle);
            this.out.markdown(text + '\n\n');
            this.modes.set(key, 'markdown');
          }
        }
        if (this.modes.get(key) !== 'markdown') {
          this.speaker(event.persona, event.cycle);
          this.out.markdown(formatPersonaResponse(event.response));
        } else {
          this.out.markdown(`\n\n_Confidence: ${event.response.confidence}_\n\n`);
        }
        this.modes.delete(key);
        this.buffered.delete(key);
        return;
      }
      case 'cycle.completed':
        this.currentSpeaker = undefined;
        this.out.markdown(
          `\n---\n**Cycle ${event.cycle} summary:** ${event.resolutionSummary}${event.convergence ? ` _(${event.convergence})_` : ''}\n\n`,
        );
        return;
      case 'debate.limitReached':
        this.currentSpeaker = undefined;
        this.summary.canExtend = event.canExtend;
        this.out.markdown(
          `\n> ⏱ The debate reached its limit of ${event.limit} cycle${event.limit === 1 ? '' : 's'}` +
            (event.canExtend ? ` — extend it to up to ${event.extendedLimit} cycles, or let the council vote.` : '.') +
            '\n\n',
        );
        if (event.canExtend) this.out.button(extendButton(event.sessionId));
        return;
      case 'options.proposed':
        this.currentSpeaker = undefined;
        this.out.markdown(formatOptions(event.options));
        return;
      case 'votes.tallied':
        this.currentSpeaker = undefined;
        this.out.markdown(formatTally(event.tally));
        return;
      case 'final.answer':
        this.currentSpeaker = undefined;
        this.summary.finalAnswer = true;
        this.out.markdown(`\n---\n## The council's answer\n\n${event.markdown}\n\n`);
        return;
      case 'error':
        this.summary.errors++;
        this.out.markdown(formatError(event));
        return;
      default: {
        // Types newer than this extension are ignored (the contract says clients must).
        const type = (event as { type: string }).type;
        if (!isKnownEventType(type)) this.onUnknown(type);
      }
    }
  }

  private key(persona: string, cycle: number): string {
    return `${persona}\u0000${cycle}`;
  }

  private speaker(persona: string, cycle: number, phase?: string): void {
    const id = `${persona}\u0000${cycle}`;
    if (this.currentSpeaker === id) return;
    this.currentSpeaker = id;
    this.out.markdown(`\n#### ${persona} · ${phase === 'vote' ? 'vote' : `cycle ${cycle}`}\n\n`);
  }

  private delta(persona: string, cycle: number, text: string): void {
    const key = this.key(persona, cycle);
    let mode = this.modes.get(key) ?? 'pending';
    if (mode === 'json') return;
    if (mode === 'pending') {
      const soFar = (this.buffered.get(key) ?? '') + text;
      if (soFar.trim() === '') {
        this.buffered.set(key, soFar);
        this.modes.set(key, 'pending');
        return;
      }
      mode = looksLikeJson(soFar) ? 'json' : 'markdown';
      this.modes.set(key, mode);
      this.buffered.set(key, '');
      if (mode === 'json') return;
      text = soFar;
    }
    this.speaker(persona, cycle);
    this.out.markdown(text);
  }
}

/** Delivers a session's events in `seq` order exactly once (drops repeats, holds early arrivals briefly). */
export class SeqOrderer<E extends { seq: number }> {
  private last: number | undefined;
  private readonly held = new Map<number, E>();

  constructor(private readonly deliver: (event: E) => void, private readonly maxHeld = 8) {}

  /** Everything up to and including `seq` was delivered already (an earlier turn of the same session). */
  seed(seq: number): void {
    this.last = seq;
  }

  push(event: E): void {
    if (this.last === undefined) {
      this.last = event.seq - 1;
    }
    if (event.seq <= this.last || this.held.has(event.seq)) return;
    this.held.set(event.seq, event);
    this.drain();
    if (this.held.size > this.maxHeld) this.flush();
  }

  /** Deliver everything held, in order (a gap will not be filled: the turn is over). */
  flush(): void {
    for (const seq of [...this.held.keys()].sort((a, b) => a - b)) {
      const e = this.held.get(seq) as E;
      this.held.delete(seq);
      if (this.last === undefined || seq > this.last) {
        this.last = seq;
        this.deliver(e);
      }
    }
  }

  get lastSeq(): number | undefined {
    return this.last;
  }

  private drain(): void {
    while (this.last !== undefined && this.held.has(this.last + 1)) {
      const e = this.held.get(this.last + 1) as E;
      this.held.delete(this.last + 1);
      this.last += 1;
      this.deliver(e);
    }
  }
}
