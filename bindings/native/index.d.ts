
/**
 * Which binding artifact the generated loader actually loaded: `'native'` for
 * a native addon, otherwise the `platformArchABI` of the WASI flavor. Every
 * flavor napi-rs can build is listed, because `NAPI_RS_NATIVE_LIBRARY_PATH`
 * can point the loader at a WASI artifact this package does not build itself.
 */
export declare const __napiBindingTarget: 'native' | 'wasm32-wasi' | 'wasm32-wasip1'

/** The hooks of one Pi session. */
export declare class HookSession {
  /** True when a config root was loaded and the hooks run. */
  get active(): boolean
  /** The config root this session loaded (or found absent). */
  get configRoot(): string
  /**
   * Restores the verification state of the current branch (`getBranch()`, root first): at
   * session start, resume, fork and after `/tree` navigation.
   */
  restore(branch: Array<BranchEntry>): Promise<RestoreResult>
  /** `turn_start`. */
  turnStart(turn: number): void
  /** `turn_end`. */
  turnEnd(): void
  /**
   * An assistant `message_end`: its tool call blocks in source order, and whether Pi runs
   * them one at a time (`sequential`) or concurrently (`parallel`).
   */
  assistantMessage(toolCalls: Array<any>, sequential: boolean): void
  /** `tool_execution_start`. */
  toolExecutionStart(id: string, name: string, input?: any | undefined | null): void
  /** `tool_call`: resolves once the wave's baseline snapshot is taken (bounded by the timeout). */
  toolCall(id: string, name: string, input?: any | undefined | null): Promise<void>
  /**
   * `tool_result`: resolves, once the call's wave is analyzed (bounded), to the patch for the
   * carrier — `{ content, details, structuredContent, isError }` with the block appended and
   * everything else unchanged — or `null` to leave the result alone.
   */
  toolResult(event: any): Promise<any | null>
  /** `tool_execution_end`. */
  toolExecutionEnd(id: string): void
  /** `agent_before_settle`: refreshes the workspace and decides whether the agent may stop. */
  beforeSettle(): Promise<SettleResult>
  /** The waiver tool: waives every outstanding check with `reason`. */
  waive(toolCallId: string, reason: string): Promise<WaiverResult>
  /**
   * State entries produced since the last call (e.g. a wave armed a check). Never waits: the
   * engine feeds waves to the gate in `toolResult` and in the background.
   */
  takeStateEntries(): Array<PersistedEntry>
  /** The status model behind `/hooks-status`, as a plain object (as last published). */
  status(): any
  /** The status as `/hooks-status` prints it (as last published, escaped). */
  statusText(): string
  /** The compact footer line (as last published). */
  footer(): string
  /**
   * The `/hooks-doctor` text: config root, trust checks, policy load results, analyzer
   * health.
   */
  doctor(): Promise<string>
  /**
   * Every entry `/hooks-init` would create under the config root (`would create: …` or
   * `exists (kept): …`). Async: it looks at the file system.
   */
  initPlan(): Promise<Array<string>>
  /**
   * Creates the missing entries of the config root (never overwrites; on failure removes what
   * it created). Resolves to the created paths.
   */
  initApply(): Promise<Array<string>>
  /** `session_shutdown`: releases every waiting handler unchanged and ignores later events. */
  shutdown(): void
}

/** One `custom` entry of the current branch (`ctx.sessionManager.getBranch()`). */
export interface BranchEntry {
  /** The entry's id. */
  id: string
  /** Its `customType`. */
  customType: string
  /** Its `data`. */
  data: any
}

/**
 * Opens the hooks session for one Pi session. Loads the config root once (rules, policies, trust
 * checks); an absent root gives an inactive session whose status explains `/hooks-init`.
 */
export declare function openSession(options: SessionOptions): Promise<HookSession>

/** One entry to persist with `pi.appendEntry(customType, data)`. */
export interface PersistedEntry {
  /** The entry's `customType`. */
  customType: string
  /** The entry's `data`. */
  data: any
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
 * Runs `pi-native-hooks <argv>` (the arguments after the command name) from the process's current
 * directory, writing to its stdout and stderr, and returns the exit code: 0 clean, 1 findings,
 * 2 usage or configuration error (also 0 for `--help` and `--version`, as the binary does).
 */
export declare function runCli(argv: Array<string>): number

/** How to open a session. */
export interface SessionOptions {
  /** Pi's working directory for the session (`ctx.cwd`). */
  cwd: string
  /**
   * The config root to load. Omit it in production: the root is then
   * `<home>/.config/pi-native-hooks` with `<home>` from the OS user record (never `$HOME`).
   */
  configRoot?: string
  /** Consecutive continuations without progress before the gate stops forcing (default 8). */
  continuationCap?: number
  /** The longest a tool handler waits for its wave, in milliseconds (default 10,000). */
  waveTimeoutMs?: number
}

/** What `agent_before_settle` should do. */
export interface SettleResult {
  /**
   * When set, return a `custom_message` of type `pi-native-hooks-verification` with this
   * content and `continue: true`.
   */
  message?: string
  /** A one-time notification for the user (the gate stopped forcing). */
  notification?: string
  /** Entries to append. */
  entries: Array<PersistedEntry>
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
