#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/top/pty.py WAIT_FOR KEY CMD... - CMD run on a pseudo-terminal of
its own (its controlling terminal, 80x24): once its screen has shown the
text WAIT_FOR (empty: at once), KEY is typed ('q', or '^C' for Ctrl-C,
'-' for none).  Prints "status N" (its exit status, or -SIG), then
"restored" if the terminal's modes after it are those before it, then
"raw" if, once the text was shown, the terminal neither echoed what is
typed nor waited for a whole line (ECHO and ICANON off), then the bytes
it wrote, escapes as they are.  Gives up after 20 s (status
"timeout")."""
import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time

want, key, cmd = sys.argv[1].encode(), sys.argv[2], sys.argv[3:]
master, slave = os.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
before = termios.tcgetattr(slave)


def own_terminal():
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


proc = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, preexec_fn=own_terminal)
out = b""
sent = key == "-"
during = None
deadline = time.time() + 20
while time.time() < deadline:
    r, _, _ = select.select([master], [], [], 0.05)
    if r:
        try:
            out += os.read(master, 65536)
        except OSError:
            break
    if during is None and want in out and out:
        during = termios.tcgetattr(slave)
    if not sent and want in out:
        time.sleep(0.2)
        os.write(master, b"\x03" if key == "^C" else key.encode())
        sent = True
    if proc.poll() is not None:
        r, _, _ = select.select([master], [], [], 0.1)
        if not r:
            break
status = proc.poll()
if status is None:
    proc.kill()
    status = "timeout"
after = termios.tcgetattr(slave)
raw = during is not None and not during[3] & (termios.ECHO | termios.ICANON)
sys.stdout.write("status %s\n%s\n%s\n" % (status, "restored" if after == before else "not restored",
                                          "raw" if raw else "not raw"))
sys.stdout.flush()
sys.stdout.buffer.write(out)
