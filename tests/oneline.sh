#!/bin/bash
# SPDX-License-Identifier: MIT
# The tracer suite again, in the one-line use: cc -DMTRACE=1 -include
# mtrace.h, the runtime compiled into every file, nothing linked.
MTRACE_TEST_MODE=header exec bash "$(dirname "$0")/tracer.sh"
