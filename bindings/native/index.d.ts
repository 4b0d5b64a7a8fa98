
/**
 * Which binding artifact the generated loader actually loaded: `'native'` for
 * a native addon, otherwise the `platformArchABI` of the WASI flavor. Every
 * flavor napi-rs can build is listed, because `NAPI_RS_NATIVE_LIBRARY_PATH`
 * can point the loader at a WASI artifact this package does not build itself.
 */
export declare const __napiBindingTarget: 'native' | 'wasm32-wasi' | 'wasm32-wasip1'

/** The hooks of one Pi session. */
export declare class HookSession {
  /** True when a config root was loaded and the hooks run (false once a panic stopped them). */
  get active(): boolean
  /** The config root this session loaded (or found absent). */
  get configRoot(): string
  /**
   * Why the session stopped: `engine panicked in <method>: <message>`, once a panic stopped
   * it; null while it runs.
   */
  get panic(): string | null
  /**
   * Restores the verification state of the current branch (`getBranch()`, root first): at
   * session start, resume, fork and after `/tree` navigation.
   */
  restore(branch: Array<BranchEntry>): Promise<RestoreResult | BindingError>
  /** `turn_start`. */
  turnStart(turn: number): undefined | BindingError
  /**
   * `turn_end`. The wave's analysis is over: after every 8th turn, what the engine freed goes
   * back to the system, off Node's thread.
   */
  turnEnd(): undefined | BindingError
  /** An assistant `message_end`: its tool calls in source order, and how Pi runs them. */
  assistantMessage(calls: Array<ToolCall>, mode: ExecutionMode): undefined | BindingError
  /** `tool_execution_start`. */
  toolExecutionStart(call: ToolCall): undefined | BindingError
  /** `tool_call`: resolves once the wave's baseline snapshot is taken (bounded by the timeout). */
  toolCall(call: ToolCall): Promise<undefined | BindingError>
  /**
   * `tool_result`: resolves, once the call's wave is analyzed (bounded), to whether a block is
   * appended to this result.
   */
  toolResult(event: ToolResultEvent): Promise<ResultDecision | BindingError>
  /** `tool_execution_end`. */
  toolExecutionEnd(id: string): undefined | BindingError
  /**
   * `agent_before_settle`: delivers diagnostics that arrived late, refreshes the workspace and
   * decides whether the agent may stop. What the engine freed since the last trim goes back to
   * the system.
   */
  beforeSettle(): Promise<SettleResult | BindingError>
  /** The waiver tool: waives every outstanding check with `reason`. */
  waive(toolCallId: string, reason: string): Promise<WaiverResult | BindingError>
  /**
   * State entries produced since the last call (e.g. a wave armed a check). Never waits: the
   * engine feeds waves to the gate in `toolResult` and in the background.
   */
  takeStateEntries(): Array<PersistedEntry> | BindingError
  /** The status as `/hooks-status` prints it (as last published, escaped). */
  statusText(): string | BindingError
  /** The footer (as last published): its line and the data behind it. */
  footer(): Footer | BindingError
  /**
   * The `/hooks-doctor` text: config root, trust checks, policy load results, analyzer
   * health.
   */
  doctor(): Promise<string | BindingError>
  /**
   * Every entry `/hooks-init` would create under the config root (the built-in pack and the
   * verification policy proposed for the session's project), which exist already, and what
   * was proposed. Async: it looks at the file system.
   */
  initPlan(): Promise<InitPlan | BindingError>
  /**
   * Creates the missing entries of the config root (never overwrites; on failure removes what
   * it created). Resolves to the created paths, or to a [`BindingError`]
   * (`PNH_INIT_FAILED`).
   */
  initApply(): Promise<Array<string> | BindingError>
  /**
   * `/reload`: reads the config root again and resolves to the session that replaces this one,
   * carrying its verification state over (a policy that loaded before and fails now is shown
   * as degraded, and its armed checks stay `unknown`). Its first state entries wait in
   * `takeStateEntries`. This session is shut down; on a [`BindingError`]
   * (`PNH_RELOAD_FAILED`) it keeps running unchanged. A session a panic stopped answers
   * `PNH_PANIC`: its state cannot be carried over; open a new session instead.
   */
  reload(): Promise<HookSession | BindingError>
  /**
   * `session_shutdown`: releases every waiting handler unchanged and ignores later events.
   * Runs after a panic too (see the module doc).
   */
  shutdown(): undefined | BindingError
}

