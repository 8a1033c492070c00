// Scripted council replies for test-only language models. A council prompt asks for its JSON reply with a key
// guide (server/council/session/calls/formats.py: `"summary": 5-7 short bullets`, `"option_id": "A" | "B"`); like a real
// model, this one reads the guide: which keys (so which reply), how many items, which values. A `jsonSchema`
// (council/complete's own field, and older prompts that embedded a schema with a "title") is used when present.
// Review mode (seed 004) asks each review role for a RoleReply (its checklist, scores, verdict) and the chair for a
// ChairReply; the review roles are named by "You are the <role> on a review council".
// Used by the fake LM extension (e2e) and by the integration test that serves council/complete itself.
'use strict';

const TITLES = /"title"\s*:\s*"(ClarifierReply|PersonaReply|OptionsReply|VoteReply|SynthesisReply|FollowUpReply)"/;

/** The JSON schema the prompt asks for: `jsonSchema` when given, else the one embedded in the messages. */
function schemaOf(messages, jsonSchema) {
  if (jsonSchema && typeof jsonSchema === 'object') return jsonSchema;
  for (const m of [...messages].reverse()) {
    for (const line of m.content.split('\n')) {
      const start = line.indexOf('{');
      if (start < 0 || !TITLES.test(line)) continue;
      try {
        return JSON.parse(line.slice(start));
      } catch {
        /* not a whole schema on this line */
      }
    }
  }
  return undefined;
}

/** The schema title embedded in the prompt (jsonSchema when given, else the text of the messages). */
function schemaTitle(messages, jsonSchema) {
  const schema = schemaOf(messages, jsonSchema);
  if (schema && typeof schema.title === 'string') return schema.title;
  const m = TITLES.exec(messages.map((x) => x.content).join('\n'));
  return m ? m[1] : '';
}

/** Which reply a key guide asks for, from its keys. */
const KIND_BY_KEY = [
  ['score_overfitting', 'RoleReply'],
  ['summary_reasoning', 'ChairReply'],
  ['needs_clarification', 'ClarifierReply'],
  ['recommendation', 'SynthesisReply'],
  ['options', 'OptionsReply'],
  ['position', 'PersonaReply'],
  ['answer', 'FollowUpReply'],
];

/** A schema-like view of the key guide lines (`"key": …`) in the messages: item counts and enums per key. */
function guideOf(messages) {
  const properties = {};
  for (const m of messages) {
    for (const line of m.content.split('\n')) {
      const hit = /^"(\w+)": (.*)$/.exec(line.trim());
      if (!hit) continue;
      const [, key, rest] = hit;
      const spec = {};
      const range = /^(\d+)-(\d+) /.exec(rest) || /^exactly (\d+) /.exec(rest);
      if (range) Object.assign(spec, { minItems: Number(range[1]), maxItems: Number(range[2] ?? range[1]) });
      const upTo = /^up to (\d+) /.exec(rest);
      if (upTo) spec.maxItems = Number(upTo[1]);
      const atLeast = /^at least (\d+) /.exec(rest);
      if (atLeast) spec.minItems = Number(atLeast[1]);
      if (/^"[^"]*"( \| "[^"]*")*$/.test(rest.trim())) spec.enum = [...rest.matchAll(/"([^"]*)"/g)].map((x) => x[1]);
      properties[key] = spec;
    }
  }
  const kind = KIND_BY_KEY.find(([key]) => key in properties);
  return kind ? { title: kind[1], properties } : undefined;
}

/** `items` repeated (numbered) up to the schema's minItems for `field`. */
function fill(schema, field, items) {
  const spec = schema && schema.properties && schema.properties[field];
  const min = spec && typeof spec.minItems === 'number' ? spec.minItems : 0;
  const out = [...items];
  for (let i = out.length; i < min; i++) out.push(`${items[i % items.length]} (${i + 1})`);
  const max = spec && typeof spec.maxItems === 'number' ? spec.maxItems : out.length;
  return out.slice(0, max);
}

function lastText(messages) {
  return messages.length ? messages[messages.length - 1].content : '';
}

