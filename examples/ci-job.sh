#!/bin/sh
# SPDX-License-Identifier: MIT
# ci-job.sh - a CI job with mtrace, as a GitHub Actions step would run it:
#   build the project with mtrace-cc, run its test, fail on a leak that is
#   not suppressed (PROJECT/mtrace.supp) or on a peak over MTRACE_MAX_HEAP,
#   and keep the JSON report and the Massif file in PROJECT/artifacts.
# usage: ci-job.sh PROJECT     (needs mtrace-cc and mtrace2massif on PATH)
set -u
project=${1:?usage: ci-job.sh PROJECT}
cd "$project" || exit 2
make clean > /dev/null
CC=mtrace-cc make > build.log 2>&1 || { cat build.log; exit 2; }
mkdir -p artifacts
[ -f mtrace.supp ] && export MTRACE_SUPPRESS=mtrace.supp
MTRACE=artifacts/hello.trace MTRACE_REPORT=artifacts/report.json ./hello > test.out 2> test.err
status=$?
mtrace2massif artifacts/hello.trace -o artifacts/massif.out.hello > /dev/null
grep -e 'error:' -e 'note:' -e 'suppressed' -e 'warning:' test.err
if [ $status -ne 0 ]; then
    echo "job failed: exit status $status"
    exit 1
fi
echo "job passed"
