/**
 * Runtime checks of what arrives from the sidecar. The wire types themselves are generated into wire.ts from the
 * Python models (`python -m tools.tsgen`); nothing here restates them.
 */
import type { CouncilEvent, ErrorData, EventBase } from './wire';
import { EVENT_TYPES, JSONRPC_CODES } from './wire';

/**
 * A `council/event` as it arrives: the common fields and a `type` this extension may not know. `markdown` is
 * left unchecked here; the renderer prints it only when it is a string.
 */
export type WireEvent = Omit<EventBase, 'markdown'> & { type: string; markdown?: unknown };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** A structural check of an incoming notification (unknown types are accepted: their markdown is still shown). */
export function isWireEvent(value: unknown): value is WireEvent {
  return isRecord(value) && typeof value.sessionId === 'string' && typeof value.seq === 'number' && typeof value.type === 'string';
}

/** An event of a type this extension knows (and may add layout for). */
export function isKnownEvent(event: WireEvent): event is CouncilEvent {
  return (EVENT_TYPES as readonly string[]).includes(event.type);
}

export function isErrorData(value: unknown): value is ErrorData {
  return isRecord(value) && typeof value.code === 'string' && Object.hasOwn(JSONRPC_CODES, value.code) && typeof value.message === 'string';
}
