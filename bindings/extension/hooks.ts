// The pi-native-hooks extension: a thin adapter that forwards Pi's events to the engine's
// session and applies its decisions. Every handler is guarded: a failure is reported through
// ctx.ui.notify and the footer, and never blocks or changes a tool result. An engine panic comes
// back as a `PNH_PANIC` error like any engine error (the addon contains it); the session it
// stopped answers without the engine from then on, its footer says `degraded (engine panic in
// <method>)`, and `/reload` opens a new session in its place.
import type { CustomEntry, ExtensionAPI, ExtensionContext, SessionEntry } from "@earendil-works/pi-coding-agent";
import { type EntryPoint, type HookSession, HooksError, type PersistedEntry, addonProblem, isBindingError, native, tsserverBridge, unwrap } from "./native.ts";
import { resultPatch } from "./patch.ts";
import { jsonArguments, resultEvent } from "./wire.ts";

/** The `customType` of the gate's continuation message. */
export const VERIFICATION_MESSAGE = "pi-native-hooks-verification";
/** The `customType` of the settle's message with diagnostics that arrived late. */
export const LATE_DIAGNOSTICS_MESSAGE = "pi-native-hooks-diagnostics";
/** The waiver tool's name. */
export const WAIVER_TOOL = "pi_hooks_waive_verification";
const STATUS_KEY = "pi-native-hooks";
/** The waiver tool's arguments as plain JSON Schema, which Pi validates like a TypeBox schema:
 *  importing no package at run time lets Pi load this extension as native JavaScript. */
const WAIVER_PARAMETERS = {
  type: "object",
  properties: {
    reason: { type: "string", description: "Why the required checks cannot be run now (recorded and shown to the user)." },
  },
  required: ["reason"],
} as const;

/** A session kept across Pi's `/reload`, which replaces this extension's runtime. */
interface Parked {
  session: HookSession;
  timer: ReturnType<typeof setTimeout>;
}
/** How long a session parked by `/reload` waits for the new runtime before it is shut down. */
const PARKED_MS = 60_000;
// Process-wide, so the runtime Pi loads after `/reload` finds the session even when it
// re-evaluates this module.
const globals = globalThis as typeof globalThis & { [key: symbol]: Map<string, Parked> | undefined };
const PARKED = Symbol.for("pi-native-hooks.reload");
const parked: Map<string, Parked> = (globals[PARKED] ??= new Map());

export interface PiNativeHooksOptions {
  /** Load this config root instead of the personal one (tests only: production resolves
   *  `~/.config/pi-native-hooks` from the OS user record, never from `$HOME`). */
  configRoot?: string;
  /** Tests only: replaces the settings file's `verification.continuation_cap` (default 8). */
  continuationCap?: number;
  /** Tests only: replaces the settings file's `waves.timeout_ms` (default 10,000). */
  waveTimeoutMs?: number;
  /** Tests only: the guarded handler of this name (`tool_result`, `/hooks-status`, …) throws once
   *  its body has run, so a test sees the guard report a failure whose work already happened. */
  failHandler?: string;
  /** Tests only: this method of the addon's session (or `openSession`) panics inside the addon
   *  once its engine work is done. */
  panicIn?: EntryPoint;
  /** Tests only: receives each session start that Pi does not wait for (`startup`), which the
   *  test awaits before it looks at the footer. */
  started?: (start: Promise<void>) => void;
}

