#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/segments/swap.py DIR OLD NEWER - plays a tracer's rotation by
hand for tests/segments.sh: DIR/t is OLD's copy, flock'ed as the tracer
holds its trace; after a second it is renamed t.seg-K (K: OLD's
checkpoint) and a copy of NEWER, a later segment, takes the name t,
flock'ed too, so that the segments between went by unread; held 3 s."""
import fcntl
import os
import re
import sys
import time

d, old, newer = sys.argv[1:4]
t = os.path.join(d, 't')
with open(old) as f:
    text = f.read()
seg = re.search(r'^#checkpoint (\d+) ', text, re.M).group(1)
held = open(t, 'w')
fcntl.flock(held, fcntl.LOCK_EX)
held.write(text)
held.flush()
time.sleep(1.0)
os.rename(t, t + '.seg-' + seg)
nxt = open(t + '.new', 'w')
fcntl.flock(nxt, fcntl.LOCK_EX)
with open(newer) as f:
    nxt.write(f.read())
nxt.flush()
os.rename(t + '.new', t)
held.close()
time.sleep(3)
