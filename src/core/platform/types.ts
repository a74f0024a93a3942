/** What lanes needs to know about one local process to prove it is the process it recorded. */
export interface ProcessFacts {
  pid: number;
  ppid: number;
  /** The process state's first letter: R, S, D, I, T, U, Z (zombie), X (dead), …; '?': its facts could not be read (denied). */
  state: string;
  /**
   * When the process started, as a decimal string comparable only on the same platform: on Linux
   * /proc/<pid>/stat field 22 (clock ticks since boot); with `ps`, `lstart` in seconds since the
   * epoch (ps's resolution).
   */
  startTime: string;
  /** The executable's name, for launcher and shell matching (Linux: the 15-character comm). */
  name: string;
  /** The command line ('' when it was not asked for or cannot be read). */
  command: string;
  /** Its process group (Linux only: /proc's field 5; undefined where ps reports the facts). */
  pgid?: number;
}

/** The one place that knows how this OS tells lanes about processes and boots. */
export interface ProcessPlatform {
  /** `proc` (Linux) or `ps` (macOS, the BSDs). */
  readonly kind: 'proc' | 'ps';
  /** The OS lanes believes it runs on (process.platform, or LANES_PLATFORM). */
  readonly os: string;
  /**
   * Facts of those of `pids` that exist, in ONE read for all of them (one `ps` process, never one
   * per pid). `withCommand` also reads command lines (free with `ps`, one more file per pid on Linux).
   */
  facts(pids: readonly number[], withCommand?: boolean): Map<number, ProcessFacts>;
  /** `pid` and its ancestors, nearest first, at most `max` of them, with command lines unless `withCommand` is false. */
  lineage(pid: number, max: number, withCommand?: boolean): ProcessFacts[];
  /** The identity of this boot (changes at every boot), read once per process; null when unreadable. */
  bootId(): string | null;
  /** The facts it could not read for this very process, as short phrases ([] when it can judge). */
  selfCheck(): string[];
  /**
   * The start time of this process' pid namespace's first process (Linux: /proc/1), read once, or
   * null where that cannot be told. A sandbox that runs commands in a pid namespace of its own
   * (Codex's, bubblewrap's) shows only processes started in it: one that started before its first
   * process and is absent is out of sight, not gone.
   */
  visibleSince?(): string | null;
}
