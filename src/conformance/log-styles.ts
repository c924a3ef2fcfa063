/**
 * How each family and era prints a traceback and the wrapper after it, as real fixtures show it:
 * the prefix every traceback line carries, the line that opens it, and the family's own lines
 * that follow a fatal exception. The conformance suite wraps catalog examples in these.
 */

/** A host log's clock at the cut: month, day, year (when the log prints one) and `HH:MM:SS`. */
export interface HostTime {
  year?: string;
  month: string;
  day: string;
  hms: string;
}

export interface LogStyle {
  name: string;
  family: 'vllm' | 'sglang';
  /** Reads the clock of one host line, undefined when it has none. */
  timeOf(line: string): HostTime | undefined;
  /** The prefix of each traceback line in a worker (EngineCore, scheduler); `tag`: the process (vLLM) or rank (SGLang) to use. */
  workerPrefix(t: HostTime, tag?: string): string;
  /** Lines that open the worker's traceback. */
  workerOpen(t: HostTime, tag?: string): string[];
  /** The prefix of each line of a traceback in the main process (argument parsing, config checks). */
  mainPrefix(t: HostTime): string;
  /** What the family prints after a worker died of an exception (its own wrapper). */
  wrapper(t: HostTime): string[];
}

const VLLM_TIME = /\b(\d\d)-(\d\d) (\d\d:\d\d:\d\d)\b/;
const SGLANG_TIME = /^\[(\d{4})-(\d\d)-(\d\d) (\d\d:\d\d:\d\d)/;

const vllmTime = (line: string): HostTime | undefined => {
  const m = VLLM_TIME.exec(line);
  return m ? { month: m[1]!, day: m[2]!, hms: m[3]! } : undefined;
};
const md = (t: HostTime): string => `${t.month}-${t.day} ${t.hms}`;
/** A vLLM process tag (`Worker_TP0 pid=140`) as printed before a line, or nothing. */
const tagOf = (proc: string | undefined): string => (proc === undefined ? '' : `(${proc}) `);

/** vLLM V1 from 2025-09: every line tagged with its process; EngineCore logs its traceback at ERROR. */
const vllmTagged: LogStyle = {
  name: 'vllm-tagged',
  family: 'vllm',
  timeOf: vllmTime,
  workerPrefix: (t, proc = 'EngineCore_DP0 pid=4242') => `(${proc}) ERROR ${md(t)} [core.py:1231] `,
  workerOpen: (t, proc) => [`${vllmTagged.workerPrefix(t, proc)}EngineCore failed to start.`, `${vllmTagged.workerPrefix(t, proc)}Traceback (most recent call last):`],
  mainPrefix: () => '(APIServer pid=4200) ',
  wrapper: () => [
    '(APIServer pid=4200) Traceback (most recent call last):',
    '(APIServer pid=4200)   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/utils.py", line 1093, in wait_for_engine_startup',
    '(APIServer pid=4200)     raise RuntimeError(',
    '(APIServer pid=4200) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}',
  ],
};

/** vLLM V1 of early 2025 (0.8): no process tags; EngineCore logs its traceback at ERROR. */
const vllmV1: LogStyle = {
  name: 'vllm-v1',
  family: 'vllm',
  timeOf: vllmTime,
  workerPrefix: (t, proc) => `${tagOf(proc)}ERROR ${md(t)} [core.py:387] `,
  workerOpen: (t, proc) => [`${tagOf(proc)}ERROR ${md(t)} [core.py:387] EngineCore hit an exception: Traceback (most recent call last):`],
  mainPrefix: () => '',
  wrapper: () => [
    'Traceback (most recent call last):',
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core_client.py", line 407, in __init__',
    '    raise RuntimeError("Engine core initialization failed. "',
    'RuntimeError: Engine core initialization failed. See root cause above.',
  ],
};

/** vLLM V0 (0.6, 0.7): the engine process prints an uncaught traceback; the front end then gives up. */
const vllmV0: LogStyle = {
  name: 'vllm-v0',
  family: 'vllm',
  timeOf: vllmTime,
  workerPrefix: (_t, proc) => tagOf(proc),
  workerOpen: (_t, proc) => [`${tagOf(proc)}Process SpawnProcess-1:`, `${tagOf(proc)}Traceback (most recent call last):`],
  mainPrefix: () => '',
  wrapper: () => [
    'Traceback (most recent call last):',
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/openai/api_server.py", line 230, in build_async_engine_client_from_engine_args',
    '    raise RuntimeError(',
    'RuntimeError: Engine process failed to start. See stack trace for the root cause.',
  ],
};

const sglangTime = (line: string): HostTime | undefined => {
  const m = SGLANG_TIME.exec(line);
  return m ? { year: m[1]!, month: m[2]!, day: m[3]!, hms: m[4]! } : undefined;
};
const ymd = (t: HostTime): string => `${t.year ?? '2025'}-${t.month}-${t.day} ${t.hms}`;

/**
 * SGLang: the scheduler prints `Scheduler hit an exception:` and a bare traceback; the launcher
 * then quits. The scheduler's rank tag (`TP0`) is the style's, or the one given.
 */
function sglangStyle(name: string, rank: string): LogStyle {
  return {
    name,
    family: 'sglang',
    timeOf: sglangTime,
    workerPrefix: () => '',
    workerOpen: (t, tag) => [`[${ymd(t)}${tag === undefined ? rank : ` ${tag}`}] Scheduler hit an exception: Traceback (most recent call last):`],
    mainPrefix: () => '',
    wrapper: (t) => [`[${ymd(t)}] Received sigquit from a child process. It usually means the child failed.`],
  };
}

export const LOG_STYLES = {
  'vllm-tagged': vllmTagged,
  'vllm-v1': vllmV1,
  'vllm-v0': vllmV0,
  'sglang-tp': sglangStyle('sglang-tp', ' TP0'),
  sglang: sglangStyle('sglang', ''),
} as const satisfies Record<string, LogStyle>;

export type LogStyleName = keyof typeof LOG_STYLES;

/**
 * Gives a catalog example the host's clock: its invented `05-19 10:00:00` (vLLM), `[2026-08-20
 * 10:00:05` (SGLang) or `E0601 10:00:00` (glog) would otherwise jump the log's time by months.
 */
export function restamp(example: string, t: HostTime): string {
  return example
    .replace(/^(\[)\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/, `$1${t.year ?? '2025'}-${t.month}-${t.day} ${t.hms}`)
    .replace(/\b(INFO|WARNING|ERROR|DEBUG|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d\b/, `$1 ${t.month}-${t.day} ${t.hms}`)
    .replace(/^([IWEF])\d{4} \d\d:\d\d:\d\d/, `$1${t.month}${t.day} ${t.hms}`);
}
