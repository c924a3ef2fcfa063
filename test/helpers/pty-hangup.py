"""Runs a command on a real pty, then hangs the terminal up the way an SSH drop does.

Usage: python3 pty-hangup.py SECONDS CMD [ARGS...]
The command gets a new pty as its controlling terminal (stdin, stdout and stderr). After SECONDS
of reading its output, the pty's master side is closed (the kernel hangs the terminal up) and the
command is sent SIGHUP. Prints one JSON line: {"code": N} or {"signal": N}, and what the terminal
showed before it went away.
"""
import json, os, pty, select, signal, sys, time

delay = float(sys.argv[1])
pid, master = pty.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
shown = b''
deadline = time.time() + delay
while time.time() < deadline:
    ready, _, _ = select.select([master], [], [], 0.05)
    if ready:
        try:
            shown += os.read(master, 65536)
        except OSError:
            break
os.close(master)
try:
    os.kill(pid, signal.SIGHUP)
except ProcessLookupError:
    pass
_, status = os.waitpid(pid, 0)
result = {'signal': os.WTERMSIG(status)} if os.WIFSIGNALED(status) else {'code': os.WEXITSTATUS(status)}
result['shown'] = shown.decode('utf-8', 'replace')
print(json.dumps(result))
