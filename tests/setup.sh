#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/setup.sh - run first by `make test` (and so by .ci/run): are the
# commands (and files) of tests/packages.txt all there?  If not, and it may (root,
# apt-get present, MTRACE_NO_INSTALL unset), it installs their Debian
# packages; otherwise it stops at once with one line naming the packages,
# exit status 1, so that no suite fails late for a missing tool.
#   MTRACE_NO_INSTALL=1   never install: name the packages and stop
# Reads only its list, PATH and the names of the files it lists: it runs in
# a fraction of a second.
cd "$(dirname "$0")" || exit 2
list=packages.txt

# here PATTERN: a file matching the shell pattern exists
here() {
    for f in $1; do [ -e "$f" ] && return 0; done
    return 1
}

# missing: the commands (or files) of the list that are not there, and
# their packages
missing() {
    cmds='' pkgs=''
    while read -r cmd names; do
        case $cmd in
            '' | '#'*) continue ;;
            /*) here "$cmd" && continue ;;
            *) command -v "$cmd" > /dev/null 2>&1 && continue ;;
        esac
        cmds="$cmds $cmd"
        for p in $names; do
            case " $pkgs " in *" $p "*) ;; *) pkgs="$pkgs $p" ;; esac
        done
    done < "$list"
    cmds=${cmds# } pkgs=${pkgs# }
}

missing
[ -z "$cmds" ] && exit 0
may=yes
[ "$(id -u)" = 0 ] || may=no
command -v apt-get > /dev/null 2>&1 || may=no
case ${MTRACE_NO_INSTALL:-} in '' | 0) ;; *) may=no ;; esac
if [ $may = yes ]; then
    echo "tests/setup.sh: installing $pkgs (for $cmds)"
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2086   # one package a word
    { apt-get update -qq && apt-get install -y -qq $pkgs; } > /dev/null ||
        echo "tests/setup.sh: apt-get install $pkgs failed" >&2
    missing
    [ -z "$cmds" ] && exit 0
fi
echo "tests/setup.sh: the tests need $cmds: apt-get install $pkgs" >&2
exit 1
