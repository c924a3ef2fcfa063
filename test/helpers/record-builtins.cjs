// Preload (`--require`): at exit, writes the names of the Node builtins the main thread loaded,
// one per line, to $RECORD_BUILTINS_TO (process.moduleLoadList: `NativeModule child_process`).
const { writeFileSync } = require('node:fs');

process.on('exit', () => {
  const names = process.moduleLoadList.filter((entry) => entry.startsWith('NativeModule ')).map((entry) => entry.slice('NativeModule '.length));
  writeFileSync(process.env.RECORD_BUILTINS_TO, `${names.join('\n')}\n`);
});