/** A valid reply object for `title`; `who` is the persona (purpose) when known; `schema` adds enum-bound fields. */
function replyFor(title, messages, who, schema) {
  const prompt = lastText(messages);
  const persona = who || 'Advisor';
  switch (title) {
    case 'ClarifierReply': {
      const later = /clarification round [23]/.test(prompt);
      if (later) return { needs_clarification: false, reason: 'enough context', questions: [] };
      return {
        needs_clarification: true,
        reason: 'team size and timeline change the advice',
        candidates: ['Extract one service first', 'Split now', 'Keep the monolith'],
        questions: [
          {
            question: 'How large is the engineering team that owns the monolith?',
            target_ambiguity: 'scope',
            choices: [
              { answer: 'Under 10 engineers', favours: 'C' },
              { answer: '10 to 50 engineers', favours: 'A' },
              { answer: 'Over 50 engineers', favours: 'B' },
            ],
            default_assumption: 'A team of about 20 engineers owns the monolith.',
          },
          {
            question: 'What is driving the timeline for this quarter?',
            target_ambiguity: 'timeline',
            choices: [
              { answer: 'A scaling incident', favours: 'B' },
              { answer: 'A product launch', favours: 'C' },
            ],
            default_assumption: 'There is no hard deadline this quarter.',
          },
        ],
      };
    }
    case 'PersonaReply': {
      const reply = {
        position: `${persona} favours extracting one service first and measuring.`,
        summary: fill(schema, 'summary', [`${persona}: a full split this quarter is risky.`]),
        advice: fill(schema, 'advice', [`${persona}: carve out the most independent module behind a clear interface.`]),
        risks: fill(schema, 'risks', ['Distributed-systems overhead before the team is ready.']),
        assumptions: ['The monolith has at least one well-bounded module.'],
        questions: [],
        next_steps: fill(schema, 'next_steps', ['Map the bounded contexts.', 'Pick one module to extract.']),
        confidence: 'medium',
        confidence_rationale: 'Typical outcome for teams of this size.',
        changed_position: false,
        change_reason: '',
        continue_debate: false,
      };
      // A question about the workspace's README: the advisor looks it up (evidence, issue 14) when the prompt offers it.
      const props = (schema && schema.properties) || {};
      if ('evidence_requests' in props && messages.some((m) => /does our readme explain/i.test(m.content))) {
        reply.evidence_requests = [{ tool: 'read_file', query: 'README.md', regex: false }];
      }
      // Debate cycles after the options are fixed carry a vote on them (option_id is an enum in the schema).
      const options = schema && schema.properties && schema.properties.option_id && schema.properties.option_id.enum;
      if (Array.isArray(options) && options.length) {
        reply.option_id = options[0];
        reply.vote_confidence = 0.8;
      } else if (schema && schema.properties && !schema.properties.changed_position) {
        delete reply.changed_position;
        delete reply.change_reason;
      }
      return reply;
    }
    case 'OptionsReply': {
      // Every advisor's recommendation is extracting one service first: all of them support option A.
      const advisors = Math.max(1, (prompt.match(/^- Advisor \d+ /gm) || []).length);
      return {
        options: [
          { label: 'Extract one service', description: 'Split out the most independent module this quarter.',
            supporters: Array.from({ length: advisors }, (_, i) => i + 1) },
          { label: 'Modularise first', description: 'Enforce module boundaries inside the monolith, split later.',
            supporters: [] },
        ],
      };
    }
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
        next_steps: fill(schema, 'next_steps', ['Map bounded contexts.', 'Extract the first service.', 'Review after one month.']),
        notes: [],
      };
    case 'RoleReply':
      return roleReply(messages, schema);
    case 'ChairReply': {
      const outcome = (/Outcome \(fixed by the rules\): (\w+)/.exec(prompt) || [])[1] || 'APPROVE';
      return {
        summary_reasoning: `The council's outcome is ${outcome}, as its rules decide. The Code Reviewer's finding ` +
          'decides it: no test covers the changed behaviour; the other roles found the change sound.',
      };
    }
    case 'FollowUpReply':
      return {
        answer: 'The advisors differed on timing, not direction: all favour extracting one service first; the ' +
          'disagreement was how soon to split the rest.',
      };
    default:
      return null;
  }
}

/** The review role a prompt addresses ("You are the <role> on a review council"). */
function reviewRoleFrom(messages) {
  for (const m of messages) {
    const hit = /You are the (.{2,80}?) on a review council/.exec(m.content);
    if (hit) return hit[1];
  }
  return undefined;
}

/**
 * A review role's reply. The Code Reviewer rejects a change whose files include no test (a blocking issue; its
 * "Do tests cover the changed behaviour?" item fails); every other role approves with every item passing.
 */
function roleReply(messages, schema) {
  const role = reviewRoleFrom(messages) || 'Reviewer';
  const spec = schema && schema.properties && schema.properties.checklist;
  const items = spec && typeof spec.minItems === 'number' ? spec.minItems : 3;
  const files = (/^Files changed: (.*)$/m.exec(lastText(messages)) || [])[1] || '';
  const rejects = role === 'Code Reviewer' && !/test/i.test(files);
  const checklist = Array.from({ length: items }, (_, i) => (rejects && i === 2
    ? { answer: `No: nothing in ${files || 'the diff'} tests the changed behaviour.`, passed: false }
    : { answer: `Yes: ${role} checked this against the diff.`, passed: true }));
  const score = (n) => (rejects ? n - 3 : n);
  return {
    checklist,
    concerns: rejects ? ['The changed function has no test.'] : [`${role}: the change is small and contained.`],
    blocking_issues: rejects ? ['No test covers the changed behaviour: add one before merging.'] : [],
    required_actions: rejects ? ['Add a unit test for the changed function.'] : [],
    score_assumptions: 8, score_applicability: 8, score_code_correctness: score(8), score_realistic_newness: 7,
    score_overfitting: 9, score_implications: score(7),
    verdict: rejects ? 'REJECT' : 'APPROVE',
    confidence_score: rejects ? 0.8 : 0.7,
  };
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
  const schema = schemaOf(messages, jsonSchema) ?? guideOf(messages);
  const title = schemaTitle(messages, jsonSchema) || (schema && schema.title) || '';
  const obj = replyFor(title, messages, who || whoFrom(messages), schema);
  return obj ? JSON.stringify(obj) : `FAKE-LM: ${lastText(messages).slice(0, 200)}`;
}

/** Split text into n roughly equal chunks (streamed replies). */
function chunks(text, n = 4) {
  const size = Math.max(1, Math.ceil(text.length / n));
  const out = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

module.exports = { schemaOf, schemaTitle, guideOf, replyFor, replyText, chunks, whoFrom, reviewRoleFrom };