/**
 * An engine error returned as data: the extension turns it into a JS `Error` whose `code` is
 * [`ErrorCode`] (napi-rs gives a rejected promise no custom code).
 */
export interface BindingError {
  /** What went wrong. */
  code: ErrorCode
  /** What happened and what to do, control characters escaped (the extension shows it). */
  message: string
}

/** One `custom` entry of the current branch (`ctx.sessionManager.getBranch()`). */
export interface BranchEntry {
  /** The entry's id. */
  id: string
  /** Its `customType`. */
  customType: string
  /** Its `data`, as Pi stored it. */
  data: unknown
}

/** How to run the command line (the npm package's `bin` passes none). */
export interface CliOptions {
  /**
   * typescript-language-server for `check --types` on projects with a TypeScript before 7
   * (omitted: only one installed beside such a project serves it).
   */
  tsserverBridge?: TsserverBridge
  /** Tests only: `runCli` panics inside the addon once the command has run. */
  panicIn?: EntryPoint
}

/** Where the configuration came from. */
export type ConfigSource = 'active' | 'builtin' | 'absent' | 'untrusted'

/**
 * A function of the addon JS calls: where a panic was caught, and (tests only) where the
 * `panicIn` option makes one happen. Each value is the name JS calls it by.
 */
export type EntryPoint = 'openSession' | 'runCli' | 'restore' | 'turnStart' | 'turnEnd' | 'assistantMessage' | 'toolExecutionStart' | 'toolCall' | 'toolResult' | 'toolExecutionEnd' | 'beforeSettle' | 'waive' | 'takeStateEntries' | 'statusText' | 'footer' | 'doctor' | 'initPlan' | 'initApply' | 'reload' | 'shutdown'

/** What went wrong, as the JS error's `code`. */
export type ErrorCode = 'PNH_CONFIG_ROOT' | 'PNH_INIT_FAILED' | 'PNH_RELOAD_FAILED' | 'PNH_PANIC'

/** How Pi runs the tool calls of one assistant message. */
export type ExecutionMode = 'parallel' | 'sequential'

/** The footer (`ctx.ui.setStatus`): its line and the data behind it. */
export interface Footer {
  /** The line to show. */
  text: string
  /** True when a config root or the built-in pack was loaded. */
  active: boolean
  /**
   * Which configuration is in use: `builtin` (no config root exists) or `active` (the root in
   * `configRoot`), or why none is (`untrusted`).
   */
  configSource: ConfigSource
  /** The config root in use or refused; absent for the built-in pack. */
  configRoot?: string
  /** Diagnostics delivered so far. */
  delivered: number
  /** Requirements that passed. */
  passed: number
  /** Armed requirements neither passed nor waived. */
  pending: number
  /** Requirements currently waived. */
  waived: number
  /** The gate stopped forcing. */
  exhausted: boolean
  /** Something failed to load or run; the line already says so. */
  degraded: boolean
  /**
   * Why the session stopped (`engine panicked in <method>: <message>`), once a panic stopped
   * it; the line then ends in `degraded (engine panic in <method>)`.
   */
  panic?: string
}

/** What `/hooks-init` would do under the config root. */
export interface InitPlan {
  /** The config root. */
  root: string
  /** Every entry, in creation order. */
  entries: Array<InitPlanEntry>
  /** What was proposed for the session's project, or why nothing was; escaped. */
  notes: Array<string>
}

/** One entry of the plan. */
export interface InitPlanEntry {
  /** Its path. */
  path: string
  /** Directory or file. */
  kind: InitPlanEntryKind
  /** True when it exists already (it is kept, never overwritten). */
  exists: boolean
  /** The entry as the dry run shows it (`would create: …` or `exists (kept): …`), escaped. */
  line: string
}

/** Whether an init entry is a directory or a file. */
export type InitPlanEntryKind = 'directory' | 'file'

/**
 * Opens the hooks session for one Pi session. Loads the config root once (rules, policies,
 * settings, trust checks); an absent root gives a session over the built-in pack (no verification) whose status
 * explains `/hooks-init`.
 * Resolves to a [`BindingError`] (`PNH_CONFIG_ROOT`) when the personal root cannot be found,
 * `PNH_PANIC` when opening panicked.
 */
export declare function openSession(options: SessionOptions): Promise<HookSession | BindingError>

/** One entry to persist with `pi.appendEntry(customType, data)`. */
export interface PersistedEntry {
  /** The entry's `customType`. */
  customType: string
  /** The entry's `data` (a versioned JSON record). */
  data: unknown
}

