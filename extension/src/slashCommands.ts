/**
 * What a chat turn's slash command and text mean before they reach the sidecar: the slash command as a TurnCommand,
 * the participant's name typed again, and `/revisit`'s question id.
 */
import type * as vscode from 'vscode';
import type { TurnCommand } from './wire';
import { TURN_COMMANDS } from './wire';

export const PARTICIPANT_NAME = 'council';

/** Slash command name → TurnCommand (undefined: not forwarded as a command). */
export function mapCommand(command: string | undefined): TurnCommand | undefined {
  if (!command) return undefined;
  const aliases: Record<string, TurnCommand> = { skipall: 'skipAll', 'skip-all': 'skipAll', extenddebate: 'extend' };
  if ((TURN_COMMANDS as readonly string[]).includes(command)) return command as TurnCommand;
  return aliases[command.toLowerCase()];
}

/** "@council @council …" (the chat input keeps the participant; people type it again): the prompt without the repeat. */
export function withoutRepeatedMention(request: vscode.ChatRequest): vscode.ChatRequest {
  const mention = new RegExp(`^\\s*@${PARTICIPANT_NAME}\\b\\s*`, 'i');
  if (!mention.test(request.prompt)) return request;
  const prompt = request.prompt.replace(mention, '');
  return new Proxy(request, { get: (target, key): unknown => (key === 'prompt' ? prompt : Reflect.get(target, key)) });
}

/** `/revisit <question id>` (a followup's prompt) sends `questionId`; a number or nothing is the sidecar's to read. */
export const revisitTarget = (command: TurnCommand | undefined, id: string): { questionId?: string } =>
  command === 'revisit' && /^[A-Za-z0-9_.:-]{8,100}$/.test(id.trim()) && !/^\d+$/.test(id.trim()) ? { questionId: id.trim() } : {};
