// A server that shrugs off SIGTERM, so only SIGKILL ends it. Gives up after 600 s so it can never leak forever.
process.on('SIGTERM', () => process.stdout.write('ignoring SIGTERM\n'));
process.stdout.write('ignore-sigterm started\n');
setTimeout(() => process.exit(0), 600_000);
