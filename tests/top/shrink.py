#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/top/shrink.py FILE - FILE written with a trace's first records and
flock'ed as the tracer holds its trace; after a second it is cut to half
its length (a new run writing over it), still held; held 3 s more."""
import fcntl
import sys
import time

held = open(sys.argv[1], 'w')
fcntl.flock(held, fcntl.LOCK_EX)
held.write('@ 1 f a.c 1\n' + ''.join('+ 1 %d %d %d 0\n' % (i, 10 * (i + 1), 10 * (i + 1)) for i in range(40)))
held.flush()
time.sleep(1.0)
held.truncate(200)
time.sleep(3)
