// A server whose fatal traceback goes to stderr a line at a time while another traceback (one it
// survives, logged to stdout) is printed line for line in between; then it hangs without exiting,
// as a process whose other threads still run does. Each write is its own chunk on its own pipe.
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const write = (stream, line) => new Promise((resolve) => stream.write(`${line}\n`, resolve));

const fatal = [
  'Traceback (most recent call last):',
  '  File "/usr/lib/python3/site-packages/vllm/entrypoints/openai/api_server.py", line 10, in run',
  '    engine_args.create_engine_config()',
  '  File "/usr/lib/python3/site-packages/vllm/engine/arg_utils.py", line 1200, in create_engine_config',
  '    raise ValueError(f"max_model_len {x} exceeds the limit")',
  'ValueError: max_model_len 99999 exceeds the limit',
];
const survived = [
  'Traceback (most recent call last):',
  '  File "/usr/lib/python3/site-packages/usage/telemetry.py", line 5, in send',
  '    post(url)',
  '  File "/usr/lib/python3/site-packages/usage/http.py", line 9, in post',
  '    raise ConnectionError("telemetry endpoint unreachable")',
  'ConnectionError: telemetry endpoint unreachable',
];

await write(process.stdout, 'INFO 03-10 16:19:28 [api_server.py:1000] vLLM API server version 0.8.0');
await write(process.stdout, "INFO 03-10 16:19:29 [api_server.py:1001] non-default args: {'model': 'x'}");
for (let i = 0; i < fatal.length; i++) {
  await write(process.stdout, survived[i]);
  await sleep(30);
  await write(process.stderr, fatal[i]);
  await sleep(30);
}
setInterval(() => {}, 60_000);
