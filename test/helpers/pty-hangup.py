"""Runs a command on a real pty, then hangs the terminal up the way an SSH drop does.

Usage: python3 pty-hangup.py WHEN CMD [ARGS...]
The command gets a new pty as its controlling terminal (stdin, stdout and stderr). WHEN is a
number of seconds, or FILE::TEXT: once FILE holds TEXT (the command is under way; at most 60 s),
the pty's master side is closed (the kernel hangs the terminal up) and the command is sent SIGHUP.
Prints one JSON line: {"code": N} or {"signal": N}, and what the terminal showed before it went away.
"""
import json, os, pty, select, signal, sys, time

when = sys.argv[1]
wait_file, _, wait_text = when.partition('::')
pid, master = pty.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
shown = b''
deadline = time.time() + (60 if wait_text else float(when))


def file_has_text():
    try:
        with open(wait_file, encoding='utf-8', errors='replace') as f:
            return wait_text in f.read()
    except OSError:
        return False


while time.time() < deadline and not (wait_text and file_has_text()):
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
