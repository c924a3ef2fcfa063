// A server killed by the OOM killer: no last words, just SIGKILL.
setTimeout(() => process.kill(process.pid, 'SIGKILL'), 100);
