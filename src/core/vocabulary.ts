/** The fixed words of the design contract: verdicts, stages and causes. */

export const VERDICTS = ['ready', 'failed', 'stalled', 'incomplete'] as const;
export type VerdictKind = (typeof VERDICTS)[number];

/** Stages in startup order; `none` means no marker was seen yet. */
export const STAGES = [
  'none',
  'launch',
  'distributed_init',
  'load_weights',
  'kv_cache',
  'compile',
  'cuda_graph',
  'http_server',
  'warmup',
  'ready',
] as const;
export type Stage = (typeof STAGES)[number];

export const CAUSES = [
  'gpu_oom',
  'kv_cache_memory',
  'host_oom',
  'nccl_timeout',
  'distributed_error',
  'gpu_fault',
  'unsupported_gpu',
  'bad_argument',
  'model_unavailable',
  'unsupported_model',
  'draft_model',
  'port_in_use',
  'dependency_error',
  'kernel_error',
  'warmup_failed',
  'native_crash',
  'crash',
  'unknown',
] as const;
export type Cause = (typeof CAUSES)[number];

export function stageIndex(stage: Stage): number {
  return STAGES.indexOf(stage);
}

export function isStage(value: unknown): value is Stage {
  return typeof value === 'string' && (STAGES as readonly string[]).includes(value);
}

export function isCause(value: unknown): value is Cause {
  return typeof value === 'string' && (CAUSES as readonly string[]).includes(value);
}

export function isVerdictKind(value: unknown): value is VerdictKind {
  return typeof value === 'string' && (VERDICTS as readonly string[]).includes(value);
}
