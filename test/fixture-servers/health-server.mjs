// Usage: node health-server.mjs --port P --log FILE [--speed N] [--max-gap-ms M]
// A server whose HTTP front end stays healthy while its log shows the engine dying: /health must not be trusted
// alone. Port 0 picks a free port; the first stdout line says which.
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { pacingFrom, pacingOptions, printPacedLog } from './lib/paced-log.mjs';

const { values } = parseArgs({ options: { ...pacingOptions, port: { type: 'string', default: '0' } } });
const pacing = pacingFrom(values);
const HEALTHY = new Set(['/health', '/health_generate', '/v1/models']);

const server = createServer((request, response) => {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  const status = request.method === 'GET' && HEALTHY.has(path) ? 200 : 404;
  response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok\n' : 'not found\n');
});
server.listen(Number(values.port), '127.0.0.1', async () => {
  const { port } = server.address();
  process.stdout.write(`health-server listening on http://127.0.0.1:${port}\n`);
  await printPacedLog(pacing);
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
