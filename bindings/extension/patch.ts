// Builds Pi's `tool_result` patch from the engine's decision: the original content plus one text
// block, with `details`, `structuredContent` and `isError` passed through unchanged (Pi drops
// `structuredContent` from a patch that replaces `content` without it; a block never turns a
// result into an error, or back).
import type { ToolResultEvent, ToolResultEventResult } from "@earendil-works/pi-coding-agent";
import type { ResultDecision } from "./native.ts";

/** The patch for `decision`, or undefined to leave the result as it is. */
export function resultPatch(event: ToolResultEvent, decision: ResultDecision): ToolResultEventResult | undefined {
  if (decision.append === undefined || decision.append === null) return undefined;
  return {
    content: [...event.content, { type: "text", text: decision.append }],
    ...(event.details === undefined ? {} : { details: event.details }),
    ...(event.structuredContent === undefined ? {} : { structuredContent: event.structuredContent }),
    isError: event.isError,
  };
}
