// Scripted council replies for test-only language models: every council prompt embeds the JSON schema it expects,
// whose "title" names the reply (see server/council/session/outputs.py). Used by the fake LM extension (e2e) and
// by the integration test that serves council/complete itself.
'use strict';

/** The schema title embedded in the prompt (jsonSchema when given, else the text of the messages). */
function schemaTitle(messages, jsonSchema) {
  if (jsonSchema && typeof jsonSchema.title === 'string') return jsonSchema.title;
  const text = messages.map((m) => m.content).join('\n');
  const m = /"title"\s*:\s*"(ClarifierReply|PersonaReply|OptionsReply|VoteReply|SynthesisReply)"/.exec(text);
  return m ? m[1] : '';
}

function lastText(messages) {
  return messages.length ? messages[messages.length - 1].content : '';
}

/** A valid reply object for `title`; `who` is the persona (purpose) when known. */
function replyFor(title, messages, who) {
  const prompt = lastText(messages);
  const persona = who || 'Advisor';
  switch (title) {
    case 'ClarifierReply': {
      const later = /clarification round [23]/.test(prompt);
      if (later) return { needs_clarification: false, reason: 'enough context', questions: [] };
      return {
        needs_clarification: true,
        reason: 'team size and timeline change the advice',
        questions: [
          {
            question: 'How large is the engineering team that owns the monolith?',
            target_ambiguity: 'scope',
            choices: ['Under 10 engineers', '10 to 50 engineers', 'Over 50 engineers'],
            default_assumption: 'A team of about 20 engineers owns the monolith.',
          },
          {
            question: 'What is driving the timeline for this quarter?',
            target_ambiguity: 'timeline',
            choices: ['A scaling incident', 'A product launch'],
            default_assumption: 'There is no hard deadline this quarter.',
          },
        ],
      };
    }
    case 'PersonaReply':
      return {
        position: `${persona} favours extracting one service first and measuring.`,
        summary: [`${persona}: a full split this quarter is risky.`],
        advice: [`${persona}: carve out the most independent module behind a clear interface.`],
        risks: ['Distributed-systems overhead before the team is ready.'],
        assumptions: ['The monolith has at least one well-bounded module.'],
        questions: [],
        next_steps: ['Map the bounded contexts.', 'Pick one module to extract.'],
        confidence: 'medium',
        confidence_rationale: 'Typical outcome for teams of this size.',
        changed_position: false,
        change_reason: '',
        continue_debate: false,
      };
    case 'OptionsReply':
      return {
        options: [
          { label: 'Extract one service', description: 'Split out the most independent module this quarter.' },
          { label: 'Modularise first', description: 'Enforce module boundaries inside the monolith, split later.' },
        ],
      };
    case 'VoteReply':
      return {
        option_id: 'A',
        confidence: 0.8,
        rationale: `${persona} prefers a measured first step.`,
        continue_debate: false,
        conclusion: `${persona} concludes: extract one service first.`,
      };
    case 'SynthesisReply':
      return {
        recommendation: 'Do not split everything this quarter: extract one well-bounded service first and measure.',
        agreements: ['Start with one module.'],
        conflicts: ['How soon to split the rest.'],
        risks_tradeoffs: ['Operational overhead grows with each service.'],
        next_steps: ['Map bounded contexts.', 'Extract the first service.', 'Review after one month.'],
        notes: [],
      };
    default:
      return null;
  }
}

/** The persona a prompt addresses ("You are <name>, an advisor on a council."). */
function whoFrom(messages) {
  for (const m of messages) {
    const hit = /You are (.{2,80}?), an advisor on a council/.exec(m.content);
    if (hit) return hit[1];
  }
  return undefined;
}

/** The reply text for a council/complete request or an LM chat request (plain text when no schema is named). */
function replyText(messages, jsonSchema, who) {
  const title = schemaTitle(messages, jsonSchema);
  const obj = replyFor(title, messages, who || whoFrom(messages));
  return obj ? JSON.stringify(obj) : `FAKE-LM: ${lastText(messages).slice(0, 200)}`;
}

/** Split text into n roughly equal chunks (streamed replies). */
function chunks(text, n = 4) {
  const size = Math.max(1, Math.ceil(text.length / n));
  const out = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

module.exports = { schemaTitle, replyFor, replyText, chunks, whoFrom };
