"""Runs a command on a real pty whose screen nobody reads (a terminal after Ctrl-S, or a pager that
stopped), until FILE holds TEXT or SECONDS pass; then reads the terminal to the command's end.

Usage: python3 pty-unread.py SECONDS FILE TEXT CMD [ARGS...]
Prints one JSON line: {"seen": true|false} (TEXT was in FILE before the deadline, while the
terminal was not read), {"code": N} or {"signal": N}, and what the terminal showed.
"""
import json, os, pty, sys, time

seconds, wait_file, wait_text = float(sys.argv[1]), sys.argv[2], sys.argv[3]
pid, master = pty.fork()
if pid == 0:
    os.execvp(sys.argv[4], sys.argv[4:])


def file_has_text():
    try:
        with open(wait_file, encoding='utf-8', errors='replace') as f:
            return wait_text in f.read()
    except OSError:
        return False


deadline = time.time() + seconds
while time.time() < deadline and not file_has_text():
    time.sleep(0.05)
seen = file_has_text()
shown = b''
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    shown += chunk
_, status = os.waitpid(pid, 0)
result = {'seen': seen}
result.update({'signal': os.WTERMSIG(status)} if os.WIFSIGNALED(status) else {'code': os.WEXITSTATUS(status)})
result['shown'] = shown.decode('utf-8', 'replace')
print(json.dumps(result))
