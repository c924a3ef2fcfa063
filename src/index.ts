/** spinup as a library: load packs, classify a log, read the verdict. */
export { Classifier, type ClassifierOptions } from './core/classifier.js';
export { Session, type SessionEvent, type SessionObserver, type SessionOptions } from './core/session.js';
export { Timeline } from './core/timeline.js';
export type { ClassifierEvent, Evidence, LogLine, Verdict, Budget } from './core/events.js';
export type { CompiledPack, PackSource } from './core/pack-types.js';
export { CAUSES, STAGES, VERDICTS, type Cause, type Stage, type VerdictKind } from './core/vocabulary.js';
export { EXIT } from './core/exit-codes.js';
export { loadPack, FAMILIES, type LoadOptions } from './pack/load-pack.js';
export { PackError, formatDiagnostic, type Diagnostic } from './pack/diagnostic.js';
export { classifyText } from './replay/run-case.js';
export { GroupReducer, type GroupOptions } from './core/group-reducer.js';
export { replayGroup, type ReplayedNode } from './core/group-replay.js';
export type { GroupEvent, GroupVerdict, NodeKind, NodeSummary, SizeSource } from './core/group-types.js';
