#!/bin/bash
# SPDX-License-Identifier: MIT
# The converters against a model (issue 22): random valid traces through
# mtrace2massif and ms_print, each Massif file checked against the heap the
# trace describes and Massif's snapshot policy; damaged traces and Massif
# files must give one FILE:LINE error, never a signal.  tests/convmodel/README.md
# says how; `make test-convmodel SEEDS=N` runs more.
exec bash "$(dirname "$0")/convmodel/run.sh" "$@"
