
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
  /** The status model behind `/hooks-status` (as last published). */
  status(): SessionStatus | BindingError
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

/** One analyzer's timing and health. */
export interface AnalyzerStatus {
  /** The analyzer key, e.g. `ast-grep:personal`. */
  key: string
  /** Waves it ran in. */
  runs: number
  /** Its last run's duration, in microseconds. */
  lastDurationMicros?: number
  /** The sum of its runs' durations, in microseconds. */
  totalDurationMicros: number
  /** The last run's failure, if it failed. */
  lastError?: string
  /** The files its last run could not analyze, by name and reason. */
  notAnalyzed: Array<NotAnalyzedFile>
  /** Further files it could not analyze, not named. */
  moreNotAnalyzed: number
  /**
   * What it holds for incremental re-analysis and how it analyzed files, as of its last run;
   * absent for an analyzer that holds no trees.
   */
  trees?: HeldTrees
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

/** The configuration part of the status. */
export interface ConfigStatus {
  /** Where the policies came from. */
  source: ConfigSource
  /** The config root (absent for the built-in pack). */
  root?: string
  /** The failed trust check, for an untrusted root. */
  trustError?: string
  /** What to do when nothing is loaded. */
  guidance?: string
  /** The digest of the loaded policy files. */
  registryDigest: string
  /** The loaded policies. */
  policies: Array<PolicyStatus>
  /** The files that failed to load. */
  loadErrors: Array<PolicyLoadError>
}

/**
 * A function of the addon JS calls: where a panic was caught, and (tests only) where the
 * `panicIn` option makes one happen. Each value is the name JS calls it by.
 */
export type EntryPoint = 'openSession' | 'runCli' | 'restore' | 'turnStart' | 'turnEnd' | 'assistantMessage' | 'toolExecutionStart' | 'toolCall' | 'toolResult' | 'toolExecutionEnd' | 'beforeSettle' | 'waive' | 'takeStateEntries' | 'status' | 'statusText' | 'footer' | 'doctor' | 'initPlan' | 'initApply' | 'reload' | 'shutdown'

/** What went wrong, as the JS error's `code`. */
export type ErrorCode = 'PNH_CONFIG_ROOT' | 'PNH_INIT_FAILED' | 'PNH_RELOAD_FAILED' | 'PNH_PANIC'

/** A counted success of the exact command. */
export interface Evidence {
  /** The call that ran it. */
  toolCallId: string
  /** The command. */
  command: string
  /** The project it ran for. */
  project: ProjectIdentity
  /** The registry digest it ran under. */
  registryDigest: string
  /** The revision it satisfied. */
  requiredRevision: number
  /** The workspace revision when it started. */
  startedAtRevision: number
  /** When it was recorded (ms since the Unix epoch). */
  at: number
}

/** How Pi runs the tool calls of one assistant message. */
export type ExecutionMode = 'parallel' | 'sequential'

/** A counted failure of the exact command. */
export interface FailedRun {
  /** The call that ran it. */
  toolCallId: string
  /** The revision it was required at. */
  requiredRevision: number
  /** Its exit code, when reported. */
  exitCode?: number
  /** Whether the tool reported an error. */
  isError: boolean
  /** When it was recorded (ms since the Unix epoch). */
  at: number
}

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

/** The continuation cap. */
export interface GateStatus {
  /** Continuations allowed without progress. */
  continuationCap: number
  /** Continuations sent for the current outstanding set. */
  continuationsWithoutProgress: number
  /** The gate stopped forcing; outstanding checks stay pending. */
  exhausted: boolean
}

/** What an analyzer holds for incremental re-analysis, and how it analyzed files so far. */
export interface HeldTrees {
  /** Files whose source text and syntax tree are held. */
  heldFiles: number
  /** Bytes charged for them. */
  heldBytes: number
  /** The budget (`analysis.tree_cache_bytes`). */
  budgetBytes: number
  /** Files evicted to stay within the budget. */
  evictions: number
  /** Files analyzed in full. */
  fullAnalyses: number
  /** Files re-analyzed incrementally. */
  incrementalAnalyses: number
}

/** The engine's part of the status. */
export interface HooksStatus {
  /** The configuration and policies. */
  config: ConfigStatus
  /** The settings in force and the settings file's problems. */
  settings: SettingsStatus
  /** The verification gate. */
  verification: VerificationStatus
  /** Each analyzer's timing and health. */
  analyzers: Array<AnalyzerStatus>
  /** Waves the coordinator gave up on or could not snapshot. */
  coordinatorFailures: Array<string>
  /** Skipped state entries from the last restore. */
  stateWarnings: Array<string>
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

/** A policy that matched the project. */
export interface MatchedProject {
  /** The policy id. */
  policy: string
  /** The project it matched. */
  project: ProjectIdentity
}

/** A file an analyzer could not analyze. */
export interface NotAnalyzedFile {
  /** The repository-relative path. */
  path: string
  /** Why, as the status shows it. */
  reason: string
}

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

/** A policy's kind. */
export type PolicyKind = 'diagnostic' | 'verification'

/** A policy file that did not load. */
export interface PolicyLoadError {
  /** The file. */
  path: string
  /** What is wrong. */
  message: string
  /** The policy id it had before, when a reload degraded it. */
  degradedFrom?: string
}

/** One loaded policy. */
export interface PolicyStatus {
  /** Its id. */
  id: string
  /** Its kind. */
  kind: PolicyKind
  /** Its file. */
  path: string
  /** The SHA-256 of its file, as the registry digest computes it. */
  digest: string
}

/** A project as a verification policy identifies it. */
export interface ProjectIdentity {
  /** Its root directory. */
  root: string
  /** The manifest that names it (e.g. `package.json`). */
  manifest: string
  /** Its name in that manifest. */
  name: string
}

/** A run of the exact command that did not count. */
export interface Rejection {
  /** The call that ran it. */
  toolCallId: string
  /** The workspace revision it ran at. */
  revision: number
  /** Why it did not count. */
  reason: string
  /** When it was recorded (ms since the Unix epoch). */
  at: number
}

/** Which requirement: a policy's requirement id. */
export interface RequirementKey {
  /** The policy id. */
  policy: string
  /** The requirement id within it. */
  id: string
  /**
   * The project directory (relative to the repository root) of a `PROJECT.manifests` glob's
   * match; absent for a one-project policy.
   */
  instance?: string
}

/** Where a requirement stands. */
export type RequirementState = 'inactive' | 'notRun' | 'passed' | 'failed' | 'stale' | 'waived' | 'unknown'

/** One requirement. */
export interface RequirementStatus {
  /** Which requirement. */
  key: RequirementKey
  /** Its project. */
  project: ProjectIdentity
  /** The exact command. */
  command: string
  /** The directory the command must run in (absolute). */
  dir: string
  /** Its state. */
  state: RequirementState
  /** The revision the command must run at or after. */
  requiredRevision?: number
  /** The last counted success (possibly for an older revision). */
  lastSuccess?: Evidence
  /** The waiver covering it now. */
  waiver?: WaiverStatus
  /** The last counted failure. */
  lastFailure?: FailedRun
  /** The last run of the exact command that did not count. */
  lastRejection?: Rejection
  /** Why it is unknown, when it is. */
  unknownReason?: string
  /** Why no loaded policy backs it now, when that is so. */
  detached?: string
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

/** Everything `/hooks-status` shows. */
export interface SessionStatus {
  /** True when a config root was loaded. */
  active: boolean
  /** What to do when the hooks are inactive or idle. */
  guidance?: string
  /** Config, policies, verification, analyzers, coordinator failures, state warnings. */
  hooks: HooksStatus
  /** Rule files that did not load. */
  ruleProblems: Array<string>
  /**
   * Policies that failed while running, each naming its file and the reason; most recent
   * last.
   */
  policyFailures: Array<string>
  /** Wave totals; `totals.scans` counts analyzer runs. */
  totals: WaveTotals
  /** The workspace watcher behind whole-worktree (`bash`) snapshots, when the session has one. */
  watcher?: WatcherStatus
  /**
   * Why the session stopped (`engine panicked in <method>: <message>`), once a panic stopped
   * it; the rest is then the status as last read before the panic.
   */
  panic?: string
}

/**
 * The settings in force (the settings file's, or the defaults, with the test options applied)
 * and what was wrong with the file.
 */
export interface SettingsStatus {
  /** The settings file read, when one exists. */
  file?: string
  /** Where the values come from, as text. */
  origin: string
  /** `verification.continuation_cap`. */
  continuationCap: number
  /** `waves.timeout_ms`. */
  waveTimeoutMs: number
  /** `diagnostic_block.max_tokens`. */
  blockMaxTokens: number
  /** `diagnostic_block.max_line_chars`. */
  blockMaxLineChars: number
  /** `analysis.tree_cache_bytes`: the held-tree budget of the session's analyzer, in bytes. */
  treeCacheBytes: number
  /** `tools.read_only`: the tools declared read-only besides Pi's read-only built-ins. */
  readOnlyTools: Array<string>
  /** `[[tools.shell]]`: the declared shell tools. */
  shellTools: Array<ShellToolStatus>
  /** The settings file's problems, each naming file, line and key. */
  problems: Array<string>
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

/** One declared shell tool. */
export interface ShellToolStatus {
  /** The tool's name. */
  name: string
  /** Where its exit code is found (`field details.exit_code`, `pattern '…'`). */
  exitCode: string
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
 * its content stays in JS, where the patch is built).
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

/** The verification part of the status. */
export interface VerificationStatus {
  /** The project root (git root), when the session is in a git worktree. */
  projectRoot?: string
  /** The policies that matched the project. */
  projects: Array<MatchedProject>
  /** Why a policy could not be matched. */
  projectProblems: Array<string>
  /** The workspace. */
  workspace: WorkspaceStatus
  /** Every tracked requirement. */
  requirements: Array<RequirementStatus>
  /** The continuation cap. */
  gate: GateStatus
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

/** A waiver covering a requirement. */
export interface WaiverStatus {
  /** The waiver tool call. */
  toolCallId: string
  /** The agent's reason. */
  reason: string
  /** When it was recorded (ms since the Unix epoch). */
  at: number
}

/** What the status says about the session's workspace watcher. */
export interface WatcherStatus {
  /**
   * Whether it is watching now (`unarmed`: it re-arms at the next whole-worktree snapshot;
   * `unavailable`: never in this session, see `unavailable`).
   */
  state: 'watching' | 'unarmed' | 'unavailable'
  /** Directories watched, while watching. */
  directories?: number
  /** Why it cannot watch in this session, when `state` is `unavailable`. */
  unavailable?: WatchFallback
  /** Whole-worktree snapshots updated from the watcher's events. */
  watched: number
  /** Whole-worktree snapshots taken in full (the first one included). */
  full: number
  /** Why the latest full snapshot was taken. */
  lastFallback?: WatchFallback
}

/** Why a whole-worktree snapshot was taken in full. */
export interface WatchFallback {
  /**
   * A stable code: `baseline`, `overflow`, `too-many-paths`, `watch-limit`, `watcher-error`,
   * `cookie-timeout`, `head-or-index`, `rules`, `unsupported`, `busy`, `non-utf8-name` or
   * `staged-rename`.
   */
  code: string
  /** What the status shows. */
  message: string
}

/** Wave totals. */
export interface WaveTotals {
  /** Waves finished. */
  waves: number
  /** Of which mutating. */
  mutatingWaves: number
  /** Analyzer runs. */
  scans: number
  /** Files parsed. */
  filesParsed: number
  /** Files served from the content cache. */
  filesCached: number
  /** Diagnostics delivered. */
  delivered: number
  /** Coordinator failures. */
  coordinatorFailures: number
}

/** The workspace as the gate last recorded it. */
export interface WorkspaceStatus {
  /** The branch's workspace revision. */
  revision: number
  /** The fingerprint of the last full snapshot, when the record is exact. */
  fingerprint?: string
  /** Why the workspace state is unknown, when it is. */
  unknown?: string
}
