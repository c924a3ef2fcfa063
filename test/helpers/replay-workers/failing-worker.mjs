/** A stand-in replay worker that cannot start: it throws while loading, before it answers anything. */
throw new RangeError('the worker could not start');