/** What restoring a branch did. */
export interface RestoreResult {
  /** The id of the state entry restored from; absent for a fresh start. */
  restoredFrom?: string
  /** Skipped state entries, to notify the user about. */
  warnings: Array<string>
  /** Entries to append. */
  entries: Array<PersistedEntry>
}

/**
 * What a `tool_result` handler does with its result. The extension builds Pi's patch from it:
 * the original content plus one text block, with `details`, `structuredContent` and `isError`
 * passed through.
 */
export interface ResultDecision {
  /** The text block to append; absent to leave the result unchanged. */
  append?: string
}

/**
 * Runs `pi-native-hooks <argv>` (the arguments after the command name) from the process's current
 * directory, writing to its stdout and stderr, and returns the exit code: 0 clean, 1 findings,
 * 2 usage or configuration error (also 0 for `--help` and `--version`, as the binary does).
 * A panic is returned as a [`BindingError`] (`PNH_PANIC`) once what was written is flushed.
 */
export declare function runCli(argv: Array<string>, options?: CliOptions | undefined | null): number | BindingError

/** How to open a session. */
export interface SessionOptions {
  /** Pi's working directory for the session (`ctx.cwd`). */
  cwd: string
  /**
   * The config root to load. Omit it in production: the root is then
   * `<home>/.config/pi-native-hooks` with `<home>` from the OS user record (never `$HOME`).
   */
  configRoot?: string
  /**
   * typescript-language-server for projects with a TypeScript before 7 (omitted: only one
   * installed beside such a project serves it).
   */
  tsserverBridge?: TsserverBridge
  /** Tests only: replaces the settings file's `verification.continuation_cap` (default 8). */
  continuationCap?: number
  /** Tests only: replaces the settings file's `waves.timeout_ms` (default 10,000). */
  waveTimeoutMs?: number
  /**
   * Tests only: this method of the session (or `openSession`) panics inside the addon once its
   * engine work is done, and so does the session's after a `/reload`.
   */
  panicIn?: EntryPoint
}

/** What `agent_before_settle` should do. */
export interface SettleResult {
  /**
   * When set, return a `custom_message` of type `pi-native-hooks-verification` with this
   * content and `continue: true`.
   */
  message?: string
  /**
   * When set, also return a `custom_message` of type `pi-native-hooks-diagnostics` with this
   * content (diagnostics that arrived after their wave's tool results) and `continue: true`.
   */
  lateFindings?: string
  /** A one-time notification for the user (the gate stopped forcing). */
  notification?: string
  /** Entries to append. */
  entries: Array<PersistedEntry>
}

/**
 * One tool call: from an assistant message's `toolCall` block (`arguments`), or named by
 * `tool_execution_start` (`args`) or `tool_call` (`input`).
 */
export interface ToolCall {
  /** The tool call id. */
  id: string
  /** The tool's name. */
  name: string
  /** The call's arguments. */
  input?: Record<string, unknown>
}

/**
 * The fields of Pi's `tool_result` event the hooks read (Pi's event object is passed as it is;
 * its content stays in JS, where the patch is built). The engine reads the exit code
 * (`Session::tool_result_of`).
 */
export interface ToolResultEvent {
  /** The call's id. */
  toolCallId: string
  /** The tool's name. */
  toolName: string
  /** The call's arguments. */
  input?: Record<string, unknown>
  /** Whether the tool reported an error. */
  isError: boolean
  /** The tool's machine-readable result; `bash` reports its `exit_code` here. */
  structuredContent?: unknown
  /**
   * What a tool registered by an extension returns beside its content (a declared shell tool
   * may report its exit code here).
   */
  details?: unknown
  /** The result's content blocks (a declared shell tool may print its exit code in their text). */
  content?: unknown
}

/**
 * typescript-language-server, which serves projects with a TypeScript before 7 (TypeScript 7 and
 * later are their own language server): the Node that runs it and its `lib/cli.mjs`. The
 * extension and the package's command pass the one the package depends on, run by their own
 * Node (`process.execPath`).
 */
export interface TsserverBridge {
  /** The Node executable. */
  node: string
  /** typescript-language-server's `lib/cli.mjs`. */
  cli: string
}

/** What the waiver tool returns. */
export interface WaiverResult {
  /** True when a waiver was recorded. */
  recorded: boolean
  /** The tool result text. */
  message: string
  /** Entries to append. */
  entries: Array<PersistedEntry>
}
