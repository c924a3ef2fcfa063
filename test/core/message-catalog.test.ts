/** The servers' own messages: how a line is found to be one, and what it may then say. */
import { describe, expect, it } from 'vitest';
import { classFits, lineMessage, MessageIndex, type CatalogMessage } from '../../src/core/message-catalog.js';

const m = (over: Partial<CatalogMessage> & Pick<CatalogMessage, 'literal'>): CatalogMessage => ({ id: `t/${over.literal.slice(0, 8)}`, kind: 'fatal', printed: 'exception', cause: 'bad_argument', ...over });

describe('MessageIndex', () => {
  const index = new MessageIndex([
    m({ literal: 'is not supported for the current GPU. Minimum capability', cause: 'unsupported_gpu' }),
    m({ literal: 'not supported for the current GPU', cause: 'bad_argument' }),
    m({ literal: 'No module named', className: 'ModuleNotFoundError', cause: 'dependency_error' }),
    m({ literal: 'ailed to load NCCL library from', printed: 'error', kind: 'fatal_if_exception_follows', cause: 'dependency_error' }),
  ]);

  it.for([
    { text: 'The quantization method fp8 is not supported for the current GPU. Minimum capability: 89.', want: 'unsupported_gpu', why: 'the longest fragment held wins' },
    { text: 'Mode X not supported for the current GPU.', want: 'bad_argument', why: 'a shorter one when the longer is not there' },
    { text: 'Failed to load NCCL library from libnccl.so.2', want: 'dependency_error', why: 'a fragment cut mid-word is found by its inner words' },
    { text: 'nothing to see here', want: undefined, why: 'no fragment, no message' },
  ])('$why', ({ text, want }) => {
    expect(index.find(text)?.cause).toBe(want);
  });

  it('a fragment must be held whole, not only its key word', () => {
    expect(index.find('the current GPU is fine')).toBeUndefined();
  });

  it('short fragments need their exception class; long ones do not', () => {
    const short = m({ literal: 'No module named', className: 'ModuleNotFoundError' });
    expect(classFits(short, 'ModuleNotFoundError')).toBe(true);
    expect(classFits(short, 'builtins.ModuleNotFoundError')).toBe(true);
    expect(classFits(short, 'RuntimeError')).toBe(false);
    expect(classFits(m({ literal: 'is not supported for the current GPU. Minimum capability', className: 'ValueError' }), 'RuntimeError')).toBe(true);
    expect(classFits(m({ literal: 'must be divisible', className: 'ValueError' }), 'pydantic_core._pydantic_core.ValidationError')).toBe(true);
  });
});

describe('lineMessage', () => {
  const index = new MessageIndex([
    m({ literal: 'Memory access fault by GPU node-', printed: 'native', cause: 'gpu_fault' }),
    m({ literal: 'Traceback (most recent call last):', printed: 'print', cause: 'crash' }),
    m({ literal: 'Failed to import from vllm._C', printed: 'warning', kind: 'fatal_if_exception_follows', cause: 'dependency_error' }),
    m({ literal: 'does not loop back to start', printed: 'native', cause: 'distributed_error' }),
    m({ literal: ': connect to ', printed: 'native', cause: 'distributed_error' }),
    m({ literal: 'Some survivable warning text', printed: 'warning', kind: 'survivable', cause: undefined }),
  ]);

  it.for([
    { body: 'Memory access fault by GPU node-2 (Agent handle: 0x55) on address 0x7f.', level: undefined, want: 'gpu_fault', why: 'a native fatal line' },
    { body: 'Memory access fault by GPU node-2 (Agent handle: 0x55) on address 0x7f.', level: 'INFO', want: undefined, why: 'never at a calm level' },
    { body: 'Traceback (most recent call last):', level: undefined, want: undefined, why: 'a line that only says a process died names no cause' },
    { body: "Failed to import from vllm._C with ModuleNotFoundError('No module named vllm._C')", level: 'WARNING', want: 'dependency_error', why: 'a warning that explains a later exception' },
    { body: 'host:1:1 [0] graph/rings.cc:51 NCCL WARN Error : ring 0 does not loop back to start', level: undefined, want: 'distributed_error', why: 'an NCCL WARN line the source aborts after' },
    { body: 'host:1:1 [0] NCCL INFO ring 0 does not loop back to start', level: undefined, want: undefined, why: 'an NCCL INFO line is calm' },
    { body: 'socketStartConnect: connect to 10.0.0.2<35215> failed', level: undefined, want: undefined, why: 'a fragment too short to name a line' },
    { body: 'Some survivable warning text here', level: undefined, want: undefined, why: 'a survivable message names nothing' },
  ])('$why', ({ body, level, want }) => {
    expect(lineMessage(index, body, level)?.cause).toBe(want);
  });

  it('the fast path reads every line that holds one of them', () => {
    expect([...index.lineLiterals].sort()).toEqual(['Failed to import from vllm._C', 'Memory access fault by GPU node-', 'does not loop back to start']);
  });
});