/** Builds the extension. The package's default export calls it without options. */
export function createPiNativeHooks(options: PiNativeHooksOptions = {}) {
  return (pi: ExtensionAPI) => {
    let session: HookSession | undefined;
    let failed = false;
    /** The session's start while it is under way (opening the engine, restoring the branch). At
     *  Pi's own start (`startup`) Pi does not wait for it, so Pi is ready sooner; every other
     *  handler does, so none acts on a session that is not there yet (the first wave comes long
     *  after it is done). */
    let starting: Promise<void> | undefined;
    /** Whether a turn has started whose end the engine has not been told yet. This extension
     *  registers no `turn_end` handler: Pi runs one as a boundary that projects the whole session
     *  into a model context before and after it, work that grows with the session (about 4 ms a
     *  wave after 1,500 waves, for an empty handler). What follows a turn says the same: the next
     *  `turn_start`, the settle check (`agent_before_settle`) or `agent_end`. */
    let turnOpen = false;

    const persist = (entries: PersistedEntry[]) => {
      for (const entry of entries) pi.appendEntry(entry.customType, entry.data);
    };
    const showFooter = (ctx: ExtensionContext) => {
      if (!session) return;
      const footer = unwrap(session.footer());
      const degraded = failed && !footer.degraded ? " · degraded (handler error)" : "";
      ctx.ui.setStatus(STATUS_KEY, footer.text + degraded);
    };
    /** Runs a handler body once the session's start is done; on failure reports it and returns
     *  undefined (the result stays intact). */
    const guard = async <T>(ctx: ExtensionContext, what: string, body: () => Promise<T> | T): Promise<T | undefined> => {
      await untilStarted();
      return attempt(ctx, what, body);
    };
    /** Resolves once no session start is under way. */
    const untilStarted = async () => {
      if (starting) await starting;
    };
    /** Runs a handler body at once; on failure reports it and returns undefined. */
    const attempt = async <T>(ctx: ExtensionContext, what: string, body: () => Promise<T> | T): Promise<T | undefined> => {
      try {
        const value = await body();
        if (what === options.failHandler) throw new Error("thrown on purpose (the failHandler test option)");
        return value;
      } catch (error) {
        failed = true;
        // Reporting must not throw in turn: an exception escaping here would reach Pi, and
        // `tool_call`'s would block the call.
        try {
          ctx.ui.notify(`pi-native-hooks: ${what} failed: ${error instanceof Error ? error.message : String(error)}`, "error");
          showFooter(ctx);
        } catch {
          // The UI itself failed; the next handler that succeeds shows the footer again.
        }
        return undefined;
      }
    };
    const notStarted = () => (native ? "pi-native-hooks has not started" : `pi-native-hooks is inactive: ${addonProblem}`);
    const isCustom = (entry: SessionEntry): entry is CustomEntry => entry.type === "custom";
    const branchEntries = (ctx: ExtensionContext) =>
      ctx.sessionManager
        .getBranch()
        .filter(isCustom)
        .map((entry) => ({ id: entry.id, customType: entry.customType, data: entry.data ?? null }));
    const restore = async (ctx: ExtensionContext) => {
      if (!session) return;
      const restored = unwrap(await session.restore(branchEntries(ctx)));
      persist(restored.entries);
      for (const warning of restored.warnings) ctx.ui.notify(`pi-native-hooks: ${warning}`, "warning");
      showFooter(ctx);
    };

    /** Which parked session a runtime may take over: the same Pi session, directory and root. */
    const parkingKey = (ctx: ExtensionContext) => [ctx.sessionManager.getSessionId(), ctx.cwd, options.configRoot ?? ""].join("\0");
    const unpark = (key: string) => {
      const found = parked.get(key);
      if (!found) return undefined;
      parked.delete(key);
      clearTimeout(found.timer);
      return found.session;
    };

    /** Shuts down a session that another replaces or nothing uses again. Its answer is dropped: a
     *  panic in it changes nothing for what comes next, and the session is gone. */
    const release = (old: HookSession | undefined) => void old?.shutdown();

    /** Queues `work` after any start under way, as the start every other handler waits for. */
    const begin = (work: () => Promise<unknown>): Promise<void> => {
      const run: Promise<void> = (starting ?? Promise.resolve()).then(work).then(() => {
        if (starting === run) starting = undefined;
      });
      starting = run;
      return run;
    };

    pi.on("session_start", (event, ctx) => {
      const start = begin(() =>
        attempt(ctx, "session_start", async () => {
          release(session);
          const previous = unpark(parkingKey(ctx));
          // A session an engine panic stopped carries nothing over: a new one restores the branch.
          if (previous && event.reason === "reload" && !previous.panic) {
            // `/reload`: the engine reads the root again and carries the gate's state over, so a
            // policy that loaded before and fails now is degraded, not silently gone.
            const reloaded = await previous.reload();
            session = isBindingError(reloaded) ? previous : reloaded;
            persist(unwrap(session.takeStateEntries()));
            showFooter(ctx);
            if (isBindingError(reloaded)) throw new HooksError(reloaded);
            return;
          }
          release(previous);
          // Without the addon the extension stays inactive and says why, once per session.
          if (!native) return ctx.ui.notify(`pi-native-hooks is inactive: ${addonProblem}`, "warning");
          session = unwrap(
            await native.openSession({
              cwd: ctx.cwd,
              configRoot: options.configRoot,
              tsserverBridge,
              continuationCap: options.continuationCap,
              waveTimeoutMs: options.waveTimeoutMs,
              panicIn: options.panicIn,
            }),
          );
          await restore(ctx);
        }),
      );
      // Pi waits for a session it replaces (`/reload`, `/new`, `/resume`, a fork): the user asked
      // for it, and sees its footer at once. Its own start goes on without the engine.
      if (event.reason !== "startup") return start;
      options.started?.(start);
      return undefined;
    });
    pi.on("session_tree", (_event, ctx) => guard(ctx, "session_tree", () => restore(ctx)));
    pi.on("session_shutdown", (event, ctx) =>
      guard(ctx, "session_shutdown", () => {
        const closing = session;
        session = undefined;
        ctx.ui.setStatus(STATUS_KEY, undefined);
        if (closing && event.reason === "reload") {
          // Kept for the runtime Pi loads next; shut down if none takes it over.
          const key = parkingKey(ctx);
          release(unpark(key));
          const timer = setTimeout(() => release(unpark(key)), PARKED_MS);
          timer.unref();
          parked.set(key, { session: closing, timer });
        } else if (closing) {
          // Reported with the footer already cleared: a panic while shutting down is the session's
          // last word.
          unwrap(closing.shutdown());
        }
      }),
    );

    /** Tells the engine the open turn is over (its waves are closed, what they freed released). */
    const endTurn = (ctx: ExtensionContext) =>
      guard(ctx, "turn_end", () => {
        if (!turnOpen) return;
        turnOpen = false;
        if (session) unwrap(session.turnEnd());
        showFooter(ctx);
      });
    pi.on("turn_start", async (event, ctx) => {
      await endTurn(ctx);
      await guard(ctx, "turn_start", () => {
        turnOpen = true;
        if (session) unwrap(session.turnStart(event.turnIndex));
      });
    });
    pi.on("agent_end", (_event, ctx) => endTurn(ctx));
    pi.on("message_end", (event, ctx) =>
      guard(ctx, "message_end", () => {
        if (event.message.role !== "assistant") return;
        const calls = event.message.content.flatMap((block) =>
          block.type === "toolCall" ? [{ id: block.id, name: block.name, input: jsonArguments(block.arguments) }] : [],
        );
        if (calls.length > 0 && session) unwrap(session.assistantMessage(calls, "parallel"));
      }),
    );
    pi.on("tool_execution_start", (event, ctx) =>
      guard(ctx, "tool_execution_start", () => session && unwrap(session.toolExecutionStart({ id: event.toolCallId, name: event.toolName, input: jsonArguments(event.args) }))),
    );
    pi.on("tool_call", async (event, ctx) => {
      await guard(ctx, "tool_call", async () => session && unwrap(await session.toolCall({ id: event.toolCallId, name: event.toolName, input: jsonArguments(event.input) })));
      return undefined; // never blocks a call
    });
    pi.on("tool_result", (event, ctx) =>
      guard(ctx, "tool_result", async () => {
        if (!session) return undefined;
        const decision = unwrap(await session.toolResult(resultEvent(event)));
        persist(unwrap(session.takeStateEntries()));
        showFooter(ctx);
        return resultPatch(event, decision);
      }),
    );
    pi.on("tool_execution_end", (event, ctx) => guard(ctx, "tool_execution_end", () => session && unwrap(session.toolExecutionEnd(event.toolCallId))));

    pi.on("agent_before_settle", async (event, ctx) => {
      await endTurn(ctx);
      return guard(ctx, "agent_before_settle", async () => {
        if (!session) return undefined;
        const decision = unwrap(await session.beforeSettle());
        persist(decision.entries);
        if (decision.notification) ctx.ui.notify(decision.notification, "warning");
        showFooter(ctx);
        const messages = [
          ...(decision.lateFindings ? [{ type: "custom_message" as const, customType: LATE_DIAGNOSTICS_MESSAGE, content: decision.lateFindings, display: true }] : []),
          ...(decision.message ? [{ type: "custom_message" as const, customType: VERIFICATION_MESSAGE, content: decision.message, display: true }] : []),
        ];
        if (messages.length === 0) return undefined;
        return { entries: [...event.entries, ...messages], continue: true };
      });
    });
    // Only the newest gate message stays in the model's copy of the conversation, and none once
    // no check is outstanding (the session's history keeps them all).
    pi.on("context", (event, ctx) =>
      guard(ctx, "context", () => {
        // This runs before every model request, over the whole conversation: one pass that
        // allocates only for the gate messages it finds, and asks the engine nothing without one.
        const gates: number[] = [];
        event.messages.forEach((message, index) => {
          if (message.role === "custom" && message.customType === VERIFICATION_MESSAGE) gates.push(index);
        });
        if (gates.length === 0) return undefined;
        const settled = session !== undefined && unwrap(session.footer()).pending === 0;
        const keep = settled ? 0 : 1;
        if (gates.length <= keep) return undefined;
        const older = new Set(gates.slice(0, gates.length - keep));
        return { messages: event.messages.filter((_, index) => !older.has(index)) };
      }),
    );

    pi.registerTool({
      name: WAIVER_TOOL,
      label: "Waive verification",
      description:
        "Skip the outstanding required verification checks when they cannot be run, with a reason. " +
        "The checks are recorded as waived (never as passed) and the next relevant change expires the waiver.",
      parameters: WAIVER_PARAMETERS,
      async execute(toolCallId, params: { reason: string }) {
        await untilStarted();
        if (!session) throw new Error("pi-native-hooks is not running in this session");
        const result = unwrap(await session.waive(toolCallId, params.reason));
        persist(result.entries);
        if (!result.recorded) throw new Error(result.message);
        return { content: [{ type: "text", text: result.message }], details: { recorded: true } };
      },
    });

    pi.registerCommand("hooks-status", {
      description: "Show pi-native-hooks: config, policies, analyzer and verification status",
      handler: async (_args, ctx) => {
        await guard(ctx, "/hooks-status", () => ctx.ui.notify(session ? unwrap(session.statusText()) : notStarted(), "info"));
      },
    });
    pi.registerCommand("hooks-doctor", {
      description: "Check the pi-native-hooks config root: trust, rules, policies, analyzer health",
      handler: async (_args, ctx) => {
        await guard(ctx, "/hooks-doctor", async () => ctx.ui.notify(session ? unwrap(await session.doctor()) : notStarted(), "info"));
      },
    });
    pi.registerCommand("hooks-init", {
      description: "Create the pi-native-hooks config root with the built-in rules and policies and a verification policy for this project",
      handler: async (_args, ctx) => {
        await guard(ctx, "/hooks-init", async () => {
          if (!session) return ctx.ui.notify(notStarted(), "info");
          const plan = unwrap(await session.initPlan());
          const missing = plan.entries.filter((entry) => !entry.exists);
          ctx.ui.notify(`pi-native-hooks init (dry run):\n${[...plan.entries.map((entry) => entry.line), ...plan.notes].join("\n")}`, "info");
          if (missing.length === 0) return ctx.ui.notify("Nothing to create: every entry exists.", "info");
          if (!ctx.hasUI) return ctx.ui.notify("No interactive UI: nothing was written. Run `pi-native-hooks init` in a terminal.", "info");
          if (!(await ctx.ui.confirm("Create the pi-native-hooks config?", `${missing.length} entries under ${session.configRoot}`))) return;
          const created = unwrap(await session.initApply());
          ctx.ui.notify(`Created ${created.length} entries under ${session.configRoot}. Run /reload to activate them.`, "info");
        });
      },
    });
  };
}
