# SPDX-License-Identifier: MIT
# tests/ms_print/optsets.sh - the option sets of the golden cases, shared by
# regen.sh (which writes expected/NAME.K.out) and tests/ms_print.sh.
# optset K FILE prints the arguments, one per line; option order and the
# file's position among the options are part of what is tested.
NSETS=4
optset() {
    case $1 in
    0) printf '%s\n' "$2" ;;
    1) printf '%s\n' --threshold=0 --x=30 --y=8 "$2" ;;
    2) printf '%s\n' --x=100 --y=25 "$2" --threshold=5 ;;
    3) printf '%s\n' --y=12 "$2" --threshold=0.5% --x=50 --x=41 ;;
    esac
}
