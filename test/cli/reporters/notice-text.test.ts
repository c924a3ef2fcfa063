/** What a follower's notices say to a person: a truncation read from the start, or read on past a hole. */
import { expect, it } from 'vitest';
import { noticeText } from '../../../src/cli/reporters/event-lines.js';
import { HOLE_NOTICE } from '../../../src/io/truncation-notice.js';

it.for([
  { detail: 'size 10 is below read offset 300', says: 'server.log was truncated; reading it from the start' },
  { detail: 'the bytes before read offset 300 changed (size 9000)', says: 'server.log was truncated; reading it from the start' },
  { detail: `${HOLE_NOTICE} 300: the writer did not append`, says: 'server.log was truncated under a writer that does not append; reading on past the hole it left' },
])('$detail', ({ detail, says }) => {
  expect(noticeText({ type: 'truncated', path: 'server.log', detail })).toBe(says);
});
