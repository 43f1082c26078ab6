#!/bin/bash
# SPDX-License-Identifier: MIT
# The reference model (issue 22): random programs run by tests/model/driver.c
# at every level, each compared with what model.py predicts from README.md
# and doc/ (exit status, reports, JSON, trace; forked children, call
# stacks).  tests/model/run.sh says how;
# `make test-model-long` runs longer scripts.
exec bash "$(dirname "$0")/model/run.sh" "$@"
