// What the extension hands the engine from Pi's events: only the fields the engine reads, as plain
// JSON. The addon converts its arguments to JSON values and throws on what JSON cannot hold
// (`undefined` inside an array, a function, a symbol, a BigInt, a cycle), which a tool's
// `details` may well contain; such a throw would lose the call's result and degrade the session.
import type { ToolResultEvent } from "@earendil-works/pi-coding-agent";
import type { ToolResultEvent as EngineToolResult } from "./native.ts";

/** A BigInt as a number when it is exactly one, else as its decimal text. */
const bigints = (_key: string, value: unknown) =>
  typeof value === "bigint" ? (Number.isSafeInteger(Number(value)) ? Number(value) : value.toString()) : value;

/** `value` as JSON would carry it (`undefined` in arrays becomes `null`, functions and symbols are
 *  dropped, a BigInt becomes a number or its text), or `undefined` when JSON cannot carry it at all
 *  (a cycle). */
export function jsonSafe(value: unknown): unknown {
  if (value === undefined) return undefined;
  // Most values are plain JSON already (a model's arguments, a write's text): hand them over as
  // they are, so a large one is not serialised and parsed again on every event.
  if (isPlainJson(value, 0)) return value;
  try {
    const text = JSON.stringify(value, bigints);
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** How deep [`isPlainJson`] looks before leaving the value to the round trip (which also ends a cycle). */
const PLAIN_DEPTH = 64;

/** Whether `value` is JSON as it is: null, a boolean, a finite number, a string, or arrays and plain
 *  objects of those, nothing `undefined`. Strings are not read, so the check costs one step per
 *  value, not per character. */
function isPlainJson(value: unknown, depth: number): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "object" || depth >= PLAIN_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) if (!isPlainJson(value[index], depth + 1)) return false;
    return true;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  for (const key in value) if (!isPlainJson((value as Record<string, unknown>)[key], depth + 1)) return false;
  return true;
}

/** A call's arguments as a JSON object, or `undefined` when they are not one. */
export function jsonArguments(value: unknown): Record<string, unknown> | undefined {
  const safe = jsonSafe(value);
  return safe !== null && typeof safe === "object" && !Array.isArray(safe) ? (safe as Record<string, unknown>) : undefined;
}

/** The text blocks of a result's content, the only blocks the engine reads (images stay in JS). */
function textBlocks(content: unknown): unknown {
  if (!Array.isArray(content)) return jsonSafe(content);
  return content.flatMap((block) =>
    block !== null && typeof block === "object" && block.type === "text" && typeof block.text === "string"
      ? [{ type: "text", text: block.text }]
      : [],
  );
}

/** The engine's view of Pi's `tool_result` event. */
export function resultEvent(event: ToolResultEvent): EngineToolResult {
  return {
    toolCallId: event.toolCallId,
    toolName: event.toolName,
    input: jsonArguments(event.input),
    isError: event.isError,
    structuredContent: jsonSafe(event.structuredContent),
    details: jsonSafe(event.details),
    content: textBlocks(event.content),
  };
}
