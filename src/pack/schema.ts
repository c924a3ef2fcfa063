/**
 * The JSON Schema of a rule pack. `rules/pack.schema.json` is generated from this object
 * (`npm run schema`; a test checks the file is current) so editors can offer completion.
 */
import { CAUSES, STAGES } from '../core/vocabulary.js';

const id = { type: 'string', pattern: '^[a-z0-9][a-z0-9-]*/[a-z0-9][a-z0-9-]*$', description: 'Stable id: `pack/rule-name`.' };
const duration = { type: 'string', pattern: '^\\s*(?:\\d+(?:\\.\\d+)?(?:ms|s|m|h|d))+\\s*$|^\\s*\\d+(?:\\.\\d+)?\\s*$', description: 'A duration: `90s`, `5m`, `1h30m`.' };
const stage = { enum: STAGES.filter((s) => s !== 'none') };

const ruleProperties = {
  id,
  pattern: { type: 'string', minLength: 1, description: 'A JavaScript regular expression (single-quote it in YAML).' },
  description: { type: 'string', minLength: 1 },
  ignore_case: { type: 'boolean', description: 'Adds the `i` flag.' },
  fixtures: { type: 'array', items: { type: 'string' }, description: 'Fixtures that exercise or justify this rule.' },
  source: { type: 'string', description: 'Where the message comes from upstream (file, version).' },
  untested: { type: 'string', description: 'Why no fixture exercises this rule yet (coverage accepts the rule when this is given).' },
};

function rule(extra: Record<string, unknown> = {}, required: string[] = []): Record<string, unknown> {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'pattern', 'description', ...required],
    properties: { ...ruleProperties, ...extra },
  };
}

function inferenceEntry(what: string): Record<string, unknown> {
  const entry = rule({ cause: { enum: [...CAUSES] }, message: { type: 'string', minLength: 1 }, hint: { type: 'string', minLength: 1 } }, ['cause', 'message', 'hint', 'source']);
  return { ...entry, description: `${what} \`source\` names the catalog section it comes from.` };
}

export const packSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://spinup.dev/pack.schema.json',
  title: 'spinup rule pack',
  type: 'object',
  additionalProperties: false,
  required: ['pack', 'description'],
  properties: {
    $schema: { type: 'string' },
    pack: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]*$', description: 'The pack name: a server family, or a shared pack.' },
    description: { type: 'string' },
    include: { type: 'array', items: { type: 'string' }, description: 'Shared packs (file names without .yaml) this pack uses.' },
    timing: {
      type: 'object',
      additionalProperties: false,
      properties: {
        default_budget: { ...duration, description: 'Budget for stages that do not name one.' },
        settle: { ...duration, description: 'After a fatal line without a clear cause, how long to wait for the cause to show.' },
      },
    },
    detect: {
      type: 'array',
      items: rule({ clue: { type: 'boolean', description: 'A clue, not proof: counted with the other clues, never decisive alone.' } }),
    },
    prefixes: { type: 'array', items: rule({ logger: { type: 'boolean', description: 'This prefix is the server\'s own logger: a traceback under it was logged, not uncaught.' } }) },
    stages: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['stage', 'markers'],
        properties: {
          stage,
          budget: { ...duration, description: 'Longest silence (no progress, no new line but heartbeats) tolerated in this stage.' },
          cold_floor: {
            ...duration,
            description:
              'The least a learned budget may be here: this stage takes longer cold (weights read from disk or downloaded, empty compile or kernel caches) than any warm start shows.',
          },
          markers: {
            type: 'array',
            items: rule({
              restart: { type: 'boolean', description: 'This marker starts a new run of the server (a later run in the same file resets the state).' },
              reenter_from: { ...stage, description: 'This marker may re-enter its (earlier) stage when the current stage is this one or later.' },
            }),
          },
        },
      },
    },
    progress: {
      type: 'array',
      items: rule({
        stage: { ...stage, description: 'Entering this stage if not already there or beyond (logs at WARNING level show only bars).' },
        unit: { type: 'string', description: 'What is being counted, for people: `shards`, `batches`.' },
      }),
    },
    ready: {
      type: 'array',
      items: rule({
        hold: { ...duration, description: 'Hold the ready verdict this long: a retraction (a bind error) can still follow.' },
        confirm: { type: 'array', items: { type: 'string', minLength: 1 }, description: 'Lines that confirm a held ready at once (`Uvicorn running on`).' },
      }),
    },
    heartbeats: { type: 'array', items: rule({ stall_after: { type: 'integer', minimum: 1, description: 'This many repeats with no progress between them is the server\'s own report of a hang.' } }) },
    benign: { type: 'array', items: rule() },
    failures: {
      type: 'array',
      items: rule(
        {
          cause: { enum: [...CAUSES] },
          role: { enum: ['cause', 'symptom'], description: '`cause`: the line names what went wrong. `symptom`: it says the start is dead, the cause is elsewhere.' },
          fatal: { type: 'boolean', description: 'False for lines that explain a failure when one happens but do not by themselves end the start.' },
          final: { type: 'boolean', description: 'The server is exiting: no better root cause will follow.' },
          in_frame: { type: 'string', minLength: 1, description: 'Only for a traceback whose innermost frame file matches this.' },
          in_traceback: { type: 'string', minLength: 1, description: 'Only for a traceback with any frame file matching this.' },
          fallback: { type: 'boolean', description: 'A catch-all: on a line a specific rule also names, the specific rule wins.' },
          cause_when_first: { enum: [...CAUSES], description: 'For a wrapper: the cause it names when nothing went wrong before it (a bare `Killed`).' },
          message: { type: 'string', minLength: 1 },
          hint: { type: 'string', minLength: 1 },
        },
        ['cause', 'message', 'hint'],
      ),
    },
    launch: {
      type: 'array',
      description: 'How `run` knows this family from its launch command: tried on the program name and a `python -m` module.',
      items: rule(),
    },
    start_facts: {
      type: 'array',
      description: 'Argument dumps that give a start\'s model and settings: the pattern finds where the list begins.',
      items: rule(
        {
          close: { type: 'string', minLength: 1, maxLength: 1, description: 'The character that ends the list; none = the rest of the line.' },
          model: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 }, description: 'Keys naming the model, first found wins.' },
          tp: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 }, description: 'Keys giving the tensor-parallel size.' },
          tp_default: { type: 'integer', minimum: 1, description: 'The TP size when the dump leaves it out.' },
        },
        ['model', 'tp'],
      ),
    },
    inference: {
      type: 'object',
      additionalProperties: false,
      description: 'The cause-inference layer: causes for exceptions no failure rule names (below rules, above a plain crash).',
      properties: {
        words: { type: 'array', items: inferenceEntry('Matched against the exception line and its continuation lines.') },
        fallback_words: { type: 'array', items: inferenceEntry('Words so common that the class and the package are asked first; matched like `words`.') },
        classes: { type: 'array', items: inferenceEntry('Matched against the class name of the exception (`torch.OutOfMemoryError`).') },
        packages: { type: 'array', items: inferenceEntry('Matched against the file of the innermost traceback frame.') },
        remedies: { type: 'array', items: rule({}, ['source']), description: 'Generic advice a server prints after an exception: not the words of the exception.' },
        symptoms: { type: 'array', items: rule({}, ['source']), description: 'Classes of exceptions that only report another process dying (a launcher EOFError): ranked below a wrapper that names the cause.' },
      },
    },
  },
} as const;
