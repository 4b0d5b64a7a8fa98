// The `tool_result` patch the extension builds from the engine's decision: the original content
// plus one text block, with `details`, `structuredContent` and `isError` passed through (Pi drops
// `structuredContent` from a patch that replaces `content` without it).
import test from "node:test";
import assert from "node:assert/strict";
import { resultPatch } from "../extension/patch.ts";

/** @type {import("@earendil-works/pi-coding-agent").ToolResultEvent} */
const bash = {
  type: "tool_result",
  toolCallId: "D",
  toolName: "bash",
  input: { command: "exit 3" },
  content: [{ type: "text", text: "Command exited with code 3" }],
  isError: true,
  structuredContent: { output: "", truncated: false, exit_code: 3, wall_time_seconds: 0.1 },
  details: undefined,
};

test("an unchanged decision leaves the result alone", () => {
  assert.equal(resultPatch(bash, {}), undefined);
});

test("a bash result keeps its structured content and error flag", () => {
  assert.deepEqual(resultPatch(bash, { append: "[block]" }), {
    content: [
      { type: "text", text: "Command exited with code 3" },
      { type: "text", text: "[block]" },
    ],
    structuredContent: { output: "", truncated: false, exit_code: 3, wall_time_seconds: 0.1 },
    isError: true,
  });
});

test("details pass through and a successful result stays successful", () => {
  /** @type {import("@earendil-works/pi-coding-agent").ToolResultEvent} */
  const edit = {
    type: "tool_result",
    toolCallId: "E",
    toolName: "edit",
    input: { path: "a.ts" },
    content: [{ type: "text", text: "Edited a.ts" }],
    isError: false,
    details: { diff: "-a\n+b", firstChangedLine: 1 },
  };
  const patch = resultPatch(edit, { append: "[block]" });
  assert.deepEqual(patch, {
    content: [
      { type: "text", text: "Edited a.ts" },
      { type: "text", text: "[block]" },
    ],
    details: { diff: "-a\n+b", firstChangedLine: 1 },
    isError: false,
  });
  assert.equal(edit.content.length, 1, "the event's own content is not changed");
});
