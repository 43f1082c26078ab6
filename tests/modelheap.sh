#!/bin/bash
# SPDX-License-Identifier: MIT
# The heap check never reports falsely (issue 38): the reference model's
# random programs (tests/model/), whose bad frees are injected but whose
# writes all stay inside their blocks, run under MTRACE_CHECK=heap and
# must give what model.py predicts from the documents, as without the
# check: no heap report, the same figures, reports and traces
# (model.py's HEAP_CHECK says what differs: pvalloc's whole pages).
# 60 seeds at every level; `MODEL_HEAP_CHECK=1 tests/model/run.sh` more.
MODEL_HEAP_CHECK=1 exec bash "$(dirname "$0")/model/run.sh" 60 "$@"
