/**
 * How a `truncated` notice's detail begins when the follower reads on past a hole its writer
 * left (a writer without O_APPEND kept its offset after a copytruncate) instead of reading the
 * file again from the start: the reporters word the two apart.
 */
export const HOLE_NOTICE = 'a hole of zeros before read offset';
